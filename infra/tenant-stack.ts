import {
  CfnOutput,
  Duration,
  RemovalPolicy,
  SecretValue,
  Stack,
  type StackProps,
  Validations,
} from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { widgetSnippet } from '#functions/meta/widget.ts';
import type { Tenant } from '#lib/config/index.ts';
import { wantsDashboard } from '#lib/config/index.ts';
import { TenantApi } from './constructs/api.ts';
import { TenantBackup } from './constructs/backup.ts';
import { TenantDashboard } from './constructs/dashboard.ts';
import { customUrlOf, TenantDomain } from './constructs/edge.ts';
import { TenantFunctions } from './constructs/functions.ts';
import { TenantAlarms } from './constructs/monitoring.ts';
import { Housekeeping } from './constructs/schedule.ts';
import { tenantSignals } from './constructs/signals.ts';
import { TenantTable } from './constructs/table.ts';
import { WebhookDispatch } from './constructs/webhooks.ts';

/** Props of one tenant's stack. */
export interface TenantStackProps extends StackProps {
  tenant: Tenant;
  /**
   * `dev` stacks destroy their table and logs on delete and keep no point-in-time recovery; every other
   * stage retains them, with recovery and deletion protection on the table.
   */
  stage: string;
}

/**
 * One tenant: table, functions, HTTP API (which also serves the booking widget), sweeper schedule, SLIP
 * signing secret, the webhook dispatcher with its triggers and the endpoints' signing secrets, and the
 * alarms (to an SNS topic) and dashboard it is operated by.
 */
