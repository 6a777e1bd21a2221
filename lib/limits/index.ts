// The limits context's public entry: what other contexts, the functions and the CLIs use of it.

export type { GuessBudget } from './guesses.ts';
export { checkGuess } from './guesses.ts';
export type { WindowBudgets } from './repository.ts';
export { countRequestInWindow } from './repository.ts';
