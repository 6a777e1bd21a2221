import { basename } from 'node:path';
import type { App, Environment } from 'aws-cdk-lib';
import { readTenantFile } from './local/settings.ts';
import { TENANT_FILE_METADATA, tenantStackName } from './tenant-names.ts';
import { TenantStack } from './tenant-stack.ts';

/** What one tenant's stack is built from. */
export interface TenantStackOptions {
  /** The tenant file (`infra/tenants/<name>.json`); read and validated here. */
  file: string;
  /** `dev` stacks destroy their data with the stack; every other stage keeps it. */
  stage: string;
  /** Default: CDK_DEFAULT_ACCOUNT and CDK_DEFAULT_REGION, which `cdk deploy` sets from the credentials. */
  env?: Environment;
}

/**
 * Adds the stack of one tenant file to an app: `infra/app.ts` (`npx cdk synth|deploy -c tenant= -c stage=`)
 * and `npm run fleet` both build a tenant this way, so the fleet diffs what the CDK deploys.
 */
export function addTenantStack(app: App, options: TenantStackOptions): TenantStack {
  const tenant = readTenantFile(options.file);
  const stack = new TenantStack(app, tenantStackName(tenant.tenant, options.stage), {
    tenant,
    stage: options.stage,
    env: options.env ?? { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  });
  // The template says which file it came from, so `npm run fleet -- diff` tells a tenant whose id changed
  // (a new stack, the old one left running) from a new tenant, even against the deployed templates.
  stack.templateOptions.metadata = {
    ...stack.templateOptions.metadata,
    [TENANT_FILE_METADATA]: basename(options.file, '.json'),
  };
  return stack;
}
