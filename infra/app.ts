import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { EDGE_REGION } from '#lib/config/deployment-schema.ts';
import { addStackChecks } from './checks.ts';
import { SharedEdgeStack } from './edge-stack.ts';
import { readTenantFile } from './local/settings.ts';
import { TenantStack } from './tenant-stack.ts';

const app = new App();
addStackChecks(app);
const account = process.env.CDK_DEFAULT_ACCOUNT;

if (app.node.tryGetContext('shared') === 'edge') {
  // Once per account: the web ACL every tenant's edge names (docs/edge.md).
  const limit = app.node.tryGetContext('edge_rate_limit');
  const rateLimit = limit === undefined ? undefined : Number(limit);
  new SharedEdgeStack(app, 'Booking-edge', { env: { account, region: EDGE_REGION }, rateLimit });
} else {
  const tenantName = String(app.node.tryGetContext('tenant') ?? 'demo');
  const stage = String(app.node.tryGetContext('stage') ?? 'prod');
  const tenant = readTenantFile(join('infra', 'tenants', `${tenantName}.json`));
  new TenantStack(app, `Booking-${tenant.tenant}-${stage}`, {
    tenant,
    stage,
    env: { account, region: process.env.CDK_DEFAULT_REGION },
  });
}
