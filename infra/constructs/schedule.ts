import { type CfnElement, Duration, Stack, Validations } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { Schedule, ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

/** One housekeeping job: the function, how often it runs, and the id its schedule keeps. */
export interface HousekeepingJob {
  /** The schedule's construct id (`Sweep`, `WebhookRetries`, `ChannelSync`). */
  id: string;
  fn: IFunction;
  every: Duration;
}

/** Props of the housekeeping schedules. */
export interface HousekeepingProps {
  jobs: readonly HousekeepingJob[];
}

/**
 * How long a scheduled run may wait, in EventBridge Scheduler and then in Lambda's queue for asynchronous
 * invocations, before it is dropped to the failures queue: the shortest both allow. The next run takes over
 * from a dropped one; a late run would only overlap it.
 */
export const HOUSEKEEPING_MAX_EVENT_AGE = Duration.minutes(1);

/**
 * The tenant's scheduled jobs through EventBridge Scheduler (whose quota is a million schedules an account,
 * where rules on the default event bus are 300): one role for all of them, allowed to invoke these functions
 * only. A run is never retried, by Scheduler or by Lambda, and never waits more than a minute: what could
 * not start or failed goes to one queue, as a record to alarm on and read.
 */
export class Housekeeping extends Construct {
  /** Runs that could not be delivered by Scheduler, or that Lambda gave up on (error, throttle, age). */
  readonly failures: Queue;
  readonly role: Role;
  readonly schedules: Readonly<Record<string, Schedule>>;

  constructor(scope: Construct, id: string, props: HousekeepingProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.failures = new Queue(this, 'Failures', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    Validations.of(this.failures).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'It is a dead-letter queue itself: the on-failure destination of the scheduled functions and the ' +
        "schedules' dead-letter queue; nothing consumes it, so it needs none of its own.",
    });
    Validations.of(this.failures).acknowledge({
      id: 'Serverless-SQSRedrivePolicy',
      reason: 'It is a dead-letter queue itself: nothing consumes it, so nothing would redrive from it.',
    });
    // Scheduler's own condition keys: only this account's default schedule group may assume the role.
    this.role = new Role(this, 'SchedulerRole', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: {
          StringEquals: {
            'aws:SourceAccount': stack.account,
            'aws:SourceArn': stack.formatArn({
              service: 'scheduler',
              resource: 'schedule-group',
              resourceName: 'default',
            }),
          },
        },
      }),
      description: `Invokes the housekeeping functions of ${stack.stackName} on their schedules`,
    });

    const schedules: Record<string, Schedule> = {};
    for (const job of props.jobs) {
      const fnId = stack.getLogicalId(job.fn.node.defaultChild as CfnElement);
      Validations.of(this.role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${fnId}.Arn>:*]`,
        reason:
          "CDK's invoke grant names the function and its versions (`<arn>:*`): the role may invoke the " +
          'scheduled functions and nothing else.',
      });
      job.fn.configureAsyncInvoke({
        retryAttempts: 0,
        maxEventAge: HOUSEKEEPING_MAX_EVENT_AGE,
        onFailure: new SqsDestination(this.failures),
      });
      schedules[job.id] = new Schedule(this, job.id, {
        schedule: ScheduleExpression.rate(job.every),
        description: `${job.id} of ${stack.stackName}, every ${job.every.toHumanString()}`,
        target: new LambdaInvoke(job.fn, {
          role: this.role,
          retryAttempts: 0,
          maxEventAge: HOUSEKEEPING_MAX_EVENT_AGE,
          deadLetterQueue: this.failures,
        }),
      });
    }
    this.schedules = schedules;
  }
}
