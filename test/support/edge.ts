import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { TenantStack } from '#infra/tenant-stack.ts';
import { parseTenant, type Tenant } from '#lib/config/tenant-schema.ts';
import { demoTenantJson } from './tenant.ts';

// The demo tenant with its own domain and the edge, as the edge tests (test/infra/edge*.test.ts) build it.

export const ACCOUNT = '123456789012';
export const DOMAIN = {
  name: 'book.loonlake.example.com',
  certificate_arn: `arn:aws:acm:ca-central-1:${ACCOUNT}:certificate/11111111-2222-3333-4444-555555555555`,
};
export const EDGE = {
  web_acl_arn: `arn:aws:wafv2:us-east-1:${ACCOUNT}:global/webacl/Booking-edge/aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee`,
  certificate_arn: `arn:aws:acm:us-east-1:${ACCOUNT}:certificate/66666666-7777-8888-9999-000000000000`,
};

/** The demo tenant file with `deployment` fields added, parsed as the CDK app parses it. */
export function tenantWith(deployment: Record<string, unknown>): Tenant {
  const raw = demoTenantJson();
  const result = parseTenant({ ...raw, deployment: { ...(raw.deployment as object), ...deployment } });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.tenant;
}

/** A prod stack of the tenant (no bundling), in `region` when given (else a region unknown at synth). */
export function edgeStack(tenant: Tenant, region?: string): { stack: TenantStack; template: Template } {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new TenantStack(app, 'Test-prod', {
    tenant,
    stage: 'prod',
    ...(region ? { env: { account: ACCOUNT, region } } : {}),
  });
  return { stack, template: Template.fromStack(stack) };
}
