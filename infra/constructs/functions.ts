import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CfnElement, Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  Architecture,
  ParamsAndSecretsLayerVersion,
  ParamsAndSecretsLogLevel,
  ParamsAndSecretsVersions,
  Runtime,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { META_FILES } from '#functions/meta/docs.ts';
import { WIDGET_ASSETS_DIR } from '#functions/meta/widget.ts';
import { ROUTES } from '#functions/routes.ts';
import { packRoutes } from '#lib/http/route-match.ts';
import type { Group } from '#lib/http/routes.ts';
import { METRICS_NAMESPACE, METRICS_SERVICE } from '#lib/kernel/metric-names.ts';
import {
  ACCOUNT_PARTITION,
  FEED_TOKEN_PREFIX,
  RATE_PARTITION_PREFIX,
  webhookEventKey,
  webhookPartition,
} from '#lib/kernel/storage/keys.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * What every API function updates of its caller, as IAM's patterns of partition keys: a credential's last
 * use, its account's last sign-in, each client's request counts (per-client limits).
 */
const CALLER_RECORDS = [ACCOUNT_PARTITION, 'CREDENTIAL#*', `${RATE_PARTITION_PREFIX}*`];

/**
 * The records the admin function may update (and none other; it writes nothing else): its callers', an
 * endpoint's state and deliveries (the endpoint's partition), and the kept event a replay keeps longer.
 */
export const ADMIN_UPDATES = [...CALLER_RECORDS, webhookPartition('*'), webhookEventKey('*').pk];

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

/** The adapter's file beside a bundle that calls the payment provider (lib/payments/provider-from-env.ts). */
export const PAYMENT_ADAPTER_FILE = 'payments-provider.mjs';

/**
 * The payment adapter (lib/payments/stripe-adapter.ts and what it imports, the Stripe SDK among it) built as a
 * file of its own beside the bundle, where provider-from-env.ts imports it at the first payment: the bundle
 * itself carries none of it. One minified file of the SDK's code that the adapter reaches loads in about a
 * fifth of the time the SDK's own hundreds of modules took (docs/payments.md, "The SDK's place"). With the
 * project's own esbuild, as the bundle is built.
 */
export const shipPaymentAdapter = (inputDir: string, outputDir: string): string[] => [
  [
    `"${join(inputDir, 'node_modules', '.bin', 'esbuild')}"`,
    `"${join(inputDir, 'lib', 'payments', 'stripe-adapter.ts')}"`,
    '--bundle --platform=node --format=esm --minify --log-level=warning',
    `--target=${FUNCTION_BUNDLING.target} --main-fields=${FUNCTION_BUNDLING.mainFields.join(',')}`,
    `--outfile="${join(outputDir, PAYMENT_ADAPTER_FILE)}"`,
  ].join(' '),
];

/** Statements no function carries: a route's documentation (`DOCS: describeRoute(…)`, functions/route-docs.ts). */
export const DROPPED_LABELS = ['DOCS'];

/**
 * How every function is bundled (esbuild through NodejsFunction); the cold-start benchmark bundles its
 * floor with the same options (test/bench/cold.ts), so a change here changes both.
 */
export const FUNCTION_BUNDLING: {
  minify: boolean;
  sourceMap: boolean;
  sourcesContent: boolean;
  target: string;
  format: OutputFormat;
  mainFields: string[];
  externalModules: string[];
  banner: string;
  esbuildArgs: Record<string, string>;
} = {
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  target: 'node22',
  format: OutputFormat.ESM,
  mainFields: ['module', 'main'],
  // Bundle the AWS SDK too: one pinned version, measured by the benchmark's bundle sizes. The Stripe SDK is
  // the one exception (issue 43): esbuild would inline the adapter's dynamic import into every bundle that
  // reaches it, so it stays outside, built into the adapter's file beside the callers (`shipPaymentAdapter`).
  externalModules: ['stripe'],
  banner: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  // A route's documentation (schemas of answers, summaries) stands in statements labelled DOCS beside its
  // declaration: the OpenAPI document and the tests read them, no function carries them.
  esbuildArgs: { '--drop-labels': DROPPED_LABELS.join(',') },
};

/**
 * The AWS Parameters and Secrets Lambda Extension (an AWS layer) of the functions that read the SLIP
 * secret: they GET it on localhost (lib/slip/key-store.ts) instead of bundling the Secrets Manager
 * client, and the extension keeps it five minutes.
 */
