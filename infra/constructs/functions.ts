import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { META_FILES } from '#functions/meta/docs.ts';
import { WIDGET_ASSETS_DIR } from '#functions/meta/widget.ts';
import { ACCOUNT_PARTITION, RATE_PARTITION_PREFIX } from '#lib/db/keys.ts';
import type { Group } from '#lib/http/routes.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The indexes the webhook dispatcher queries: a booking's delivery order (gsi1) and what is due (gsi2). */
const DISPATCHER_INDEXES = ['gsi1', 'gsi2'] as const;

/**
 * What runs after the meta function is bundled: the reference page's files are copied beside the
 * bundle, and the widget is built there (its files are read at run time, never bundled into the code).
 */
export const metaAfterBundling = (inputDir: string, outputDir: string): string[] => {
  const tsx = join(inputDir, 'node_modules', '.bin', 'tsx');
  const buildScript = join(inputDir, 'widget', 'build.ts');
  return [
    ...Object.entries(META_FILES).flatMap(([name, from]) => {
      const to = join(outputDir, 'docs-assets', name);
      return [`mkdir -p "${dirname(to)}"`, `cp "${join(inputDir, from)}" "${to}"`];
    }),
    `"${tsx}" "${buildScript}" "${join(outputDir, WIDGET_ASSETS_DIR)}"`,
  ];
};

/** Props of the tenant's functions. */
export interface TenantFunctionsProps {
  table: TableV2;
  slipSecret: ISecret;
  /** The endpoints' webhook signing secrets: only the dispatcher reads them. */
  webhookSecrets: ISecret;
  tenant: string;
  removalPolicy: RemovalPolicy;
  logRetention: RetentionDays;
}

/** The functions of a tenant: one per endpoint group, plus the sweeper and the webhook dispatcher. */
export class TenantFunctions extends Construct {
  readonly byGroup: Readonly<Record<Group, NodejsFunction>>;
  readonly sweeper: NodejsFunction;
  readonly webhookDispatcher: NodejsFunction;

  constructor(scope: Construct, id: string, props: TenantFunctionsProps) {
    super(scope, id);
    const make = (
      name: string,
      entry: string,
      environment: Record<string, string> = {},
      timeout = Duration.seconds(10),
      afterBundling?: (inputDir: string, outputDir: string) => string[],
    ) =>
      new NodejsFunction(this, name, {
        entry: join(root, 'functions', entry, 'handler.ts'),
        handler: 'handler',
        runtime: Runtime.NODEJS_22_X,
        architecture: Architecture.ARM_64,
        memorySize: 512,
        timeout,
        projectRoot: root,
        depsLockFilePath: join(root, 'package-lock.json'),
        environment: {
          TABLE_NAME: props.table.tableName,
          TENANT: props.tenant,
          POWERTOOLS_SERVICE_NAME: 'booking-api',
          NODE_OPTIONS: '--enable-source-maps',
          ...environment,
        },
        logGroup: new LogGroup(this, `${name}Logs`, {
          retention: props.logRetention,
          removalPolicy: props.removalPolicy,
        }),
        bundling: {
          minify: true,
          sourceMap: true,
          sourcesContent: false,
          target: 'node22',
          format: OutputFormat.ESM,
          mainFields: ['module', 'main'],
          // Bundle the AWS SDK too: one pinned version, measured by the benchmark's bundle sizes.
          externalModules: [],
          banner:
            "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
          ...(afterBundling
            ? { commandHooks: { beforeBundling: () => [], beforeInstall: () => [], afterBundling } }
            : {}),
        },
      });

    const slip = { SLIP_SECRET_ARN: props.slipSecret.secretArn };
    const items = make('Items', 'items', slip);
    const session = make('Session', 'session', slip);
    const bookings = make('Bookings', 'bookings', slip);
    // The reference page's files and the widget travel beside the meta bundle: served without a CDN.
    const meta = make('Meta', 'meta', {}, Duration.seconds(10), metaAfterBundling);
    // The sweeper works through a backlog for up to SWEEP_BUDGET_MS of each run, well inside its timeout.
    this.sweeper = make('Sweeper', 'sweeper', { SWEEP_BUDGET_MS: '40000' }, Duration.seconds(60));
    // The dispatcher sends for up to 45 s of each run (its own budget), well inside its timeout.
    this.webhookDispatcher = make(
      'Webhooks',
      'webhooks',
      { WEBHOOK_SECRETS_ARN: props.webhookSecrets.secretArn },
      Duration.seconds(60),
    );
    this.byGroup = { items, session, bookings, meta };

    // Readers still record a credential's last use and its account's last sign-in, and count each
    // client's requests (per-client limits): only those records.
    const recordSignIn = new PolicyStatement({
      effect: Effect.ALLOW,
      actions: ['dynamodb:UpdateItem'],
      resources: [props.table.tableArn],
      conditions: {
        'ForAllValues:StringLike': {
          'dynamodb:LeadingKeys': [ACCOUNT_PARTITION, 'CREDENTIAL#*', `${RATE_PARTITION_PREFIX}*`],
        },
      },
    });
    for (const reader of [items, meta]) {
      props.table.grantReadData(reader);
      reader.addToRolePolicy(recordSignIn);
    }
    for (const writer of [session, bookings, this.sweeper]) props.table.grantReadWriteData(writer);
    for (const signer of [items, session, bookings]) props.slipSecret.grantRead(signer);

    // Only the dispatcher's access patterns (lib/db/webhook-*-repository.ts): it reads the config, events and
    // endpoints, claims and finishes deliveries, and writes the `webhook.disabled` outbox transaction, whose
    // Puts IAM authorises as PutItem (there is no TransactWriteItems action). No Scan, no DeleteItem.
    this.webhookDispatcher.addToRolePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
        resources: [props.table.tableArn],
      }),
    );
    this.webhookDispatcher.addToRolePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['dynamodb:Query'],
        resources: DISPATCHER_INDEXES.map((index) => `${props.table.tableArn}/index/${index}`),
      }),
    );
    props.webhookSecrets.grantRead(this.webhookDispatcher);
  }
}
