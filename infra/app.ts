import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { addStackChecks } from './checks.ts';
import { readTenantFile } from './local/settings.ts';
import { TenantStack } from './tenant-stack.ts';

const app = new App();
addStackChecks(app);
const tenantName = String(app.node.tryGetContext('tenant') ?? 'demo');
const stage = String(app.node.tryGetContext('stage') ?? 'prod');
const tenant = readTenantFile(join('infra', 'tenants', `${tenantName}.json`));

new TenantStack(app, `Booking-${tenant.tenant}-${stage}`, {
  tenant,
  stage,
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
