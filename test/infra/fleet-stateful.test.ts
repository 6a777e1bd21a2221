import { beforeAll, describe, expect, it } from 'vitest';
import {
  ALLOW_ALL_POLICY,
  type CfnResource,
  type CfnTemplate,
  stackPolicyFor,
  statefulLogicalIds,
  statefulReason,
  weakening,
} from '#infra/fleet/stateful.ts';
import { ASSET_PLACEHOLDER, diffStack, withoutAssetKeys } from '#infra/fleet/template-diff.ts';
import { buildStack } from '#test/support/cdk.ts';

/** A DynamoDB table as CDK writes a retained one, with its key schema. */
const makeTable = (sortKey = 'sk', overrides: Partial<CfnResource> = {}): CfnResource => ({
  Type: 'AWS::DynamoDB::Table',
  Properties: {
    KeySchema: [
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: sortKey, KeyType: 'RANGE' },
    ],
    AttributeDefinitions: [
      { AttributeName: 'pk', AttributeType: 'S' },
      { AttributeName: sortKey, AttributeType: 'S' },
    ],
    BillingMode: 'PAY_PER_REQUEST',
  },
  DeletionPolicy: 'Retain',
  UpdateReplacePolicy: 'Retain',
  ...overrides,
});
const makeFunction = (s3Key = 'abc.zip', memory = 512): CfnResource => ({
  Type: 'AWS::Lambda::Function',
  Properties: { Code: { S3Bucket: 'assets', S3Key: s3Key }, MemorySize: memory },
  Metadata: {
    'aws:cdk:path': 'Stack/Fn/Resource',
    'aws:asset:path': '/some/tree',
    'aws:asset:property': 'Code',
  },
});
const makeTemplate = (resources: Record<string, CfnResource>): CfnTemplate => ({ Resources: resources });

describe('what is stateful', () => {
  it('is a table, queue or backup vault by its type, whatever its deletion policy', () => {
    for (const type of [
      'AWS::DynamoDB::Table',
      'AWS::DynamoDB::GlobalTable',
      'AWS::SQS::Queue',
      'AWS::Backup::BackupVault',
    ]) {
      expect(statefulReason({ Type: type, DeletionPolicy: 'Delete' }), type).toBeDefined();
    }
  });

  it('is a secret when it is kept (the SLIP key, the webhook secrets), not the edge token that goes with the stack', () => {
    expect(statefulReason({ Type: 'AWS::SecretsManager::Secret', DeletionPolicy: 'Retain' })).toMatch(
      /secret/,
    );
    expect(statefulReason({ Type: 'AWS::SecretsManager::Secret', DeletionPolicy: 'Delete' })).toBeUndefined();
  });

  it('is anything else the template keeps (a retained log group), and nothing else', () => {
    expect(statefulReason({ Type: 'AWS::Logs::LogGroup', DeletionPolicy: 'Retain' })).toMatch(/Retain/);
    expect(statefulReason({ Type: 'AWS::Logs::LogGroup', UpdateReplacePolicy: 'Snapshot' })).toMatch(
      /Snapshot/,
    );
    expect(statefulReason({ Type: 'AWS::Logs::LogGroup', DeletionPolicy: 'Delete' })).toBeUndefined();
    expect(statefulReason({ Type: 'AWS::Lambda::Function' })).toBeUndefined();
    expect(statefulReason({ Type: 'AWS::IAM::Role' })).toBeUndefined();
  });
});

