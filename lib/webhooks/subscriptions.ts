import type { StoredConfig } from '../config/index.ts';

/**
 * Whether an event name matches a pattern: `*` alone matches every event, a `*` segment matches one
 * word, and a trailing `.*` matches the rest (`booking.*` matches `booking.created`).
 */
export function matchesEvent(pattern: string, type: string): boolean {
  if (pattern === '*') return true;
  const want = pattern.split('.');
  const have = type.split('.');
  for (const [index, part] of want.entries()) {
    if (part === '*' && index === want.length - 1) return have.length > index;
    if (part !== '*' && part !== have[index]) return false;
    if (have[index] === undefined) return false;
  }
  return want.length === have.length;
}

/** The endpoints of the tenant file that are enabled and subscribe to an event. */
export const subscribersOf = (config: Pick<StoredConfig, 'webhooks'>, type: string): string[] =>
  config.webhooks
    .filter((webhook) => webhook.enabled && webhook.events.some((pattern) => matchesEvent(pattern, type)))
    .map((webhook) => webhook.id);

/**
 * How long to wait after the `failures`-th failure in a row (1-based): the schedule's delay with ±10 %
 * jitter, so receivers that come back are not hit by every sender at once; undefined once the schedule
 * is spent (the delivery has failed for good).
 */
export function retryDelayMs(
  retrySeconds: readonly number[],
  failures: number,
  random: number,
): number | undefined {
  const base = retrySeconds[failures - 1];
  if (base === undefined) return undefined;
  return Math.round(base * 1000 * (0.9 + 0.2 * random));
}
