import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { logicalIdOf, resources, synthProdBeforeAll, template } from '#test/support/tenant-stack-world.ts';

// The tenant stack's webhook dispatcher: its stream, queue, schedule, secret and grants. The rest of the
// stack: tenant-stack.test.ts.

synthProdBeforeAll();

describe('TenantStack', () => {
  describe('webhook dispatcher', () => {
    type Statement = { Action: string | string[]; Resource: unknown; Condition?: unknown };
    const statementsOf = (policyId: string): Statement[] =>
      (
        resources('AWS::IAM::Policy')[policyId] as {
          Properties: { PolicyDocument: { Statement: Statement[] } };
        }
      ).Properties.PolicyDocument.Statement;
    const dispatcherPolicy = () =>
      logicalIdOf('AWS::IAM::Policy', /^FunctionsWebhooksServiceRoleDefaultPolicy/);
    const actionsOf = (statements: Statement[]) =>
      statements.flatMap((statement) => [statement.Action].flat());

    it('streams the new image of every table write', () => {
      template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
        StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
      });
    });

    it('runs the dispatcher handler for a minute, with the webhook secrets ARN', () => {
      const dispatcher = logicalIdOf('AWS::Lambda::Function', /^FunctionsWebhooks/);
      const secret = logicalIdOf('AWS::SecretsManager::Secret', /^WebhookSigningSecrets/);
      expect(resources('AWS::Lambda::Function')[dispatcher]).toMatchObject({
        Properties: {
          Handler: 'index.handler',
          Runtime: 'nodejs22.x',
          Architectures: ['arm64'],
          Timeout: 60,
          Environment: { Variables: { WEBHOOK_SECRETS_ARN: { Ref: secret } } },
        },
      });
    });

    it('starts the webhook secrets as an empty JSON document and outputs their ARN', () => {
      const secret = logicalIdOf('AWS::SecretsManager::Secret', /^WebhookSigningSecrets/);
      expect(resources('AWS::SecretsManager::Secret')[secret]).toMatchObject({
        DeletionPolicy: 'Retain',
        Properties: { SecretString: '{}' },
      });
      template.hasOutput('WebhookSecretsArn', { Value: { Ref: secret } });
    });

    it('invokes the dispatcher from the stream for due deliveries only, retrying then dead-lettering', () => {
      const dispatcher = logicalIdOf('AWS::Lambda::Function', /^FunctionsWebhooks/);
      const table = logicalIdOf('AWS::DynamoDB::GlobalTable', /^DataTable/);
      const queue = logicalIdOf('AWS::SQS::Queue', /^WebhooksDeadLetters/);
      template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        FunctionName: { Ref: dispatcher },
        EventSourceArn: { 'Fn::GetAtt': [table, 'StreamArn'] },
        StartingPosition: 'LATEST',
        BatchSize: 100,
        MaximumBatchingWindowInSeconds: 1,
        MaximumRetryAttempts: 3,
        BisectBatchOnFunctionError: true,
        DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queue, 'Arn'] } } },
      });
      const mapping = Object.values(resources('AWS::Lambda::EventSourceMapping'))[0] as {
        Properties: { FilterCriteria: { Filters: { Pattern: string }[] } };
      };
      const patterns = mapping.Properties.FilterCriteria.Filters.map((filter) => JSON.parse(filter.Pattern));
      expect(patterns).toEqual([
        {
          eventName: ['INSERT', 'MODIFY'],
          dynamodb: {
            NewImage: { entity: { S: ['webhook_delivery'] }, gsi2pk: { S: ['WEBHOOK_DUE'] } },
          },
        },
      ]);
    });

    it('dead-letters to an encrypted, TLS-only queue that keeps messages 14 days', () => {
      const queue = logicalIdOf('AWS::SQS::Queue', /^WebhooksDeadLetters/);
      template.hasResourceProperties('AWS::SQS::Queue', {
        MessageRetentionPeriod: 14 * 24 * 3600,
        SqsManagedSseEnabled: true,
      });
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: queue }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 'sqs:*',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    });

    it('grants the dispatcher its access patterns, the stream, the DLQ and its own secret only', () => {
      const table = logicalIdOf('AWS::DynamoDB::GlobalTable', /^DataTable/);
      const queue = logicalIdOf('AWS::SQS::Queue', /^WebhooksDeadLetters/);
      const webhookSecret = logicalIdOf('AWS::SecretsManager::Secret', /^WebhookSigningSecrets/);
      const slipSecret = logicalIdOf('AWS::SecretsManager::Secret', /^SlipSigningKey/);
      const statements = statementsOf(dispatcherPolicy());
      const tableArn = { 'Fn::GetAtt': [table, 'Arn'] };
      const indexArn = (name: string) => ({ 'Fn::Join': ['', [tableArn, `/index/${name}`]] });
      expect(statements).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            Action: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
            Resource: tableArn,
          }),
          expect.objectContaining({
            Action: 'dynamodb:Query',
            Resource: [indexArn('gsi1'), indexArn('gsi2')],
          }),
          expect.objectContaining({
            Action: expect.arrayContaining(['dynamodb:GetRecords', 'dynamodb:GetShardIterator']),
            Resource: { 'Fn::GetAtt': [table, 'StreamArn'] },
          }),
          expect.objectContaining({
            Action: expect.arrayContaining(['sqs:SendMessage']),
            Resource: { 'Fn::GetAtt': [queue, 'Arn'] },
          }),
          expect.objectContaining({
            Action: expect.arrayContaining(['secretsmanager:GetSecretValue']),
            Resource: { Ref: webhookSecret },
          }),
        ]),
      );
      const actions = actionsOf(statements);
      for (const forbidden of [
        'dynamodb:Scan',
        'dynamodb:DeleteItem',
        'dynamodb:BatchWriteItem',
        'dynamodb:*',
      ]) {
        expect(actions).not.toContain(forbidden);
      }
      // Query only on the two indexes, never the base table or every index.
      const queryResources = statements
        .filter((statement) => [statement.Action].flat().includes('dynamodb:Query'))
        .flatMap((statement) => [statement.Resource].flat());
      expect(queryResources).toEqual([indexArn('gsi1'), indexArn('gsi2')]);
      expect(JSON.stringify(statements)).not.toContain(slipSecret);
      const secretResources = statements
        .filter((statement) => actionsOf([statement]).some((action) => action.startsWith('secretsmanager:')))
        .map((statement) => statement.Resource);
      expect(secretResources).toEqual([{ Ref: webhookSecret }]);
    });

    it('gives no other function the webhook secrets', () => {
      const webhookSecret = logicalIdOf('AWS::SecretsManager::Secret', /^WebhookSigningSecrets/);
      const others = Object.keys(resources('AWS::IAM::Policy')).filter((id) => id !== dispatcherPolicy());
      expect(others.length).toBeGreaterThanOrEqual(5);
      for (const id of others) {
        expect(JSON.stringify(statementsOf(id)), id).not.toContain(webhookSecret);
      }
      const withSecretEnv = Object.entries(resources('AWS::Lambda::Function'))
        .filter(([, fn]) => JSON.stringify(fn).includes(webhookSecret))
        .map(([id]) => id);
      expect(withSecretEnv).toEqual([logicalIdOf('AWS::Lambda::Function', /^FunctionsWebhooks/)]);
    });
  });
});
