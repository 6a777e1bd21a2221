import {
  IdempotencyAlreadyInProgressError,
  IdempotencyConfig,
  IdempotencyValidationError,
  makeIdempotent,
} from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { Db } from '../kernel/storage/database.ts';
import { IdempotencyKeyError } from './idempotency-key-error.ts';

/** How long a result is replayed for its key. */
export const IDEMPOTENCY_SECONDS = 24 * 3600;

/**
 * How much longer than the caller's remaining time a key stays claimed: a process that crashed (or timed
 * out) leaves its claim, which another request may take once the lease is over, never while the first
 * could still be running.
 */
export const LEASE_MARGIN_MS = 5_000;

/** What identifies and checks one idempotent call. */
export interface IdempotentCall {
  /** What the key is scoped with (the session), so equal keys of different carts never meet. */
  scope: string;
  key: string;
  /** A hash of the request: the same key with another request is refused. */
  requestHash: string;
  /** Milliseconds the caller has left (its Lambda deadline); the claim's lease ends a little after. */
  remainingMs: number;
}

/**
 * Runs `work` once per scoped key with the Powertools Idempotency utility (records in the tenant table,
 * partition `IDEMPOTENCY`): the first result is stored and replayed for 24 hours; a key still being
 * processed is `in_progress` until its lease ends; the same key with another request is
 * `idempotency_mismatch`; a failed `work` releases its key, so a corrected retry can run.
 */
export async function runOnceOrReplay<T>(db: Db, call: IdempotentCall, work: () => Promise<T>): Promise<T> {
  const persistenceStore = new DynamoDBPersistenceLayer({
    tableName: db.tableName,
    keyAttr: 'pk',
    sortKeyAttr: 'sk',
    staticPkValue: 'IDEMPOTENCY',
    expiryAttr: 'ttl',
    awsSdkV3Client: db.base,
  });
  const config = new IdempotencyConfig({
    eventKeyJmesPath: '[scope, key]',
    payloadValidationJmesPath: 'requestHash',
    expiresAfterSeconds: IDEMPOTENCY_SECONDS,
  });
  // The lease is what the library takes from a Lambda context: the time left, plus a margin.
  config.registerLambdaContext({
    getRemainingTimeInMillis: () => call.remainingMs + LEASE_MARGIN_MS,
  } as Parameters<IdempotencyConfig['registerLambdaContext']>[0]);
  // The stored result is what a replay returns: keep exactly its JSON, so saving it can never fail after
  // the work (a booking) is done.
  const idempotent = makeIdempotent(
    async (_payload: Omit<IdempotentCall, 'remainingMs'>) => JSON.parse(JSON.stringify(await work())) as T,
    {
      persistenceStore,
      config,
      keyPrefix: 'booking-create',
    },
  );
  try {
    return (await idempotent({ scope: call.scope, key: call.key, requestHash: call.requestHash })) as T;
  } catch (error) {
    if (error instanceof IdempotencyAlreadyInProgressError)
      throw new IdempotencyKeyError('in_progress', { key: call.key, cause: error });
    if (error instanceof IdempotencyValidationError) {
      throw new IdempotencyKeyError('idempotency_mismatch', { key: call.key, cause: error });
    }
    throw error;
  }
}
