import { CfnOutput, Stack, type StackProps, Token } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { EDGE_REGION } from '#lib/config/index.ts';
import { EdgeWebAcl } from './constructs/edge-acl.ts';

/** Props of the account's shared edge stack. */
export interface SharedEdgeStackProps extends StackProps {
  /** Requests one address may send to one tenant host in five minutes (default EDGE_RATE_LIMIT). */
  rateLimit?: number;
}

/**
 * What every tenant's edge shares, once per account, in us-east-1 where CloudFront reads a web ACL from:
 * the WAF web ACL whose ARN (output WebAclArn) tenant files name in `deployment.edge.web_acl_arn`.
 * Deployed with `npx cdk deploy -c shared=edge` (docs/edge.md).
 */
export class SharedEdgeStack extends Stack {
  constructor(scope: Construct, id: string, props: SharedEdgeStackProps = {}) {
    super(scope, id, props);
    if (!Token.isUnresolved(this.region) && this.region !== EDGE_REGION) {
      throw new Error(
        `The shared edge stack belongs in ${EDGE_REGION} (CloudFront's web ACLs), not ${this.region}`,
      );
    }
    const { rateLimit } = props;
    // WAF takes 10 requests at least; a typo in `-c edge_rate_limit` must not become the default silently.
    if (rateLimit !== undefined && !(Number.isInteger(rateLimit) && rateLimit >= 10)) {
      throw new Error(`The edge's rate limit must be a whole number of requests, 10 or more: ${rateLimit}`);
    }
    const { webAcl } = new EdgeWebAcl(this, 'Edge', rateLimit ? { rateLimit } : {});
    new CfnOutput(this, 'WebAclArn', {
      value: webAcl.attrArn,
      description: 'deployment.edge.web_acl_arn of every tenant file that turns the edge on',
    });
  }
}
