import type { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';

/** Props of a function's schedule: the function, how often, and the rule's construct id. */
export interface FunctionScheduleProps {
  fn: IFunction;
  every: Duration;
  /** The rule's id (`EveryMinute`, `EveryFiveMinutes`): part of its logical id, so kept as deployed. */
  ruleId: string;
}

/**
 * Runs a function at a fixed rate, never retried by EventBridge (the next run takes over): the sweeper
 * every minute, channel sync every five minutes (within the range channels themselves poll at).
 */
export class FunctionSchedule extends Construct {
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: FunctionScheduleProps) {
    super(scope, id);
    this.rule = new Rule(this, props.ruleId, {
      schedule: Schedule.rate(props.every),
      targets: [new LambdaFunction(props.fn, { retryAttempts: 0 })],
    });
  }
}
