import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';

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
