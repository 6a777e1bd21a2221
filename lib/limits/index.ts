// The limits context's public entry: what other contexts, the functions and the CLIs use of it.

export type { WindowBudgets } from './repository.ts';
export { countRequestInWindow, returnGiftcertAttempt, takeGiftcertAttempt } from './repository.ts';
