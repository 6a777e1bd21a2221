import { randomBytes } from 'node:crypto';
import { hashToken } from '../access/index.ts';
import type { Db } from '../kernel/storage/database.ts';
import {
  type FeedScope,
  type FeedScopeSummary,
  getFeedToken,
  listFeedScopes,
  replaceFeedToken,
  type StoredFeedToken,
} from './feed-token-repository.ts';

/** A new calendar feed token: 256 random bits, shown once and stored only as a hash. */
const generateFeedToken = (): string => `ft_${randomBytes(32).toString('base64url')}`;

/** The longest token looked up: anything longer is no token of ours, and is not hashed. */
const MAX_FEED_TOKEN_LENGTH = 128;

/** A token that opens a feed, with its lookup hash (the feed's state is kept under it). */
export type ResolvedFeedToken = StoredFeedToken & { hash: string };

/** The stored token a presented one opens, or undefined (missing, malformed, rotated away or never made). */
export async function resolveFeedToken(db: Db, presented: unknown): Promise<ResolvedFeedToken | undefined> {
  if (typeof presented !== 'string' || presented === '' || presented.length > MAX_FEED_TOKEN_LENGTH)
    return undefined;
  const hash = hashToken(presented);
  const stored = await getFeedToken(db, hash);
  return stored ? { ...stored, hash } : undefined;
}

/** Makes a new token for a scope (the previous one stops working at once) and answers it, to be shown once. */
export async function rotateFeedToken(db: Db, options: { scope: FeedScope; now: number }): Promise<string> {
  const token = generateFeedToken();
  await replaceFeedToken(db, { scope: options.scope, tokenHash: hashToken(token), now: options.now });
  return token;
}

/** The scopes that have a token, without the tokens. */
export const listFeedTokens = (db: Db): Promise<FeedScopeSummary[]> => listFeedScopes(db);