export class TenantStack extends Stack {
  constructor(scope: Construct, id: string, props: TenantStackProps) {
    // A stack that holds a retained table cannot be deleted by mistake: the teardown turns this off first.
    super(scope, id, { terminationProtection: props.stage !== 'dev', ...props });
    const removalPolicy = props.stage === 'dev' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;
    const { deployment } = props.tenant;
    const { table } = new TenantTable(this, 'Data', {
      removalPolicy,
      generation: deployment.table_generation,
    });
    // A dev table is disposable: no backups to keep or pay for.
    if (props.stage !== 'dev') {
      new TenantBackup(this, 'Backup', { table, retentionDays: deployment.backup.retention_days });
    }
    const slipSecret = new Secret(this, 'SlipSigningKey', {
      description: `SLIP signing key of tenant ${props.tenant.tenant}`,
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy,
    });
    // One JSON document of whsec_ secrets by endpoint id, filled by `npm run tenant:load`. It starts as
    // `{}`, which the store reads as "no secrets yet": `generateSecretString` cannot produce that (a
    // `secretStringTemplate` needs a `generateStringKey`, whose random entry would read as an endpoint).
    // The literal holds nothing secret; the real secrets reach Secrets Manager through PutSecretValue,
    // never through the template. Keep the literal as it is: CloudFormation writes the value when it
    // changes, which would replace the loaded secrets.
    const webhookSecrets = new Secret(this, 'WebhookSigningSecrets', {
      description: `Webhook signing secrets (whsec_) of tenant ${props.tenant.tenant}, by endpoint id`,
      secretStringValue: SecretValue.unsafePlainText('{}'),
      removalPolicy,
    });
    // Rotation is an operator's step for both: a rotation function could not do either alone.
    Validations.of(slipSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'SLIP keys rotate by hand: a new key goes first in the space-separated list, so SLIPs already ' +
        'handed out still verify until they expire.',
    });
    Validations.of(webhookSecrets).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Webhook signing secrets are shared with their receivers: `npm run webhooks -- rotate` makes a ' +
        'new one and signs with both for a grace period; Secrets Manager cannot tell a receiver.',
    });
    // The payment provider's keys (issue 43), only for a tenant that takes payment (a secret is $0.40 a month):
    // `{"secret_key": "sk_…", "webhook_secret": "whsec_…"}`, put in by an operator (docs/payments.md); `{}` until
    // then, which the functions read as no provider. As above, the literal holds nothing secret; keep it as it is.
    const paymentSecret =
      (props.tenant.settings.payment?.take ?? 'none') === 'none'
        ? undefined
        : new Secret(this, 'PaymentProviderSecret', {
            description: `Payment provider keys (Stripe) of tenant ${props.tenant.tenant}`,
            secretStringValue: SecretValue.unsafePlainText('{}'),
            removalPolicy,
          });
    if (paymentSecret)
      Validations.of(paymentSecret).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason:
          "Stripe's keys are rolled in Stripe's dashboard, which Secrets Manager cannot drive: the operator " +
          'puts the new key in and expires the old one there (docs/payments.md).',
      });
    const logRetention = props.stage === 'dev' ? RetentionDays.ONE_WEEK : RetentionDays.THREE_MONTHS;
    const functions = new TenantFunctions(this, 'Functions', {
      table,
      slipSecret,
      webhookSecrets,
      ...(paymentSecret ? { paymentSecret } : {}),
      tenant: props.tenant.tenant,
      removalPolicy,
      logRetention,
    });
    const { domain, edge } = deployment;
    const http = new TenantApi(this, 'Http', {
      executeApiEndpoint: !edge,
      publicUrl: customUrlOf(props.tenant.deployment),
      functions: functions.byGroup,
      corsOrigins: props.tenant.settings.cors_origins,
      throttle: {
        rateLimit: props.tenant.settings.throttle.rate_limit,
        burstLimit: props.tenant.settings.throttle.burst_limit,
      },
      logRetention,
      removalPolicy,
    });
    // The tenant's own domain, with the edge (CloudFront and WAF) in front when asked for (docs/edge.md).
    const custom = domain
      ? new TenantDomain(this, 'Domain', {
          api: http.api,
          stage: http.stage,
          domain,
          edge,
          tenant: props.tenant.tenant,
        })
      : undefined;
    // The API's public address (its domain, or its own endpoint) is where the links it hands out point (the
    // invoice URL): configuration, never the Host or X-Forwarded-* headers of a request. Set after the API
    // exists; the API does not depend on the functions' configuration, so there is no cycle.
    const publicUrl = custom?.publicUrl ?? http.api.apiEndpoint;
    for (const fn of Object.values(functions.byGroup)) {
      fn.addEnvironment('PUBLIC_URL', publicUrl);
      for (const [name, value] of Object.entries(custom?.environment ?? {})) fn.addEnvironment(name, value);
    }
    // The sweeper every minute; the dispatcher every minute for retries (first attempts come by the
    // stream); channel sync every five minutes, within the range channels themselves poll at.
    const housekeeping = new Housekeeping(this, 'Housekeeping', {
      jobs: [
        { id: 'Sweep', fn: functions.sweeper, every: Duration.minutes(1) },
        { id: 'WebhookRetries', fn: functions.webhookDispatcher, every: Duration.minutes(1) },
        { id: 'ChannelSync', fn: functions.channelSync, every: Duration.minutes(5) },
      ],
    });
    const webhooks = new WebhookDispatch(this, 'Webhooks', {
      table,
      dispatcher: functions.webhookDispatcher,
    });

    const signals = tenantSignals({
      tenant: props.tenant.tenant,
      stage: http.stage,
      functions: Object.fromEntries(
        Object.entries(functions.all).map(([name, fn]) => [name.toLowerCase(), fn]),
      ),
      table,
      deadLetterQueue: webhooks.deadLetterQueue,
      housekeepingFailures: housekeeping.failures,
    });
    const alerts = props.tenant.settings.alerts;
    const { alarms, health } = new TenantAlarms(this, 'Alarms', { signals, alerts, tier: deployment.tier });
    if (wantsDashboard(deployment))
      new TenantDashboard(this, 'Dashboard', { signals, alerts, alarms, health });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    if (paymentSecret)
      new CfnOutput(this, 'PaymentSecretArn', {
        value: paymentSecret.secretArn,
        description: 'The payment provider keys of the tenant (docs/payments.md)',
      });
    new CfnOutput(this, 'WebhookSecretsArn', {
      value: webhookSecrets.secretArn,
      description: 'WEBHOOK_SECRETS_ARN for npm run tenant:load and npm run webhooks',
    });
    new CfnOutput(this, 'WidgetSnippet', {
      // Neither address has a trailing slash: `<address>/widget/…`, `<address>/api/3.0`.
      value: widgetSnippet(publicUrl),
      description: "Paste into a page on one of the tenant's cors_origins to embed the booking widget",
    });
  }
}
