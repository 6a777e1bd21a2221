// The cart context's public entry: what other contexts, the functions and the CLIs use of it.

export type { AlterValue } from './alter.ts';
export { readAlter } from './alter.ts';
export {
  getClientHolds,
  holdClientUnitsAction,
  listUnpaidBookingsBefore,
  releaseClientUnitsAction,
} from './budget-repository.ts';
export {
  clientAllowance,
  keepBudgetActions,
  reholdCooldownOf,
  releaseBookingBudgetActions,
  releaseBudgetActions,
} from './budgets.ts';
export type { SessionContext } from './commit.ts';
export { releaseExpiredSession } from './expiry.ts';
export type { ExpiringSession } from './expiry-repository.ts';
export { listSessionsExpiringInMinute } from './expiry-repository.ts';
export { catchUpLines, holdsNowOf, totalHolds } from './line-holds.ts';
export type { LineContext } from './lines.ts';
export { makeLine, sessionActorOf } from './lines.ts';
export { MAX_POW_PAYLOAD } from './pow.ts';
export type { RefusalAt } from './refusals.ts';
export { holdLimitCounter, unavailableCounter } from './refusals.ts';
export type { SessionLine, StoredSession } from './repository.ts';
export { bookSessionAction, getSession } from './repository.ts';
export {
  addSlips,
  alterSession,
  clearSession,
  endSession,
  isExpired,
  isSessionId,
  lineAvailability,
  loadOpenSession,
  verifySlips,
} from './session.ts';
export { leaveZonesAfterBooking } from './zone-repository.ts';
