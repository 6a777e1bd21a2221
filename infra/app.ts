import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { EDGE_REGION } from '#lib/config/index.ts';
import { addStackChecks } from './checks.ts';
import { SharedEdgeStack } from './edge-stack.ts';
import { addTenantStack } from './tenant-app.ts';
import { TENANTS_DIR } from './tenant-names.ts';

const app = new App();
addStackChecks(app);

if (app.node.tryGetContext('shared') === 'edge') {
  // Once per account: the web ACL every tenant's edge names (docs/edge.md).
  const limit = app.node.tryGetContext('edge_rate_limit');
  const rateLimit = limit === undefined ? undefined : Number(limit);
  new SharedEdgeStack(app, 'Booking-edge', {
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: EDGE_REGION },
    rateLimit,
  });
} else {
  const tenantName = String(app.node.tryGetContext('tenant') ?? 'demo');
  const stage = String(app.node.tryGetContext('stage') ?? 'prod');
  // `npm run fleet -- deploy --tenants-dir <dir>` passes its folder on; `infra/tenants` otherwise.
  const tenantsDir = String(app.node.tryGetContext('tenants-dir') ?? TENANTS_DIR);
  addTenantStack(app, { file: join(tenantsDir, `${tenantName}.json`), stage });
}
