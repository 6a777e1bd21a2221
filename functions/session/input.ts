import * as z from 'zod/mini';
import { asList } from '#lib/http/parse.ts';
import { type SessionSource, sessionIdOf } from '#lib/http/session-cookie.ts';
import { noParameters, parseInput } from '#lib/http/validate.ts';
import { type AlterValue, MAX_POW_PAYLOAD, readAlter } from '#lib/sessions/index.ts';

const slipValue = z.string().check(z.maxLength(4096));

export const sessionSchema = z.strictObject({
  slip: z.optional(z.union([slipValue, z.array(slipValue), z.record(z.string(), slipValue)])),
  alter: z.optional(z.record(z.string(), z.union([z.string().check(z.maxLength(16)), z.number()]))),
  altcha: z.optional(z.string().check(z.maxLength(MAX_POW_PAYLOAD))),
});

/** A validated `booking/session` request: SLIPs to add, changes to make, or neither (a read). */
export interface SessionRequest {
  sessionId?: string;
  source: SessionSource;
  slips: string[];
  changes: { lineId: string; value: AlterValue }[];
  /** A solved proof-of-work challenge (ALTCHA payload), for holds of an item-date under pressure. */
  altcha?: string;
}

/** Reads `booking/session` input (session_id or the cookie, slip or slip[], alter[line]). */
export function readSessionRequest(
  input: Record<string, unknown>,
  cookies: Record<string, string>,
): SessionRequest {
  const { sessionId, source } = sessionIdOf(input, cookies);
  const parsed = parseInput(sessionSchema, input);
  return {
    ...(sessionId ? { sessionId } : {}),
    source,
    slips: asList(parsed.slip).map(String),
    changes: Object.entries(parsed.alter ?? {}).map(([lineId, value]) => readAlter(lineId, value)),
    ...(parsed.altcha ? { altcha: parsed.altcha } : {}),
  };
}

/** Reads the session id of `clear` and `end` and its source (nothing else is accepted). */
export function readSessionId(
  input: Record<string, unknown>,
  cookies: Record<string, string>,
): { sessionId?: string; source: SessionSource } {
  const found = sessionIdOf(input, cookies);
  parseInput(noParameters, input);
  return found;
}
