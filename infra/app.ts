import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { addStackChecks } from './checks.ts';
import { addTenantStack } from './tenant-app.ts';
import { TENANTS_DIR } from './tenant-names.ts';

const app = new App();
addStackChecks(app);
const tenantName = String(app.node.tryGetContext('tenant') ?? 'demo');
const stage = String(app.node.tryGetContext('stage') ?? 'prod');
// `npm run fleet -- deploy --tenants-dir <dir>` passes its folder on; `infra/tenants` otherwise.
const tenantsDir = String(app.node.tryGetContext('tenants-dir') ?? TENANTS_DIR);

addTenantStack(app, { file: join(tenantsDir, `${tenantName}.json`), stage });