describe('the stack policy', () => {
  it('allows every update but replacing or deleting a stateful resource, by logical id', () => {
    const template = makeTemplate({
      Table: makeTable(),
      Fn: makeFunction(),
      Logs: { Type: 'AWS::Logs::LogGroup', DeletionPolicy: 'Retain' },
      DevLogs: { Type: 'AWS::Logs::LogGroup', DeletionPolicy: 'Delete' },
    });
    expect(stackPolicyFor(template)).toEqual({
      Statement: [
        { Effect: 'Allow', Action: 'Update:*', Principal: '*', Resource: '*' },
        {
          Effect: 'Deny',
          Action: ['Update:Replace', 'Update:Delete'],
          Principal: '*',
          Resource: ['LogicalResourceId/Logs', 'LogicalResourceId/Table'],
        },
      ],
    });
  });

  it('is allow-all for a template with nothing stateful, and refuses to outgrow 16 KB', () => {
    expect(stackPolicyFor(makeTemplate({ Fn: makeFunction() }))).toEqual(ALLOW_ALL_POLICY);
    const many = Object.fromEntries(
      Array.from({ length: 400 }, (_, index) => [`Table${'x'.repeat(30)}${index}`, makeTable()]),
    );
    expect(() => stackPolicyFor(makeTemplate(many))).toThrow(/over CloudFormation's 16384/);
  });

  describe("of a tenant's stack", () => {
    let template: CfnTemplate;
    beforeAll(() => {
      template = buildStack('prod').template.toJSON() as CfnTemplate;
    });

    it('protects the table, its secrets, the retained log groups and the dead-letter queue, no function or role', () => {
      const ids = statefulLogicalIds(template);
      const typeOf = (id: string) => template.Resources?.[id]?.Type;
      const types = new Set(ids.map(typeOf));
      // Whatever else the stack gains (a backup vault, say), these stay protected.
      expect([...types]).toEqual(
        expect.arrayContaining([
          'AWS::DynamoDB::GlobalTable',
          'AWS::Logs::LogGroup',
          'AWS::SQS::Queue',
          'AWS::SecretsManager::Secret',
        ]),
      );
      for (const type of [
        'AWS::Lambda::Function',
        'AWS::IAM::Role',
        'AWS::ApiGatewayV2::Api',
        'AWS::SNS::Topic',
      ]) {
        expect(types.has(type), type).toBe(false);
      }
      // The SLIP key, the webhook secrets and, as the demo takes a deposit, the payment provider's keys.
      expect(ids.filter((id) => typeOf(id) === 'AWS::SecretsManager::Secret')).toHaveLength(3);
      const denied = stackPolicyFor(template).Statement[1]?.Resource;
      expect(denied).toEqual(ids.map((id) => `LogicalResourceId/${id}`));
    });
  });
});

describe('a template diff', () => {
  const base = makeTemplate({ Table: makeTable(), Fn: makeFunction() });

  it('finds nothing between a template and itself', () => {
    expect(diffStack(base, structuredClone(base))).toMatchObject({ changes: [], dangerous: [] });
  });

  it('is an update, not a danger, for a table property changed in place', () => {
    const next = makeTemplate({ Table: makeTable(), Fn: makeFunction('abc.zip', 1024) });
    (next.Resources?.Table?.Properties as Record<string, unknown>).TimeToLiveSpecification = {
      AttributeName: 'ttl',
      Enabled: true,
    };
    const { counts, dangerous } = diffStack(base, next);
    expect(counts).toEqual({ added: 0, changed: 2, replaced: 0, removed: 0 });
    expect(dangerous).toEqual([]);
  });

  it('is a replacement of the table, and a danger, when its key schema changes', () => {
    const next = makeTemplate({ Table: makeTable('sk2'), Fn: makeFunction() });
    const { counts, dangerous } = diffStack(base, next);
    expect(counts.replaced).toBe(1);
    expect(dangerous).toEqual([
      expect.objectContaining({ logicalId: 'Table', impact: 'WILL_REPLACE', kind: 'replaced' }),
    ]);
  });

  it('sees a renamed table as a removal and an addition, and names the addition', () => {
    const next = makeTemplate({ StoreTable: makeTable(), Fn: makeFunction() });
    const { counts, dangerous } = diffStack(base, next);
    expect(counts).toEqual({ added: 1, changed: 0, replaced: 0, removed: 1 });
    expect(dangerous).toEqual([
      expect.objectContaining({
        logicalId: 'Table',
        impact: 'WILL_ORPHAN',
        kind: 'removed',
        addedInstead: ['StoreTable'],
      }),
    ]);
  });

  it('is a destruction of a queue the template does not keep', () => {
    const withQueue = makeTemplate({
      ...base.Resources,
      Dead: { Type: 'AWS::SQS::Queue', DeletionPolicy: 'Delete' },
    });
    const { dangerous } = diffStack(withQueue, base);
    expect(dangerous).toEqual([expect.objectContaining({ logicalId: 'Dead', impact: 'WILL_DESTROY' })]);
  });

  it('counts everything as added without a baseline stack', () => {
    expect(diffStack(undefined, base)).toMatchObject({
      counts: { added: 2, changed: 0, replaced: 0, removed: 0 },
      dangerous: [],
    });
  });

  it("leaves assets' keys out: a tree's path in an unbundled key is no change", () => {
    const elsewhere = makeTemplate({ Table: makeTable(), Fn: makeFunction('def.zip') });
    expect(diffStack(base, elsewhere).changes).toEqual([]);
    const code = withoutAssetKeys(base).Resources?.Fn?.Properties?.Code as Record<string, unknown>;
    expect(code).toEqual({ S3Bucket: 'assets', S3Key: ASSET_PLACEHOLDER });
    expect(base.Resources?.Fn?.Properties?.Code).toEqual({ S3Bucket: 'assets', S3Key: 'abc.zip' });
  });
});

describe('an update in place that weakens a stateful resource', () => {
  const table = (replica: Record<string, unknown>, policy = 'Retain') => ({
    Type: 'AWS::DynamoDB::GlobalTable',
    DeletionPolicy: policy,
    UpdateReplacePolicy: policy,
    Properties: { BillingMode: 'PAY_PER_REQUEST', Replicas: [{ Region: 'x', ...replica }] },
  });
  const protectedReplica = {
    DeletionProtectionEnabled: true,
    PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
  };

  it('is the table no longer retained, or its deletion protection or recovery turned off', () => {
    expect(weakening(table(protectedReplica), table(protectedReplica, 'Delete'))).toMatch(/no longer kept/);
    expect(
      weakening(table(protectedReplica), table({ ...protectedReplica, DeletionProtectionEnabled: false })),
    ).toMatch(/DeletionProtectionEnabled/);
    expect(
      weakening(
        table(protectedReplica),
        table({
          ...protectedReplica,
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: false },
        }),
      ),
    ).toMatch(/PointInTimeRecoveryEnabled/);
  });

  it("is a kept secret's value written anew: a literal or the generator's settings changed", () => {
    const secret = (properties: Record<string, unknown>) => ({
      Type: 'AWS::SecretsManager::Secret',
      DeletionPolicy: 'Retain',
      Properties: { Description: 'd', ...properties },
    });
    expect(weakening(secret({ SecretString: '{}' }), secret({ SecretString: '{"a":1}' }))).toMatch(
      /written anew/,
    );
    expect(
      weakening(
        secret({ GenerateSecretString: { PasswordLength: 64 } }),
        secret({ GenerateSecretString: { PasswordLength: 63 } }),
      ),
    ).toMatch(/written anew/);
    expect(
      weakening(secret({ SecretString: '{}' }), {
        ...secret({ SecretString: '{}' }),
        Properties: { Description: 'e', SecretString: '{}' },
      }),
    ).toBeUndefined();
  });

  it('is nothing for an update that keeps every protection, or for a resource that holds nothing', () => {
    expect(
      weakening(table(protectedReplica), {
        ...table(protectedReplica),
        Properties: { BillingMode: 'PROVISIONED', Replicas: [{ Region: 'x', ...protectedReplica }] },
      }),
    ).toBeUndefined();
    const fn = { Type: 'AWS::Lambda::Function', Properties: { Timeout: 10 } };
    expect(weakening(fn, { ...fn, Properties: { Timeout: 0 } })).toBeUndefined();
  });
});
