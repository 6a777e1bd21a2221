import { ArnFormat, CfnOutput, Stack, Validations } from 'aws-cdk-lib';
import {
  Alarm,
  type AlarmBase,
  AlarmRule,
  CompositeAlarm,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import type { Alerts, Tier } from '#lib/config/index.ts';

import { alarmSpecs } from './alarm-specs.ts';
import type { TenantSignals } from './signals.ts';

/** Props of the tenant's alarms. */
export interface TenantAlarmsProps {
  signals: TenantSignals;
  /** `settings.alerts` of the tenant file: the thresholds, and the address to subscribe. */
  alerts: Alerts;
  /** `deployment.tier` of the tenant file: which alarms, and how they notify. */
  tier: Tier;
}

/**
 * The tenant's alarms and where they go: an SNS topic (TLS only, with the tenant's alert address
 * subscribed when the tenant file names one), notified when an alarm fires and when it clears. A standard
 * tenant gets every alarm, each notifying on its own. A small tenant gets the alarms that matter, which
 * notify nothing themselves: one composite alarm, `<stack>-health`, fires when any of them does and
 * notifies for all (its reason names the alarm that fired).
 */
export class TenantAlarms extends Construct {
  readonly topic: Topic;
  /** Every metric alarm, by the suffix of its name (`api-5xx-rate`, `fn-items-errors`, …). */
  readonly alarms: Readonly<Record<string, Alarm>>;
  /** The alarm that notifies for the others (the small tier's composite), if there is one. */
  readonly health?: CompositeAlarm;

  constructor(scope: Construct, id: string, props: TenantAlarmsProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const prefix = stack.stackName;
    const { signals, alerts, tier } = props;

    this.topic = new Topic(this, 'Topic', {
      topicName: `${prefix}-alerts`,
      displayName: `${prefix} alarms`,
      enforceSSL: true,
    });
    // The TLS-only policy replaces the topic's default one, so CloudWatch needs its own right to publish,
    // for this stack's alarms only.
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          ArnLike: {
            'aws:SourceArn': stack.formatArn({
              service: 'cloudwatch',
              resource: 'alarm',
              resourceName: `${prefix}-*`,
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          },
        },
      }),
    );
    Validations.of(this.topic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        'Alarm notifications carry alarm names, metrics and thresholds, no guest data or secret; ' +
        'CloudWatch cannot publish to a topic under the AWS managed key, and a customer key costs ' +
        '$1 a month per tenant for nothing to protect.',
    });
    if (alerts.email) {
      const subscription = this.topic.addSubscription(new EmailSubscription(alerts.email));
      Validations.of(subscription).acknowledge({
        id: 'Serverless-SNSRedrivePolicy',
        reason:
          "An alarm mail that could not be delivered would sit in a queue nobody reads; the alarm's state " +
          'stays in CloudWatch, and on-call tools subscribe to the topic themselves (docs/deploy.md).',
      });
    }

    const action = new SnsAction(this.topic);
    const alarms: Record<string, Alarm> = {};
    for (const spec of alarmSpecs(signals, alerts, tier)) {
      alarms[spec.suffix] = new Alarm(this, spec.suffix, {
        alarmName: `${prefix}-${spec.suffix}`,
        alarmDescription: spec.description,
        metric: spec.metric,
        threshold: spec.threshold,
        comparisonOperator: spec.comparison,
        evaluationPeriods: spec.periods?.of ?? 1,
        datapointsToAlarm: spec.periods?.breaching ?? 1,
        treatMissingData: spec.missing ?? TreatMissingData.NOT_BREACHING,
      });
    }
    this.alarms = alarms;
    if (tier === 'small') {
      // A composite costs $0.50 a month on top of its children (docs/cost.md): one notification per incident
      // instead of one per alarm, across hundreds of tenants; a second alarm while it is already in ALARM
      // notifies nothing more, which its description says.
      this.health = new CompositeAlarm(this, 'Health', {
        compositeAlarmName: `${prefix}-health`,
        alarmRule: AlarmRule.anyOf(...Object.values(alarms)),
        alarmDescription:
          `One of the alarms named ${prefix}-* fired: the notification's reason names it, and its own ` +
          'description says what to look at first. While this alarm is in ALARM, another of them firing ' +
          'notifies nothing more: look at all of them in the console before closing the incident.',
      });
    }
    const notifying: AlarmBase[] = this.health ? [this.health] : Object.values(alarms);
    for (const alarm of notifying) {
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
    }
    new CfnOutput(stack, 'AlertsTopicArn', {
      value: this.topic.topicArn,
      description: "The SNS topic the stack's alarms notify (a small tenant's through its health alarm)",
    });
  }
}
