import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** A document client bound to the tenant table: what every repository takes. */
export interface Db {
  /** The document client: what the repositories send their commands through. */
  documents: DynamoDBDocumentClient;
  /** The low-level client under `documents`, for libraries that marshal their own items (Powertools). */
  base: DynamoDBClient;
  tableName: string;
}

/** Where the table is: AWS by default, or a local endpoint such as DynamoDB Local. */
export interface DbOptions {
  tableName: string;
  endpoint?: string;
  region?: string;
  /** Instruments the low-level client before the document client wraps it (the tracer's capture). */
  instrument?: (client: DynamoDBClient) => DynamoDBClient;
}

/** The name of the AWS SDK's logging middleware, which every client gets by default. */
export const SDK_LOGGER_MIDDLEWARE = 'loggerMiddleware';

/** Builds the document client once per process (module scope in Lambda). */
export function createDb(options: DbOptions): Db {
  const local = options.endpoint !== undefined;
  const created = new DynamoDBClient({
    ...(local
      ? {
          endpoint: options.endpoint,
          region: options.region ?? 'local',
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }
      : { region: options.region }),
    maxAttempts: 3,
  });
  // The SDK's logger middleware runs the schema's log filter over every call's input and output before
  // handing them to its logger, a no-op unless one is configured (none is here): about a fifth of a
  // call's client CPU, more for a query that returns many items (docs/performance.md).
  created.middlewareStack.remove(SDK_LOGGER_MIDDLEWARE);
  const base = options.instrument ? options.instrument(created) : created;
  const client = DynamoDBDocumentClient.from(base, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  return { documents: client, base, tableName: options.tableName };
}
