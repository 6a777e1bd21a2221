import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AttributeType, Billing, StreamViewType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { TABLE_DEFINITION } from '#lib/kernel/storage/table-definition.ts';

/** Props of the tenant table. */
export interface TenantTableProps {
  /** RETAIN (every stage but `dev`) also turns on point-in-time recovery and deletion protection. */
  removalPolicy: RemovalPolicy;
  /**
   * `deployment.table_generation`: the first table is `Table`, a later one `Table<n>`, so that raising it
   * makes CloudFormation create a new table (the old one, retained, leaves the stack).
   */
  generation?: number;
}

/**
 * The tenant's one DynamoDB table, built from the same definition as the local and test tables, with a
 * stream of new images for the webhook dispatcher; a retained table is also recoverable to any second of
 * the last 35 days and refuses deletion.
 */
export class TenantTable extends Construct {
  readonly table: TableV2;

  constructor(scope: Construct, id: string, props: TenantTableProps) {
    super(scope, id);
    const key = (name: string) => ({ name, type: AttributeType.STRING });
    const keep = props.removalPolicy === RemovalPolicy.RETAIN;
    const generation = props.generation ?? 1;
    this.table = new TableV2(this, generation === 1 ? 'Table' : `Table${generation}`, {
      partitionKey: key(TABLE_DEFINITION.partitionKey),
      sortKey: key(TABLE_DEFINITION.sortKey),
      billing: Billing.onDemand(),
      timeToLiveAttribute: TABLE_DEFINITION.ttlAttribute,
      // The webhook dispatcher runs on each delivery the outbox writes; it filters on the new image only.
      dynamoStream: StreamViewType.NEW_IMAGE,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: keep },
      deletionProtection: keep,
      removalPolicy: props.removalPolicy,
      globalSecondaryIndexes: TABLE_DEFINITION.indexes.map((index) => ({
        indexName: index.name,
        partitionKey: key(index.partitionKey),
        sortKey: key(index.sortKey),
      })),
    });
    if (!keep) {
      Validations.of(this.table).acknowledge({
        id: 'AwsSolutions-DDB3',
        reason: 'A dev table is disposable test data, destroyed with its stack: nothing to recover.',
      });
    }
  }
}
