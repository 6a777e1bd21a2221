import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** A document client bound to the tenant table: what every repository takes. */
export interface Db {
  client: DynamoDBDocumentClient;
  /** The low-level client under `client`, for libraries that marshal their own items (Powertools). */
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
  const base = options.instrument ? options.instrument(created) : created;
  const client = DynamoDBDocumentClient.from(base, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  return { client, base, tableName: options.tableName };
}

/** Whether an endpoint is on this machine; test setup refuses anything else. */
export function isLocalEndpoint(endpoint: string | undefined): boolean {
  if (!endpoint) return false;
  const host = new URL(endpoint).hostname;
  return host === 'localhost' || host === '::1' || host === '[::1]' || host.startsWith('127.');
}
