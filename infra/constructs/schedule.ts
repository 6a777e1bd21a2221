import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';

/** Props of the channel sync schedule. */
export interface ChannelSyncScheduleProps {
  channelSync: IFunction;
}

/** Runs channel sync every five minutes, within the range channels themselves poll at. */
export class ChannelSyncSchedule extends Construct {
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: ChannelSyncScheduleProps) {
    super(scope, id);
    this.rule = new Rule(this, 'EveryFiveMinutes', {
      schedule: Schedule.rate(Duration.minutes(5)),
      targets: [new LambdaFunction(props.channelSync, { retryAttempts: 0 })],
    });
  }
}

/** Props of the sweeper schedule. */
export interface SweepScheduleProps {
  sweeper: IFunction;
}

/** Runs the session sweeper every minute. */
export class SweepSchedule extends Construct {
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: SweepScheduleProps) {
    super(scope, id);
    this.rule = new Rule(this, 'EveryMinute', {
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [new LambdaFunction(props.sweeper, { retryAttempts: 0 })],
    });
  }
}
