import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Db } from './database.ts';

/** One action of a transaction, as the document client takes it. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** The most actions DynamoDB takes in one transaction. */
export const MAX_TRANSACTION_ACTIONS = 100;

/** A transaction refused because conditions failed; `failed` holds the indexes of those actions. */
export class ConditionsFailedError extends Error {
  readonly code = 'conditions_failed';
  readonly failed: number[];

  constructor(failed: number[]) {
    super(`Transaction conditions failed at ${failed.join(', ')}`);
    this.name = 'ConditionsFailedError';
    this.failed = failed;
  }
}

/** A transaction that kept conflicting with other writers after every retry. */
export class ContentionError extends Error {
  readonly code = 'busy';

  constructor(options?: { cause?: unknown }) {
    super('Write contention persisted after retries', options);
    this.name = 'ContentionError';
  }
}

/** How a transaction retries conflicts: attempts and jittered backoff. */
export interface RetryPolicy {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  sleep?: (ms: number) => Promise<void>;
}

const DEFAULT_RETRY: RetryPolicy = { attempts: 5, baseDelayMs: 25, maxDelayMs: 400 };

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs a TransactWriteItems. Only a failed condition means the caller's rule was broken: it throws
 * `ConditionsFailedError` with the failing action indexes. A conflict with another writer is retried
 * with full-jitter exponential backoff and ends, if it persists, in `ContentionError`.
 */
export async function transact(
  db: Db,
  items: TransactItem[],
  policy: RetryPolicy = DEFAULT_RETRY,
): Promise<void> {
  const sleep = policy.sleep ?? wait;
  for (let attempt = 1; ; attempt += 1) {
    try {
      await db.documents.send(new TransactWriteCommand({ TransactItems: items }));
      return;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = error.CancellationReasons ?? [];
      const failed = reasons.flatMap((reason, index) =>
        reason.Code === 'ConditionalCheckFailed' ? [index] : [],
      );
      if (failed.length) throw new ConditionsFailedError(failed);
      const retryable = reasons.some(
        (reason) => reason.Code === 'TransactionConflict' || reason.Code === 'ThrottlingError',
      );
      if (!retryable) throw error;
      if (attempt >= policy.attempts) throw new ContentionError({ cause: error });
      const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
      await sleep(Math.random() * ceiling);
    }
  }
}

/** An action of a transaction with what it stands for, so a failed condition is told by name. */
export interface NamedAction<R> {
  role: R;
  action: TransactItem;
}

/** What one attempt decided: write these actions (and return `result`), or nothing is left to write. */
export type Attempt<T, R> = { write: NamedAction<R>[]; result: T } | { done: T };

/**
 * The one read → transact → retry loop. `attempt` reads and builds the named actions; the transaction
 * runs them; when conditions fail, `onFailed` gets the roles of the failed actions and throws the error
 * they mean, or returns to read and build again (someone changed what was read). Persistent failures end
 * in `ContentionError` (503 busy).
 */
export async function commitWithRetry<T, R>(
  db: Db,
  options: {
    attempt: (attempt: number) => Promise<Attempt<T, R>>;
    onFailed: (failed: R[], attempt: number) => Promise<void> | void;
    attempts?: number;
    retry?: RetryPolicy;
  },
): Promise<T> {
  const attempts = options.attempts ?? 5;
  for (let attempt = 1; ; attempt += 1) {
    const built = await options.attempt(attempt);
    if ('done' in built) return built.done;
    try {
      await transact(
        db,
        built.write.map((entry) => entry.action),
        options.retry,
      );
      return built.result;
    } catch (error) {
      if (!(error instanceof ConditionsFailedError)) throw error;
      const failed = error.failed.flatMap((index) => {
        const entry = built.write[index];
        return entry ? [entry.role] : [];
      });
      await options.onFailed(failed, attempt);
      if (attempt >= attempts) throw new ContentionError({ cause: error });
    }
  }
}

/** The actions of `role`, each named by it. */
export const named = <R>(role: R, actions: TransactItem[]): NamedAction<R>[] =>
  actions.map((action) => ({ role, action }));

/**
 * Runs transactions over groups of `size` entries, each entry some named actions; a group refused for a
 * failed condition loses the entries whose conditions failed (`onRefused` is told the roles of the entry's
 * actions that failed) and is retried with the rest, so one refused entry never holds back the others.
 */
export async function transactInGroups<S, R>(
  db: Db,
  entries: S[],
  options: {
    size: number;
    actionsOf: (entry: S) => NamedAction<R>[];
    onApplied?: (entry: S) => void;
    /** The roles of the entry's actions whose conditions failed. */
    onRefused?: (entry: S, failed: R[]) => void;
  },
): Promise<void> {
  for (let start = 0; start < entries.length; start += options.size) {
    let group = entries.slice(start, start + options.size);
    while (group.length) {
      const owners: { entry: S; role: R }[] = [];
      const actions = group.flatMap((entry) =>
        options.actionsOf(entry).map(({ role, action }) => {
          owners.push({ entry, role });
          return action;
        }),
      );
      try {
        await transact(db, actions);
        for (const entry of group) options.onApplied?.(entry);
        break;
      } catch (error) {
        if (!(error instanceof ConditionsFailedError)) throw error;
        const refused = new Map<S, R[]>();
        for (const failed of error.failed) {
          const owner = owners[failed];
          if (owner) refused.set(owner.entry, [...(refused.get(owner.entry) ?? []), owner.role]);
        }
        for (const [entry, failed] of refused) options.onRefused?.(entry, failed);
        group = group.filter((entry) => !refused.has(entry));
      }
    }
  }
}
