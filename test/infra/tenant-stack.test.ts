import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { readTenantFile } from '#infra/local/settings.ts';
import { TenantStack } from '#infra/tenant-stack.ts';
import { fullPath, ROUTES } from '#lib/http/routes.ts';

const synth = (stage: string): Template => {
  // Skips esbuild bundling: these tests look at the template; `npx cdk synth` in CI bundles for real.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new TenantStack(app, `Test-${stage}`, {
    tenant: readTenantFile('infra/tenants/demo.json'),
    stage,
  });
  return Template.fromStack(stack);
};

let template: Template;
beforeAll(() => {
  template = synth('prod');
});

const resources = (type: string) => template.findResources(type);
const logicalIdOf = (type: string, pattern: RegExp) => {
  const id = Object.keys(resources(type)).find((name) => pattern.test(name));
  if (!id) throw new Error(`no ${type} like ${pattern}`);
  return id;
};

describe('TenantStack', () => {
  it('has one table with pk/sk, the shared GSIs, TTL, point-in-time recovery, retained', () => {
    template.resourceCountIs('AWS::DynamoDB::GlobalTable', 1);
    template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
        GlobalSecondaryIndexes: ['gsi1', 'gsi2', 'gsi3'].map((name) => Match.objectLike({ IndexName: name })),
        Replicas: [
          Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } }),
        ],
      }),
    });
  });

  it('destroys the table of a dev stage', () => {
    synth('dev').hasResource('AWS::DynamoDB::GlobalTable', { DeletionPolicy: 'Delete' });
  });

  it('runs one arm64 nodejs22.x function per endpoint group plus the sweeper, with log retention', () => {
    const functions = Object.values(resources('AWS::Lambda::Function')).filter(
      (fn) => (fn as { Properties: { Runtime?: string } }).Properties.Runtime === 'nodejs22.x',
    );
    expect(functions).toHaveLength(5);
    for (const fn of functions) {
      expect(fn).toMatchObject({ Properties: { Architectures: ['arm64'], Handler: 'index.handler' } });
    }
    template.resourceCountIs('AWS::Logs::LogGroup', 5);
    template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 90 });
  });

  it('routes every row of the route table to its group, and everything else to meta', () => {
    const routes = Object.values(resources('AWS::ApiGatewayV2::Route')).map(
      (route) => (route as { Properties: { RouteKey: string; Target: unknown } }).Properties,
    );
    const keys = routes.map((route) => route.RouteKey).sort();
    expect(keys).toEqual([...ROUTES.map((route) => `${route.method} ${fullPath(route)}`), '$default'].sort());

    const integrationOf = (routeKey: string) =>
      JSON.stringify(routes.find((route) => route.RouteKey === routeKey)?.Target);
    const integrations = resources('AWS::ApiGatewayV2::Integration');
    const functionOfIntegration = (target: string) => {
      const id = Object.keys(integrations).find((name) => target.includes(name));
      return JSON.stringify(
        (integrations[id ?? ''] as { Properties: { IntegrationUri: unknown } }).Properties.IntegrationUri,
      );
    };
    for (const route of ROUTES) {
      const fn = functionOfIntegration(integrationOf(`${route.method} ${fullPath(route)}`));
      const group = route.group[0]?.toUpperCase() + route.group.slice(1);
      expect(fn, `${route.method} ${route.path}`).toContain(`Functions${group}`);
    }
    expect(functionOfIntegration(integrationOf('$default'))).toContain('FunctionsMeta');
  });

  it('configures CORS from the tenant file, with credentials and never *', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      ProtocolType: 'HTTP',
      CorsConfiguration: Match.objectLike({
        AllowCredentials: true,
        AllowOrigins: ['https://loonlake.example.com', 'https://www.loonlake.example.com'],
      }),
    });
  });

  it('throttles the stage as the tenant file says', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: Match.objectLike({ ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 }),
    });
  });

  it('gives the sweeper a minute per run', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Timeout: 60,
      Environment: { Variables: Match.objectLike({ SWEEP_BUDGET_MS: '40000' }) },
    });
  });

  it('runs the sweeper every minute', () => {
    const sweeper = logicalIdOf('AWS::Lambda::Function', /^FunctionsSweeper/);
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [sweeper, 'Arn'] } })],
    });
  });

  it('generates the SLIP signing key as a secret, never in the template in plain text', () => {
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: Match.objectLike({ PasswordLength: 64 }),
    });
    const secret = logicalIdOf('AWS::SecretsManager::Secret', /SlipSigningKey/);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ SLIP_SECRET_ARN: { Ref: secret } }) },
    });
  });

  it('grants the read-only groups no general write, and the meta group no SLIP secret', () => {
    const policies = resources('AWS::IAM::Policy');
    const actionsOf = (pattern: RegExp) => {
      const id = Object.keys(policies).find((name) => pattern.test(name));
      const statements = (
        policies[id ?? ''] as {
          Properties: { PolicyDocument: { Statement: { Action: string | string[]; Condition?: unknown }[] } };
        }
      ).Properties.PolicyDocument.Statement;
      return statements;
    };
    for (const group of [
      /^FunctionsItemsServiceRoleDefaultPolicy/,
      /^FunctionsMetaServiceRoleDefaultPolicy/,
    ]) {
      const statements = actionsOf(group);
      const unconditionalWrites = statements
        .filter((statement) => !statement.Condition)
        .flatMap((statement) => [statement.Action].flat())
        .filter((action) => /PutItem|UpdateItem|DeleteItem|BatchWriteItem/.test(action));
      expect(unconditionalWrites).toEqual([]);
      const conditioned = statements.find((statement) => statement.Condition);
      expect(conditioned).toMatchObject({
        Action: 'dynamodb:UpdateItem',
        Condition: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['ACCOUNT', 'CREDENTIAL#*', 'RATE#*'] },
        },
      });
    }
    const metaActions = actionsOf(/^FunctionsMetaServiceRoleDefaultPolicy/).flatMap((statement) =>
      [statement.Action].flat(),
    );
    expect(metaActions.some((action) => action.startsWith('secretsmanager:'))).toBe(false);
    const sessionActions = actionsOf(/^FunctionsSessionServiceRoleDefaultPolicy/).flatMap((statement) =>
      [statement.Action].flat(),
    );
    expect(sessionActions).toEqual(
      expect.arrayContaining(['dynamodb:UpdateItem', 'secretsmanager:GetSecretValue']),
    );
  });
});