const SLIP_SECRET_EXTENSION = ParamsAndSecretsLayerVersion.fromVersion(ParamsAndSecretsVersions.V1_0_103, {
  secretsManagerTtl: Duration.minutes(5),
  cacheSize: 10,
  logLevel: ParamsAndSecretsLogLevel.WARN,
});

/**
 * Concurrency reserved for the housekeeping functions, per tenant. The sweeper runs once a minute and never
 * needs two at once (one also keeps two sweeps from overlapping). The dispatcher takes one for the stream's
 * poller (one shard at a tenant's volume) and one for the minute's retry run. Channel sync takes one for the
 * five-minute round and two for the channels group of the API it also serves (channels fetching the feeds,
 * staff's "sync now"), whose requests last milliseconds. docs/deploy.md gives the account's arithmetic.
 */
export const HOUSEKEEPING_CONCURRENCY = { sweeper: 1, webhooks: 2, channels: 3 } as const;

/** The prefix of every log group of a stack: `/booking/<stack name>/` (the functions' and the API's). */
export const logGroupPrefix = (stackName: string): string => `/booking/${stackName}/`;

/** Props of the tenant's functions. */
export interface TenantFunctionsProps {
  table: TableV2;
  slipSecret: ISecret;
  /** The endpoints' webhook signing secrets: only the dispatcher reads them. */
  webhookSecrets: ISecret;
  /** The payment provider's keys (issue 43), when the tenant takes payment: read by the functions that call it. */
  paymentSecret?: ISecret;
  tenant: string;
  removalPolicy: RemovalPolicy;
  logRetention: RetentionDays;
}

/** The functions of a tenant: one per endpoint group, plus the sweeper, the webhook dispatcher and channel sync. */
export class TenantFunctions extends Construct {
  readonly byGroup: Readonly<Record<Group, NodejsFunction>>;
  readonly sweeper: NodejsFunction;
  readonly webhookDispatcher: NodejsFunction;
  readonly channelSync: NodejsFunction;

  /** Every function of the tenant, by its construct id (Items, Session, …, Webhooks). */
  readonly all: Readonly<Record<string, NodejsFunction>>;

