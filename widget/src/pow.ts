import { type Challenge, solveChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/web/pbkdf2';

/** How long a guest's browser may work on one challenge before the widget gives up and says so. */
const SOLVE_TIMEOUT_MS = 30_000;

/**
 * Solves an ALTCHA challenge the API sent with `challenge_required` (ALTCHA's own solver, PBKDF2 through
 * WebCrypto, which runs the hashing off the page's main thread) and returns the `altcha` payload to send
 * back, or undefined when this browser cannot (no WebCrypto outside a secure context, or a timeout).
 */
export async function solveAltcha(challenge: Challenge): Promise<string | undefined> {
  if (!globalThis.crypto?.subtle) return undefined;
  const solution = await solveChallenge({ challenge, deriveKey, timeout: SOLVE_TIMEOUT_MS });
  return solution ? btoa(JSON.stringify({ challenge, solution })) : undefined;
}
