/** One global secondary index of the tenant table. */
export interface IndexDefinition {
  name: string;
  partitionKey: string;
  sortKey: string;
}

/**
 * The single tenant table, as data: CDK builds the AWS table from it and the local runner and the tests
 * create DynamoDB Local tables from it, so the two cannot drift. Every key attribute is a string.
 */
export const TABLE_DEFINITION = {
  partitionKey: 'pk',
  sortKey: 'sk',
  ttlAttribute: 'ttl',
  indexes: [
    // gsi1: the credentials list; the webhook endpoints list; session expiry by minute shard (sweeper); a
    // customer's bookings; a pending webhook delivery's place among its booking's, per endpoint.
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    // gsi2: bookings by status; pending webhook deliveries by due time.
    { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
    // gsi3: by month: bookings by creation, notes, stock counters (by day, then item), webhook events.
    // Customers by email use no index: a lookup record (`customerEmailKey`) points at the customer.
    { name: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk' },
  ] satisfies IndexDefinition[],
} as const;

/** Every key attribute the table or an index uses. */
export const KEY_ATTRIBUTES: string[] = [
  TABLE_DEFINITION.partitionKey,
  TABLE_DEFINITION.sortKey,
  ...TABLE_DEFINITION.indexes.flatMap((index) => [index.partitionKey, index.sortKey]),
];