  constructor(scope: Construct, id: string, props: TenantFunctionsProps) {
    super(scope, id);
    const all: Record<string, NodejsFunction> = {};
    const make = (
      name: string,
      entry: string,
      {
        environment = {},
        timeout = Duration.seconds(10),
        afterBundling,
        define,
        readsSlipSecret = false,
        callsPaymentProvider = false,
        reservedConcurrency,
        traced = true,
      }: {
        environment?: Record<string, string>;
        timeout?: Duration;
        afterBundling?: (inputDir: string, outputDir: string) => string[];
        /** Constants written into the bundle (esbuild's `define`: a name, and the code of its value). */
        define?: Record<string, string>;
        /** Signs or verifies SLIPs: reads their secret through the Parameters and Secrets extension. */
        readsSlipSecret?: boolean;
        /** Calls the payment provider: its SDK ships beside the bundle, its keys come through the extension. */
        callsPaymentProvider?: boolean;
        /** Concurrency set aside from the account's pool: at once the floor and the ceiling. */
        reservedConcurrency?: number;
        /**
         * Records X-Ray traces (Lambda's active tracing). Off, Lambda only passes a caller's trace on, and
         * Powertools' tracer is off: for functions that nothing calls with a trace header.
         */
        traced?: boolean;
      } = {},
    ) => {
      // Named, so that a teardown finds every group of a stack by its prefix (they outlive the stack).
      const logGroup = new LogGroup(this, `${name}Logs`, {
        logGroupName: `${logGroupPrefix(Stack.of(this).stackName)}${name}`,
        retention: props.logRetention,
        removalPolicy: props.removalPolicy,
      });
      // A role of its own instead of AWSLambdaBasicExecutionRole, whose log rights cover every log group
      // of the account: this one writes to the function's own group only.
      const role = new Role(this, `${name}ServiceRole`, {
        assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      });
      logGroup.grantWrite(role);
      // X-Ray's PutTraceSegments and PutTelemetryRecords have no resource-level permissions, so the grant
      // `tracing: ACTIVE` adds is on `*`; a test checks that these two actions are all that `*` carries.
      Validations.of(role).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason: 'X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource ARN.',
      });
      const fn = new NodejsFunction(this, name, {
        entry: join(root, 'functions', entry, 'handler.ts'),
        handler: 'handler',
        runtime: Runtime.NODEJS_22_X,
        architecture: Architecture.ARM_64,
        memorySize: 512,
        timeout,
        projectRoot: root,
        depsLockFilePath: join(root, 'package-lock.json'),
        role,
        tracing: traced ? Tracing.ACTIVE : Tracing.PASS_THROUGH,
        environment: {
          TABLE_NAME: props.table.tableName,
          TENANT: props.tenant,
          // Powertools: the metrics' namespace and `service` dimension (lib/kernel/metric-names.ts), and no
          // response bodies in traces (they carry SLIPs, tokens and guests' details).
          POWERTOOLS_SERVICE_NAME: METRICS_SERVICE,
          POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
          POWERTOOLS_TRACER_CAPTURE_RESPONSE: 'false',
          ...(traced ? {} : { POWERTOOLS_TRACE_ENABLED: 'false' }),
          // No NODE_OPTIONS=--enable-source-maps: Node would parse the whole map at every cold start; a
          // logged error's stack is mapped when it is logged instead (lib/runtime/stack-map.ts).
          ...(callsPaymentProvider && props.paymentSecret
            ? { STRIPE_SECRET_ARN: props.paymentSecret.secretArn }
            : {}),
          ...environment,
        },
        logGroup,
        reservedConcurrentExecutions: reservedConcurrency,
        ...(readsSlipSecret || (callsPaymentProvider && props.paymentSecret)
          ? { paramsAndSecrets: SLIP_SECRET_EXTENSION }
          : {}),
        bundling: {
          ...FUNCTION_BUNDLING,
          ...(define || callsPaymentProvider
            ? {
                define: {
                  ...define,
                  ...(callsPaymentProvider
                    ? { 'globalThis.PAYMENT_ADAPTER_FILE': JSON.stringify(`./${PAYMENT_ADAPTER_FILE}`) }
                    : {}),
                },
              }
            : {}),
          ...(afterBundling || callsPaymentProvider
            ? {
                commandHooks: {
                  beforeBundling: () => [],
                  beforeInstall: () => [],
                  afterBundling: (inputDir: string, outputDir: string) => [
                    ...(afterBundling?.(inputDir, outputDir) ?? []),
                    ...(callsPaymentProvider ? shipPaymentAdapter(inputDir, outputDir) : []),
                  ],
                },
              }
            : {}),
        },
      });
      all[name] = fn;
      return fn;
    };

    // cdk-nag's "latest runtime" moves with every CDK release; the runtime is a deliberate upgrade instead.
    Validations.of(this).acknowledge(
      {
        id: 'AwsSolutions-L1',
        reason:
          'nodejs22.x (LTS) is pinned with the bundling target and the Node version the tests run on; a ' +
          'newer runtime is an upgrade of all three together.',
      },
      {
        id: 'Serverless-LambdaLatestVersion',
        reason:
          'nodejs22.x (LTS) is pinned with the bundling target and the Node version the tests run on; a ' +
          'newer runtime is an upgrade of all three together.',
      },
      {
        id: 'Serverless-LambdaDLQ',
        reason:
          'API Gateway and the stream invoke the API functions and the dispatcher synchronously (a DLQ ' +
          'applies to asynchronous invocations only; the stream has its own on-failure queue); the scheduled ' +
          "runs have an on-failure destination, Lambda's successor to a DLQ (the HousekeepingFailures queue).",
      },
    );

    const slip = { environment: { SLIP_SECRET_ARN: props.slipSecret.secretArn }, readsSlipSecret: true };
    const items = make('Items', 'items', slip);
    const session = make('Session', 'session', slip);
    const bookings = make('Bookings', 'bookings', { ...slip, callsPaymentProvider: true });
    // The payment provider's webhook (issue 43): a function of its own, so the payment flow it applies and the
    // provider's SDK load nowhere else but in the bookings create and the sweeper.
    const payments = make('Payments', 'payments', { callsPaymentProvider: true });
    // Staff's customers and webhook endpoints (issue 43: out of the bookings bundle, which guests load): no
    // SLIP secret, no payment keys, and of the table's records it changes only the webhook endpoints' state
    // and deliveries (enable, replay) beside what every API function records of its caller.
    const admin = make('Admin', 'admin');
    // The reference page's files and the widget travel beside the meta bundle: served without a CDN.
    // It answers every path no route has ($default), and its help lists every route: the other groups' rows
    // are written into its bundle, not their code.
    const meta = make('Meta', 'meta', {
      afterBundling: metaAfterBundling,
      // A string: esbuild defines an object as a module every other module would call first.
      define: {
        'globalThis.ROUTE_TABLE': JSON.stringify(
          packRoutes(ROUTES.filter((route) => route.group !== 'meta')),
        ),
      },
    });
    // The housekeeping functions have concurrency of their own (HOUSEKEEPING_CONCURRENCY), so that no other
    // tenant's flash sale can throttle them in the account's shared pool and leave stock held.
    const untraced = {
      id: 'Serverless-LambdaTracing',
      reason:
        'Run every minute, every run would be a recorded X-Ray trace ($0.48 a tenant a month, docs/cost.md); ' +
        'nothing calls it with a trace header, and its log lines and metrics say what a run did.',
    };
    // The sweeper and the dispatcher record no traces: at a run a minute, Lambda's sampling would record
    // every run (96,360 traces, $0.48 a tenant a month, most of them of a sweep that found nothing). Nothing
    // calls them with a trace header; their log lines and metrics say what a run did (docs/cost.md).
    // The sweeper works through a backlog for up to SWEEP_BUDGET_MS of each run, well inside its timeout.
    this.sweeper = make('Sweeper', 'sweeper', {
      environment: { SWEEP_BUDGET_MS: '40000' },
      // It lets unpaid bookings lapse, closing their checkouts at the provider first.
      callsPaymentProvider: true,
      timeout: Duration.seconds(60),
      reservedConcurrency: HOUSEKEEPING_CONCURRENCY.sweeper,
      traced: false,
    });
    Validations.of(this.sweeper).acknowledge(untraced);
    // The dispatcher sends for up to 45 s of each run (its own budget), well inside its timeout.
    this.webhookDispatcher = make('Webhooks', 'webhooks', {
      environment: { WEBHOOK_SECRETS_ARN: props.webhookSecrets.secretArn },
      timeout: Duration.seconds(60),
      reservedConcurrency: HOUSEKEEPING_CONCURRENCY.webhooks,
      traced: false,
    });
    Validations.of(this.webhookDispatcher).acknowledge(untraced);
    // A round fetches 8 feeds at once, each within 10 s, so 100 channels take about two minutes at worst:
    // well inside both this timeout and the five-minute schedule.
    // It also serves the channels group of the API (the feeds, the channels' list and a sync now), so the
    // iCalendar libraries load only here; API Gateway stops waiting after 30 s whatever this timeout.
    this.channelSync = make('Channels', 'channels', {
      timeout: Duration.seconds(240),
      reservedConcurrency: HOUSEKEEPING_CONCURRENCY.channels,
    });
    this.byGroup = { items, session, bookings, admin, meta, channels: this.channelSync, payments };
    this.all = all;

    // Updates of the records whose partition keys start as `leadingKeys` say, and of no other.
    const updatesOf = (leadingKeys: string[]) =>
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['dynamodb:UpdateItem'],
        resources: [props.table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': leadingKeys } },
      });
    // Readers update only their callers' records, and stamp when a calendar feed's content changed.
    const recordSignIn = updatesOf([...CALLER_RECORDS, `${FEED_TOKEN_PREFIX}*`]);
    for (const reader of [items, meta]) {
      props.table.grantReadData(reader);
      reader.addToRolePolicy(recordSignIn);
    }
    props.table.grantReadData(admin);
    admin.addToRolePolicy(updatesOf(ADMIN_UPDATES));
    for (const writer of [session, bookings, payments, this.sweeper, this.channelSync])
      props.table.grantReadWriteData(writer);
    for (const caller of [bookings, payments, this.sweeper]) props.paymentSecret?.grantRead(caller);
    // The table grants cover `<table>/index/*`: these functions query gsi1 to gsi3. Their actions are the
    // grant's explicit lists, never `dynamodb:*`.
    const tableId = Stack.of(this).getLogicalId(props.table.node.defaultChild as CfnElement);
    for (const fn of [items, meta, session, bookings, admin, payments, this.sweeper, this.channelSync]) {
      Validations.of(fn.role ?? fn).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${tableId}.Arn>/index/*]`,
        reason: "CDK's table read/write grant covers the table's indexes, which these functions query.",
      });
    }
    for (const signer of [items, session, bookings]) props.slipSecret.grantRead(signer);

    // Only the dispatcher's access patterns (lib/webhooks/*-repository.ts): it reads the config, events and
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
