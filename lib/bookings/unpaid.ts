import type { Caller } from '../access/index.ts';
import type { StoredConfig } from '../config/index.ts';
import { DomainError } from '../kernel/errors.ts';
import type { Db } from '../kernel/storage/database.ts';
import { unixSeconds } from '../kernel/time.ts';
import { listUnpaidBookingsBefore } from '../sessions/index.ts';
import { isInactive } from './booking.ts';
import { changeStatus } from './status.ts';

/** The service itself, acting on a booking: account 0, with staff's view of every booking. */
export const SERVICE: Caller = {
  kind: 'staff',
  credentialKey: 'service',
  accountId: 0,
  credentialAccountId: 0,
};

/** The status a customer's booking starts in when something is due: the tenant's first active one. */
export const firstActiveStatus = (config: StoredConfig): string =>
  config.statuses.map((status) => status.status_id).find((status) => !isInactive(status)) ?? 'PEND';

/**
 * Voids the customers' bookings still unpaid and unconfirmed `settings.void_unpaid_after_hours` after they
 * were made (none when the setting is 0), found by their marks (one query, whatever their age or status):
 * each in its own transaction with its event (`booking.status_changed`, reason `unpaid`) and webhooks, its
 * stock released and its client's budget given back, and only if it is still unpaid when voided. Answers
 * how many it voided.
 */
export async function voidUnpaidBookings(
  db: Db,
  options: { config: StoredConfig; now: number },
): Promise<number> {
  const hours = options.config.settings.void_unpaid_after_hours;
  if (!hours) return 0;
  const ids = await listUnpaidBookingsBefore(db, unixSeconds(options.now) - Math.round(hours * 3600));
  let voided = 0;
  for (const id of ids) {
    try {
      await changeStatus(
        { db, config: options.config, keys: [], caller: SERVICE, requester: '', now: options.now },
        {
          reference: String(id),
          statusId: 'VOID',
          notify: true,
          reason: 'unpaid',
          ifUnpaid: true,
        },
      );
      voided += 1;
    } catch (error) {
      // Paid or confirmed meanwhile (its mark went with its budget), or gone: nothing to void.
      if (!(error instanceof DomainError && ['invalid_status', 'not_found'].includes(error.code)))
        throw error;
    }
  }
  return voided;
}
