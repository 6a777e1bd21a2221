import { Duration, Validations } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { FilterCriteria, FilterRule, type IFunction, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { WEBHOOK_DUE } from '#lib/kernel/storage/keys.ts';

/** Props of the webhook dispatch. */
export interface WebhookDispatchProps {
  /** The tenant table; it must have a stream with new images. */
  table: ITableV2;
  dispatcher: IFunction;
}

/**
 * What runs the webhook dispatcher on the table's stream as soon as a due delivery is written (first
 * attempts and replays within seconds), with failed batches dead-lettered to a queue. Retries become due
 * later without a new stream record: the housekeeping schedule runs the dispatcher every minute for them.
 */
export class WebhookDispatch extends Construct {
  /** Where failed stream batches go: pointers to stream records (the deliveries stay in the table). */
  readonly deadLetterQueue: Queue;
  readonly streamSource: DynamoEventSource;

  constructor(scope: Construct, id: string, props: WebhookDispatchProps) {
    super(scope, id);
    this.deadLetterQueue = new Queue(this, 'DeadLetters', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        "It is a dead-letter queue: the stream mapping's on-failure destination, which cdk-nag only " +
        'recognises as a redrive target of another queue.',
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'Serverless-SQSRedrivePolicy',
      reason: 'It is a dead-letter queue itself: nothing consumes it, so nothing would redrive from it.',
    });
    this.streamSource = new DynamoEventSource(props.table, {
      startingPosition: StartingPosition.LATEST,
      batchSize: 100,
      maxBatchingWindow: Duration.seconds(1),
      retryAttempts: 3,
      bisectBatchOnError: true,
      onFailure: new SqsDlq(this.deadLetterQueue),
      // Only a delivery written as due (the outbox's insert, a replay, a rescheduled retry): every other
      // write to the table, and a delivery that is done (it loses gsi2pk), invokes nothing.
      filters: [
        FilterCriteria.filter({
          eventName: FilterRule.or('INSERT', 'MODIFY'),
          dynamodb: {
            NewImage: {
              entity: { S: FilterRule.isEqual('webhook_delivery') },
              gsi2pk: { S: FilterRule.isEqual(WEBHOOK_DUE) },
            },
          },
        }),
      ],
    });
    props.dispatcher.addEventSource(this.streamSource);
  }
}
