import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { META_FILES } from '#functions/meta/docs.ts';
import { bookPageRoute, widgetFileRoute } from '#functions/meta/table.ts';
import { WIDGET_ASSETS_DIR, widgetSnippet } from '#functions/meta/widget.ts';
import { ROUTES } from '#functions/routes.ts';
import { FUNCTION_BUNDLING, metaAfterBundling } from '#infra/constructs/functions.ts';
import { fullPath, type Route, rowsOf } from '#lib/http/routes.ts';
import { buildStack, demoTenant, demoTenantWithoutPayment } from '#test/support/cdk.ts';
import {
  logicalIdOf,
  resources,
  synth,
  synthProdBeforeAll,
  template,
} from '#test/support/tenant-stack-world.ts';
import { WIDGET_FILE, WIDGET_FILES } from '#widget/files.ts';

synthProdBeforeAll();

describe('TenantStack', () => {
  it('has one table with pk/sk, the shared GSIs, TTL, point-in-time recovery, retained and protected', () => {
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
          Match.objectLike({
            PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
            DeletionProtectionEnabled: true,
          }),
        ],
      }),
    });
  });

  it('destroys the table of a dev stage, which has neither recovery nor deletion protection', () => {
    synth('dev').hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Delete',
      Properties: Match.objectLike({
        Replicas: [
          Match.objectLike({
            PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: false },
            DeletionProtectionEnabled: false,
          }),
        ],
      }),
    });
  });

  it('runs one arm64 nodejs22.x function per group, the sweeper, the dispatcher and channel sync, logs retained', () => {
    // items, session, bookings, admin, meta, payments; the sweeper, the dispatcher and channel sync (which serves
    // channels).
    const functions = Object.values(resources('AWS::Lambda::Function')).filter(
      (fn) => (fn as { Properties: { Runtime?: string } }).Properties.Runtime === 'nodejs22.x',
    );
    expect(functions).toHaveLength(9);
    for (const fn of functions) {
      expect(fn).toMatchObject({ Properties: { Architectures: ['arm64'], Handler: 'index.handler' } });
    }
    // One log group per function, and the API's access log.
    template.resourceCountIs('AWS::Logs::LogGroup', 10);
    template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 90 });
    synth('dev').allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 7 });
  });

  it('writes an access log of every request, without query strings or headers', () => {
    const logs = logicalIdOf('AWS::Logs::LogGroup', /^HttpAccessLogs/);
    const stage = Object.values(resources('AWS::ApiGatewayV2::Stage'))[0] as {
      Properties: { AccessLogSettings: { DestinationArn: unknown; Format: string } };
    };
    expect(stage.Properties.AccessLogSettings.DestinationArn).toEqual({ 'Fn::GetAtt': [logs, 'Arn'] });
    const format = JSON.parse(stage.Properties.AccessLogSettings.Format) as Record<string, string>;
    expect(format).toMatchObject({ requestId: '$context.requestId', status: '$context.status' });
    for (const variable of Object.values(format))
      expect(variable).not.toMatch(/querystring|header|authorizer/i);
  });

  it('routes every row of the route table to its group, and everything else to meta', () => {
    const routes = Object.values(resources('AWS::ApiGatewayV2::Route')).map(
      (route) => (route as { Properties: { RouteKey: string; Target: unknown } }).Properties,
    );
    const keys = routes.map((route) => route.RouteKey).sort();
    // The booking page and the widget's files are rows of the table too, served from the site's root.
    const bookRoute = 'GET /book';
    expect(keys).toEqual([...ROUTES.map((route) => `${route.method} ${fullPath(route)}`), '$default'].sort());
    expect(keys).toContain('GET /widget/{file}');

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
    expect(functionOfIntegration(integrationOf('GET /widget/{file}'))).toContain('FunctionsMeta');
    expect(functionOfIntegration(integrationOf(bookRoute))).toContain('FunctionsMeta');
  });

  describe('the widget', () => {
    it('is served at GET /widget/{file}, outside the API prefix', () => {
      expect(fullPath(rowsOf([widgetFileRoute])[0] as Route)).toBe('/widget/{file}');
      template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: 'GET /widget/{file}' });
    });

    it('outputs the snippet to paste, on the API endpoint (no trailing slash, so none doubled)', () => {
      const outputs = template.findOutputs('WidgetSnippet');
      const value = outputs.WidgetSnippet?.Value as { 'Fn::Join': [string, unknown[]] };
      const api = logicalIdOf('AWS::ApiGatewayV2::Api', /^HttpApi/);
      const endpoint = { 'Fn::GetAtt': [api, 'ApiEndpoint'] };
      const [separator, parts] = value['Fn::Join'];
      expect(parts.filter((part) => typeof part !== 'string')).toEqual([endpoint, endpoint]);
      // The endpoint shown as <endpoint>: the literal text around it is the snippet.
      const text = parts.map((part) => (typeof part === 'string' ? part : '<endpoint>')).join(separator);
      expect(text).toBe(widgetSnippet('<endpoint>'));
      expect(text).toBe(
        `<script type="module" src="<endpoint>/widget/${WIDGET_FILE}"></script>\n` +
          '<booking-widget api="<endpoint>/api/3.0"></booking-widget>',
      );
    });

    it('is built beside the meta bundle by its afterBundling hook, with the reference page files', () => {
      const outputDir = mkdtempSync(join(tmpdir(), 'meta-bundle-'));
      const root = resolve('.');
      const commands = metaAfterBundling(root, outputDir);
      expect(commands.at(-1)).toContain(join(root, 'widget', 'build.ts'));
      try {
        // Run as CDK runs them (local bundling): one bash command after another, from the project root.
        for (const command of commands) execFileSync('bash', ['-c', command], { cwd: root, stdio: 'pipe' });
        const widget = join(outputDir, WIDGET_ASSETS_DIR, WIDGET_FILE);
        expect(statSync(widget).size).toBeGreaterThan(0);
        // Every file the meta function may serve under /widget/ (the demo pictures too) is deployed.
        for (const name of Object.keys(WIDGET_FILES))
          expect(existsSync(join(outputDir, WIDGET_ASSETS_DIR, name)), name).toBe(true);
        for (const name of Object.keys(META_FILES)) {
          expect(existsSync(join(outputDir, 'docs-assets', name)), name).toBe(true);
        }
      } finally {
        rmSync(outputDir, { recursive: true, force: true });
      }
    });
  });

  it('outputs the address of the booking page, GET /book on the endpoint', () => {
    expect(fullPath(rowsOf([bookPageRoute])[0] as Route)).toBe('/book');
    const outputs = template.findOutputs('*');
    const name = Object.keys(outputs).find((key) => key.includes('BookingPage'));
    expect(JSON.stringify(outputs[name ?? '']?.Value)).toMatch(
      /^{"Fn::Join":\["",\["https:\/\/",{"Ref":"HttpApi.*"\/book"\]\]}$/,
    );
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

  it('gives every API group its own endpoint as PUBLIC_URL, the base of the links it hands out', () => {
    const api = logicalIdOf('AWS::ApiGatewayV2::Api', /^HttpApi/);
    const functions = resources('AWS::Lambda::Function');
    const withUrl = Object.entries(functions).filter(
      ([, fn]) => fn.Properties?.Environment?.Variables?.PUBLIC_URL !== undefined,
    );
    expect(withUrl.map(([id]) => id.replace(/^Functions/, '').replace(/[0-9A-F]{8}$/, '')).sort()).toEqual([
      'Admin',
      'Bookings',
      'Channels',
      'Items',
      'Meta',
      'Payments',
      'Session',
    ]);
    for (const [, fn] of withUrl) {
      expect(fn.Properties.Environment.Variables.PUBLIC_URL).toEqual({ 'Fn::GetAtt': [api, 'ApiEndpoint'] });
    }
  });

  it('gives a tenant that takes payment one secret for the provider keys, read by bookings, payments and the sweeper', () => {
    const paymentSecretOf = (from: typeof template) =>
      Object.keys(from.findResources('AWS::SecretsManager::Secret')).find((id) =>
        id.startsWith('PaymentProviderSecret'),
      );
    // The demo takes a deposit (issue 43, item 6).
    expect(demoTenant().settings.payment.take).toBe('deposit');
    template.resourceCountIs('AWS::SecretsManager::Secret', 3);
    const secret = paymentSecretOf(template);
    expect(secret).toBeDefined();
    template.hasResourceProperties('AWS::SecretsManager::Secret', { SecretString: '{}' });
    const readers = Object.entries(resources('AWS::Lambda::Function'))
      .filter(([, fn]) => fn.Properties?.Environment?.Variables?.STRIPE_SECRET_ARN !== undefined)
      .map(([id, fn]) => {
        expect(fn.Properties.Environment.Variables.STRIPE_SECRET_ARN).toEqual({ Ref: secret });
        expect(JSON.stringify(fn.Properties.Layers ?? []), id).toContain('ParamsandsecretslayerMap');
        return id.replace(/^Functions/, '').replace(/[0-9A-F]{8}$/, '');
      });
    expect(readers.sort()).toEqual(['Bookings', 'Payments', 'Sweeper']);
    // A tenant that takes none pays for no secret ($0.40 a month) and gives no function payment keys.
    const none = buildStack('prod', demoTenantWithoutPayment()).template;
    none.resourceCountIs('AWS::SecretsManager::Secret', 2);
    expect(paymentSecretOf(none)).toBeUndefined();
    expect(JSON.stringify(none.toJSON())).not.toContain('STRIPE_SECRET_ARN');
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

  it('ships each bundle with its source map and loads none at start (a logged stack is mapped when logged)', () => {
    for (const [id, fn] of Object.entries(resources('AWS::Lambda::Function'))) {
      expect(fn.Properties?.Environment?.Variables?.NODE_OPTIONS, id).toBeUndefined();
    }
    expect(FUNCTION_BUNDLING.sourceMap).toBe(true);
  });

  it('reads the SLIP secret and the payment keys through the Parameters and Secrets extension, where they are used', () => {
    const functions = resources('AWS::Lambda::Function');
    const withExtension = Object.entries(functions)
      .filter(([, fn]) => JSON.stringify(fn.Properties?.Layers ?? []).includes('ParamsandsecretslayerMap'))
      .map(([id]) => id.replace(/^Functions/, '').replace(/[0-9A-F]{8}$/, ''))
      .sort();
    // The three groups that sign or verify SLIPs, and the three that read the payment keys (the demo takes a
    // deposit): bookings does both.
    expect(withExtension).toEqual(['Bookings', 'Items', 'Payments', 'Session', 'Sweeper']);
    for (const [id, fn] of Object.entries(functions)) {
      const variables = fn.Properties?.Environment?.Variables ?? {};
      // Only where the extension is: the port the key store asks, and how long the extension keeps a secret.
      expect(variables.SLIP_SECRET_ARN !== undefined || variables.STRIPE_SECRET_ARN !== undefined, id).toBe(
        variables.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT !== undefined,
      );
      if (variables.SLIP_SECRET_ARN) expect(variables.SECRETS_MANAGER_TTL, id).toBe('300');
    }
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
          'ForAllValues:StringLike': {
            'dynamodb:LeadingKeys': ['ACCOUNT', 'CREDENTIAL#*', 'RATE#*', 'FEED_TOKEN#*'],
          },
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

  it("grants the admin group reads, and updates of its callers' and the webhook endpoints' records only", () => {
    // Staff's customers and webhook endpoints (issue 43): moved out of the bookings function, with none of
    // its rights to stock, bookings, carts or the secrets.
    const policy = Object.entries(resources('AWS::IAM::Policy')).find(([id]) =>
      id.startsWith('FunctionsAdminServiceRoleDefaultPolicy'),
    )?.[1] as {
      Properties: { PolicyDocument: { Statement: { Action: string | string[]; Condition?: unknown }[] } };
    };
    const statements = policy.Properties.PolicyDocument.Statement;
    const actions = statements.flatMap((statement) => [statement.Action].flat());
    expect(actions.filter((action) => action.startsWith('secretsmanager:'))).toEqual([]);
    expect(
      statements
        .filter((statement) => !statement.Condition)
        .flatMap((statement) => [statement.Action].flat())
        .filter((action) => /PutItem|UpdateItem|DeleteItem|BatchWriteItem|TransactWrite/.test(action)),
    ).toEqual([]);
    expect(statements.filter((statement) => statement.Condition)).toEqual([
      expect.objectContaining({
        Action: 'dynamodb:UpdateItem',
        Condition: {
          'ForAllValues:StringLike': {
            'dynamodb:LeadingKeys': ['ACCOUNT', 'CREDENTIAL#*', 'RATE#*', 'WEBHOOK#*', 'WEBHOOK_EVENT#*'],
          },
        },
      }),
    ]);
    const admin = Object.entries(resources('AWS::Lambda::Function')).find(([id]) =>
      /^FunctionsAdmin[0-9A-F]{8}$/.test(id),
    )?.[1] as { Properties: { Environment: { Variables: Record<string, unknown> }; Layers?: unknown } };
    expect(Object.keys(admin.Properties.Environment.Variables)).not.toContain('SLIP_SECRET_ARN');
    expect(admin.Properties.Layers).toBeUndefined();
  });
});
