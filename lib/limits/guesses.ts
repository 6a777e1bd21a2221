import { BudgetSpentError, DomainError } from '../kernel/errors.ts';
import { waitOf } from '../kernel/guest-words.ts';
import type { Db } from '../kernel/storage/database.ts';
import type { GuessKind } from '../kernel/storage/keys.ts';
import { unixSeconds } from '../kernel/time.ts';
import { returnGuessAttempt, takeGuessAttempt } from './repository.ts';

/** Wrong guesses are counted per client in fixed windows of this length. */
const GUESS_WINDOW_SECONDS = 3600;

/** Whose budget a guess is taken from, how large it is, and what the guest is told when it is spent. */
export interface GuessBudget {
  kind: GuessKind;
  /** The budget's owner: `client:<address>` for a guest, `credential:<key>` for a partner's own key. */
  client: string;
  /** Wrong guesses allowed in a window. */
  budget: number;
  now: number;
  /** What was guessed, in the guest's words: "gift certificate codes", "booking links". */
  guessed: string;
}

/**
 * Checks a guess under its owner's hourly budget: the guess takes an attempt before `check` runs (so a
 * burst of parallel guesses cannot overdraw it), and gives it back unless `check` refused it with a
 * DomainError, so only wrong guesses cost. With the budget spent, every guess, a right one too, is 429
 * `rate_limited` until the window ends: a script guessing learns nothing more.
 */
export async function checkGuess<T>(db: Db, guess: GuessBudget, check: () => Promise<T>): Promise<T> {
  const nowSeconds = unixSeconds(guess.now);
  const window = {
    kind: guess.kind,
    client: guess.client,
    windowStart: nowSeconds - (nowSeconds % GUESS_WINDOW_SECONDS),
  };
  const taken = await takeGuessAttempt(db, {
    ...window,
    windowSeconds: GUESS_WINDOW_SECONDS,
    budget: guess.budget,
  });
  if (!taken.admitted) {
    const retryAfter = window.windowStart + GUESS_WINDOW_SECONDS - nowSeconds;
    throw new BudgetSpentError(
      `Too many ${guess.guessed} tried in a short time; try again in ${waitOf(retryAfter)}`,
      {
        limit: guess.budget,
        retryAfter,
      },
    );
  }
  let refused = false;
  try {
    return await check();
  } catch (error) {
    refused = error instanceof DomainError;
    throw error;
  } finally {
    if (!refused) await returnGuessAttempt(db, window);
  }
}
