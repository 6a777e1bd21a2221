import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { readTenantFile } from '#infra/local/settings.ts';
import { TenantStack } from '#infra/tenant-stack.ts';
import type { Alerts } from '#lib/config/alerts-schema.ts';
import type { Tenant } from '#lib/config/tenant-schema.ts';
import { demoTenantJsonWithoutPayment, makeTenant } from './tenant.ts';

/** What a synth of the demo tenant's stack gives a test. */
export interface SynthedStack {
  app: App;
  stack: TenantStack;
  template: Template;
}

/** The demo tenant, with its `settings.alerts` replaced when `alerts` is given. */
export const demoTenant = (alerts?: Alerts): Tenant => {
  const tenant = readTenantFile('infra/tenants/demo.json');
  return alerts ? { ...tenant, settings: { ...tenant.settings, alerts } } : tenant;
};

/** The demo tenant taking no payment: no payment secret, and no payment keys for any function to read. */
export const demoTenantWithoutPayment = (): Tenant => makeTenant(demoTenantJsonWithoutPayment());

/**
 * Builds the demo tenant's stack for a stage without bundling (these tests look at the template; `npx cdk
 * synth` in CI bundles for real). `template` synthesizes on first use, so a test may add to the stack first.
 */
export const buildStack = (stage: string, tenant: Tenant = demoTenant()): SynthedStack => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new TenantStack(app, `Test-${stage}`, { tenant, stage });
  let template: Template | undefined;
  return {
    app,
    stack,
    get template() {
      template ??= Template.fromStack(stack);
      return template;
    },
  };
};
