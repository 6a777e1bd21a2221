import type { StoredConfig } from '../config/index.ts';
import { addDays, localInstant } from '../kernel/dates.ts';
import type { Db } from '../kernel/storage/database.ts';
import { PAYMENT_CAPTURE_PARTITION, paymentCaptureKey, paymentDueUntil } from '../kernel/storage/keys.ts';
import { queryAll } from '../kernel/storage/operations.ts';
import type { TransactItem } from '../kernel/storage/transact.ts';
import { unixSeconds } from '../kernel/time.ts';
import { paymentSettingsOf } from './payment-open.ts';
import type { StoredBooking } from './repository.ts';

// When an authorisation is to be captured by the sweeper (issue 43 item 2, `capture_days_before_start`), and
// its mark, written in the transaction that records the authorisation and deleted in the one that records it
// captured or cancelled, so the sweeper reads its work in time order and never scans.

/**
 * How long a card authorisation made online by the guest lasts at Stripe (7 days for every brand; Visa's 5
 * days are for merchant-initiated ones), after which the provider cancels it and the money is lost.
 */
export const AUTHORISATION_DAYS = 7;
/** Captured this long before the authorisation's end at the latest: a day of sweeps to retry a failing provider. */
export const CAPTURE_MARGIN_DAYS = 1;

/**
 * When the sweeper captures an authorisation made at `authorisedAt` (Unix seconds), or undefined when the
 * tenant leaves capture to staff: the local midnight `capture_days_before_start` days before the booking's
 * first date (in the tenant's time zone), or, when that is too far ahead for the authorisation to last, a
 * day before it would expire (docs/decisions.md, issue 43 item 2).
 */
export function scheduledCaptureAt(
  config: StoredConfig,
  booking: Pick<StoredBooking, 'start_date'>,
  authorisedAt: number,
): number | undefined {
  const days = paymentSettingsOf(config).capture_days_before_start;
  if (days === undefined) return undefined;
  const latest = authorisedAt + (AUTHORISATION_DAYS - CAPTURE_MARGIN_DAYS) * 86_400;
  if (!booking.start_date) return latest;
  const beforeStart = unixSeconds(
    localInstant(addDays(booking.start_date, -days), 0, config.company.timezone),
  );
  return Math.min(beforeStart, latest);
}

/** One authorised payment the sweeper is to capture at `capture_at`. */
export interface CaptureMark {
  booking_id: number;
  payment_id: string;
  capture_at: number;
}

/** Puts an authorised payment on the sweeper's capture list at `capture_at`. */
export function putCaptureMarkAction(db: Db, mark: CaptureMark): TransactItem {
  return {
    Put: {
      TableName: db.tableName,
      Item: {
        ...paymentCaptureKey(mark.capture_at, mark.booking_id, mark.payment_id),
        entity: 'payment_capture',
        ...mark,
      },
    },
  };
}

/** Takes a payment off the sweeper's capture list (captured, cancelled, or its booking let go). */
export function deleteCaptureMarkAction(db: Db, mark: CaptureMark): TransactItem {
  return {
    Delete: {
      TableName: db.tableName,
      Key: paymentCaptureKey(mark.capture_at, mark.booking_id, mark.payment_id),
    },
  };
}

/** The authorised payments to capture at `nowSeconds` or earlier, oldest first (one query). */
export async function listCapturesDue(db: Db, nowSeconds: number): Promise<CaptureMark[]> {
  const records = await queryAll(db, {
    KeyConditionExpression: 'pk = :pk AND sk <= :until',
    ExpressionAttributeValues: { ':pk': PAYMENT_CAPTURE_PARTITION, ':until': paymentDueUntil(nowSeconds) },
  });
  return records.map((record) => ({
    booking_id: Number(record.booking_id),
    payment_id: String(record.payment_id),
    capture_at: Number(record.capture_at),
  }));
}
