import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';

/** The shared web ACL's per-client rate rule: requests per window from one address to one tenant host. */
export const EDGE_RATE_LIMIT = { requests: 1000, windowSeconds: 300 } as const;

/**
 * The AWS managed rule groups of the shared web ACL (no extra subscription fee), in evaluation order, each
 * with the rules that only count: the service bounds bodies and query strings itself (64 KiB, lists of
 * 100 values of 4,096 characters, lib/http/parse.ts), past the rule set's 8 KB and 2 KB, and API clients
 * on servers need not send a User-Agent.
 */
export const EDGE_MANAGED_RULE_GROUPS = [
  { name: 'AWSManagedRulesAmazonIpReputationList', countOnly: [] },
  {
    name: 'AWSManagedRulesCommonRuleSet',
    countOnly: ['SizeRestrictions_BODY', 'SizeRestrictions_QUERYSTRING', 'NoUserAgent_HEADER'],
  },
  { name: 'AWSManagedRulesKnownBadInputsRuleSet', countOnly: [] },
] as const;

/** Props of the shared web ACL. */
export interface EdgeWebAclProps {
  /** Requests one address may send to one tenant host per window before it is blocked for a while. */
  rateLimit?: number;
  /** Metric names start with it (CloudWatch, namespace AWS/WAFV2). */
  metricPrefix?: string;
}

const visibility = (name: string) => ({
  cloudWatchMetricsEnabled: true,
  sampledRequestsEnabled: true,
  metricName: name,
});

/**
 * The account's one CLOUDFRONT-scope web ACL, which every tenant's edge distribution names (its tenant
 * file's `deployment.edge.web_acl_arn`): a rate rule that counts each client address apart for each tenant
 * host (WAF custom aggregation keys: IP and the Host header), then AWS managed rule groups. One shared
 * web ACL, not one per tenant: 100 web ACLs per account and region by default, and $5 a month each.
 */
export class EdgeWebAcl extends Construct {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: EdgeWebAclProps = {}) {
    super(scope, id);
    const prefix = props.metricPrefix ?? 'BookingEdge';
    const rateRule: CfnWebACL.RuleProperty = {
      name: 'PerClientPerTenant',
      priority: 0,
      action: { block: {} },
      statement: {
        rateBasedStatement: {
          limit: props.rateLimit ?? EDGE_RATE_LIMIT.requests,
          evaluationWindowSec: EDGE_RATE_LIMIT.windowSeconds,
          aggregateKeyType: 'CUSTOM_KEYS',
          customKeys: [
            { ip: {} },
            // HTTP/2's :authority reaches WAF as the Host header; one host is one tenant.
            { header: { name: 'host', textTransformations: [{ priority: 0, type: 'LOWERCASE' }] } },
          ],
        },
      },
      visibilityConfig: visibility(`${prefix}PerClientPerTenant`),
    };
    const managed = EDGE_MANAGED_RULE_GROUPS.map(
      (group, index): CfnWebACL.RuleProperty => ({
        name: group.name,
        priority: index + 1,
        overrideAction: { none: {} },
        statement: {
          managedRuleGroupStatement: {
            vendorName: 'AWS',
            name: group.name,
            ...(group.countOnly.length
              ? { ruleActionOverrides: group.countOnly.map((name) => ({ name, actionToUse: { count: {} } })) }
              : {}),
          },
        },
        visibilityConfig: visibility(`${prefix}${group.name}`),
      }),
    );
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      description: 'Booking API edge - every tenant distribution',
      rules: [rateRule, ...managed],
      visibilityConfig: visibility(prefix),
    });
  }
}
