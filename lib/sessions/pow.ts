import { createHmac } from 'node:crypto';
import { type Challenge, createChallenge, randomInt, type Solution, verifySolution } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import { DomainError } from '../kernel/errors.ts';
import type { SlipKey } from '../slip/index.ts';
import { counterInWords, type RefusalAt } from './refusals.ts';

/** The ALTCHA (v2) algorithm of every challenge: PBKDF2/SHA-256, which browsers run natively. */
const POW_ALGORITHM = 'PBKDF2/SHA-256';

/** The tenant's challenge settings (`settings.pow`). */
export interface PowSettings {
  cost: number;
  max_counter: number;
  expires_seconds: number;
}

/** Who may use a challenge: the cart it was issued for ('' for a call that opens one) and its client. */
export interface PowBinding {
  session: string;
  client: string;
}

/** A verified solution, ready to be spent in the hold's transaction. */
export interface SolvedChallenge {
  nonce: string;
  expiresAt: number;
  /** The item-dates (counter ids) it lets the holder take under pressure. */
  counters: string[];
}

/** The largest `altcha` parameter read: a v2 payload is about 600 characters. */
export const MAX_POW_PAYLOAD = 2048;

/** The two ALTCHA secrets of a SLIP key: one signs challenges, one their keys (fast verification). */
const secretsOf = (key: SlipKey) => ({
  hmacSignatureSecret: createHmac('sha256', key.secret).update('altcha:signature').digest('hex'),
  hmacKeySignatureSecret: createHmac('sha256', key.secret).update('altcha:key').digest('hex'),
});

/**
 * A signed, expiring ALTCHA challenge that lets its binding (a cart and its client) hold the listed
 * item-dates under pressure once, signed with the newest SLIP key.
 */
export async function issueChallenge(options: {
  keys: readonly SlipKey[];
  settings: PowSettings;
  binding: PowBinding;
  counters: string[];
  now: number;
}): Promise<Challenge> {
  const key = options.keys[0];
  if (!key) throw new Error('No SLIP key to sign a challenge with');
  const max = options.settings.max_counter;
  return createChallenge({
    algorithm: POW_ALGORITHM,
    cost: options.settings.cost,
    counter: randomInt(Math.floor(max / 2), max),
    deriveKey,
    data: {
      session: options.binding.session,
      client: options.binding.client,
      counters: options.counters.join(','),
    },
    expiresAt: Math.floor(options.now / 1000) + options.settings.expires_seconds,
    ...secretsOf(key),
  });
}

/** 409 `challenge_required`, with a fresh challenge for the item-dates that need it and why. */
export async function challengeRequired(options: {
  keys: readonly SlipKey[];
  settings: PowSettings;
  binding: PowBinding;
  counters: string[];
  /** Where the first counter is named from, for the guest's words. */
  at: RefusalAt;
  now: number;
  reason: 'pressure' | 'invalid' | 'expired' | 'foreign' | 'spent' | 'other_dates';
}): Promise<DomainError> {
  const [first = ''] = options.counters;
  const [item = '', slot = ''] = first.split('|');
  const challenge = await issueChallenge(options);
  const { name, when } = counterInWords(first, options.at);
  return new DomainError(
    'challenge_required',
    options.reason === 'pressure'
      ? `Few of ${name} are left ${when}; complete the quick check to hold it`
      : 'The quick check could not be used; complete the new one to go on',
    {
      line: options.at.owners[first] ?? '',
      item_id: Number(item),
      date: slot.slice(0, 8),
      reason: options.reason,
      challenge,
    },
  );
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads an `altcha` parameter: base64 (or plain) JSON of `{challenge, solution}`, as ALTCHA submits it. */
function readPayload(raw: string): { challenge: Challenge; solution: Solution } | undefined {
  if (raw.length > MAX_POW_PAYLOAD) return undefined;
  for (const text of [raw, Buffer.from(raw, 'base64').toString('utf8')]) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (
        isRecord(parsed) &&
        isRecord(parsed.challenge) &&
        isRecord(parsed.challenge.parameters) &&
        isRecord(parsed.solution) &&
        typeof parsed.solution.derivedKey === 'string' &&
        typeof parsed.solution.counter === 'number'
      ) {
        return parsed as unknown as { challenge: Challenge; solution: Solution };
      }
    } catch {
      // Not this encoding: try the other.
    }
  }
  return undefined;
}

/**
 * Verifies an `altcha` solution for its binding: signed by one of the SLIP keys, not expired, issued to
 * this cart and client, and solved. Returns what it allows, or the reason it allows nothing.
 */
export async function verifyChallenge(options: {
  keys: readonly SlipKey[];
  payload: string;
  binding: PowBinding;
  now: number;
}): Promise<SolvedChallenge | { refused: 'invalid' | 'expired' | 'foreign' }> {
  const read = readPayload(options.payload);
  if (!read) return { refused: 'invalid' };
  const { parameters } = read.challenge;
  const { data } = parameters;
  if (parameters.algorithm !== POW_ALGORITHM || !isRecord(data)) return { refused: 'invalid' };
  for (const key of options.keys) {
    const result = await verifySolution({
      challenge: read.challenge,
      solution: read.solution,
      deriveKey,
      ...secretsOf(key),
    });
    if (result.invalidSignature) continue;
    // The library checks expiry on the wall clock; the domain's clock decides too.
    if (result.expired || (parameters.expiresAt ?? 0) <= Math.floor(options.now / 1000)) {
      return { refused: 'expired' };
    }
    if (!result.verified) return { refused: 'invalid' };
    if (data.session !== options.binding.session || data.client !== options.binding.client) {
      return { refused: 'foreign' };
    }
    return {
      nonce: parameters.nonce,
      expiresAt: parameters.expiresAt ?? 0,
      counters: String(data.counters ?? '')
        .split(',')
        .filter(Boolean),
    };
  }
  return { refused: 'invalid' };
}
