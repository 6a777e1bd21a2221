import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { EDGE_MANAGED_RULE_GROUPS, EDGE_RATE_LIMIT } from '#infra/constructs/edge-acl.ts';
import { SharedEdgeStack } from '#infra/edge-stack.ts';
import { ACCOUNT } from '#test/support/edge.ts';

// The account's shared edge stack: the CLOUDFRONT-scope web ACL every tenant's edge names.

const build = (props: { region?: string; rateLimit?: number } = {}) => {
  const app = new App();
  const stack = new SharedEdgeStack(app, 'Booking-edge', {
    env: { account: ACCOUNT, region: props.region ?? 'us-east-1' },
    ...(props.rateLimit !== undefined ? { rateLimit: props.rateLimit } : {}),
  });
  return { stack, template: Template.fromStack(stack) };
};

type Rule = Record<string, any>;
let rules: Rule[];
let template: Template;
beforeAll(() => {
  template = build().template;
  const [acl] = Object.values(template.findResources('AWS::WAFv2::WebACL')) as { Properties: Rule }[];
  rules = acl?.Properties.Rules ?? [];
});

describe('the shared edge stack', () => {
  it('has one CLOUDFRONT-scope web ACL that lets through what no rule blocks, with metrics', () => {
    template.resourceCountIs('AWS::WAFv2::WebACL', 1);
    template.hasResourceProperties('AWS::WAFv2::WebACL', {
      Scope: 'CLOUDFRONT',
      DefaultAction: { Allow: {} },
      VisibilityConfig: {
        CloudWatchMetricsEnabled: true,
        SampledRequestsEnabled: true,
        MetricName: 'BookingEdge',
      },
    });
    // CloudFormation's pattern for a web ACL's description (no apostrophe, for one).
    const [acl] = Object.values(template.findResources('AWS::WAFv2::WebACL')) as { Properties: Rule }[];
    expect(acl?.Properties.Description).toMatch(
      /^[a-zA-Z0-9=:#@/\-,.][a-zA-Z0-9+=:#@/\-,.\s]+[a-zA-Z0-9+=:#@/\-,.]{1,256}$/,
    );
  });

  it('blocks an address that sends too much to one tenant host: IP and Host as custom aggregation keys', () => {
    const [first] = rules;
    expect(first).toMatchObject({
      Name: 'PerClientPerTenant',
      Priority: 0,
      Action: { Block: {} },
      Statement: {
        RateBasedStatement: {
          Limit: EDGE_RATE_LIMIT.requests,
          EvaluationWindowSec: 300,
          AggregateKeyType: 'CUSTOM_KEYS',
          CustomKeys: [
            { IP: {} },
            { Header: { Name: 'host', TextTransformations: [{ Priority: 0, Type: 'LOWERCASE' }] } },
          ],
        },
      },
    });
    const custom = build({ rateLimit: 300 }).template;
    const [acl] = Object.values(custom.findResources('AWS::WAFv2::WebACL')) as { Properties: Rule }[];
    expect(acl?.Properties.Rules[0].Statement.RateBasedStatement.Limit).toBe(300);
  });

  it("then applies AWS's managed rule groups, counting only what the service bounds itself", () => {
    const managed = rules.slice(1);
    expect(managed.map((rule) => rule.Statement.ManagedRuleGroupStatement.Name)).toEqual(
      EDGE_MANAGED_RULE_GROUPS.map((group) => group.name),
    );
    for (const rule of managed) {
      expect(rule.OverrideAction, rule.Name).toEqual({ None: {} });
      expect(rule.Statement.ManagedRuleGroupStatement.VendorName).toBe('AWS');
    }
    const common = managed.find((rule) => rule.Name === 'AWSManagedRulesCommonRuleSet');
    expect(common?.Statement.ManagedRuleGroupStatement.RuleActionOverrides).toEqual(
      ['SizeRestrictions_BODY', 'SizeRestrictions_QUERYSTRING', 'NoUserAgent_HEADER'].map((Name) => ({
        Name,
        ActionToUse: { Count: {} },
      })),
    );
    expect(rules.map((rule) => rule.Priority)).toEqual([0, 1, 2, 3]);
  });

  it("outputs the web ACL's ARN for the tenant files", () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    const [aclId] = Object.keys(template.findResources('AWS::WAFv2::WebACL'));
    expect(outputs.WebAclArn?.Value).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
  });

  it('refuses a rate limit WAF would refuse, or that is no number', () => {
    for (const rateLimit of [9, 100.5, Number.NaN]) {
      expect(() => build({ rateLimit }), String(rateLimit)).toThrow(/10 or more/);
    }
  });

  it('belongs in us-east-1, where CloudFront reads web ACLs from', () => {
    expect(() => build({ region: 'eu-west-1' })).toThrow(/belongs in us-east-1/);
  });

  it('is nag-clean', () => {
    const report = new AwsSolutionsChecks().validateScope(build().stack);
    expect(report.violations.map((violation) => `${violation.severity} ${violation.ruleName}`)).toEqual([]);
  });
});
