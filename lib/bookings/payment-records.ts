import type { Db } from '../kernel/storage/database.ts';
import {
  bookingPaymentAttemptKey,
  PAYMENT_DUE_PARTITION,
  paymentDueKey,
  paymentDueUntil,
} from '../kernel/storage/keys.ts';
import { queryAll } from '../kernel/storage/operations.ts';
import type { TransactItem } from '../kernel/storage/transact.ts';
import type { CaptureMode, PaymentKind, PaymentProvider, PaymentState } from '../payments/index.ts';

// A booking's payment attempts (issue 43): one record per attempt, beside the booking in its partition, each
// written only on the version it was read at, so its state goes forward and never twice. And the mark of a
// booking awaiting payment, by its deadline, which the sweeper reads to let it lapse.

/** How a create reaches the guest's payment: the provider, and where the guest comes back to. */
export interface PaymentOptions {
  provider: PaymentProvider | undefined;
  /** After paying; `{checkout_id}` is replaced by the checkout's id. */
  returnUrl: string;
  /** On giving up. */
  cancelUrl: string;
}

/**
 * Where an attempt stands: `opening` until the provider's checkout is made (none if the provider failed),
 * then the provider's state (`pending` open, `failed` declined but may still pay, `authorised`, `captured`,
 * `cancelled`); `lapsed` when the deadline passed unpaid and the checkout was closed.
 */
export type AttemptStatus = 'opening' | PaymentState | 'lapsed';

/**
 * Whether an attempt still waits for the guest's money at its deadline: one cancelled at the provider (an
 * authorisation let go, a checkout closed early) took none, so what waits on it lapses like an unpaid one.
 */
export const awaitsMoney = (status: AttemptStatus): boolean =>
  status === 'opening' || status === 'pending' || status === 'failed' || status === 'cancelled';

/**
 * One refund of a payment (issue 43, item 5): through the provider (`provider`) or recorded by staff as paid
 * back by hand (`manual`, which the provider never hears of).
 */
export interface StoredRefund {
  refund_id: string;
  amount: number;
  method: 'provider' | 'manual';
  created: number;
}

/** What of an attempt's `refunded` staff paid back by hand: the provider's own figure never counts it. */
export const manualRefunded = (attempt: Pick<StoredPaymentAttempt, 'refunds'>): number =>
  (attempt.refunds ?? []).reduce((sum, refund) => sum + (refund.method === 'manual' ? refund.amount : 0), 0);

/** One payment attempt of a booking. */
export interface StoredPaymentAttempt {
  payment_id: string;
  booking_id: number;
  provider: string;
  kind: PaymentKind;
  /** What was asked, in minor units. */
  amount: number;
  currency: string;
  capture: CaptureMode;
  status: AttemptStatus;
  /** Taken at each change: a write applies only on the version it read. */
  version: number;
  /** Unix seconds: when the booking lets go of its stock if this is not paid (or authorised). */
  deadline: number;
  /** When the provider's checkout closes (the deadline, within the provider's bounds). */
  checkout_expires_at: number;
  checkout_id?: string;
  checkout_url?: string;
  provider_payment_id?: string;
  /** What the provider took, and gave back, in minor units. */
  captured: number;
  refunded: number;
  /** Each refund staff made, oldest first (a refund made in the provider's dashboard shows in `refunded` only). */
  refunds?: StoredRefund[];
  /** What of `captured` the booking's `paid_total` counts (captured less refunded, when it was kept). */
  applied: number;
  /** Where the guest comes back to after paying, and on giving up. */
  return_url: string;
  cancel_url: string;
  /**
   * `overpaid`: the provider took more than was asked (recorded, and left to staff); `stray`: a payment that
   * named an attempt but was not its own (another checkout, another currency), recorded and given back.
   */
  flag?: 'overpaid' | 'stray';
  /** Unix seconds: when the sweeper captures this authorisation (`capture_days_before_start`), if it is to. */
  capture_at?: number;
  /**
   * Staff voided or cancelled the booking while this held money, and kept it (`changeStatus`); account 0:
   * its guest cancelled it, and the business keeps what the cancellation policy keeps (issue 44).
   */
  kept?: { account_id: number; at: number };
  /** The provider's reason for the last decline. */
  failure?: string;
  created: number;
  updated: number;
}

/** A put of an attempt's record, on `condition`. */
const attemptPut = (
  db: Db,
  attempt: StoredPaymentAttempt,
  condition: Omit<NonNullable<TransactItem['Put']>, 'TableName' | 'Item'>,
): TransactItem => ({
  Put: {
    TableName: db.tableName,
    Item: {
      ...bookingPaymentAttemptKey(attempt.booking_id, attempt.payment_id),
      entity: 'payment_attempt',
      ...attempt,
    },
    ...condition,
  },
});

/** Writes a new attempt, only if its id is new. */
export const putAttemptAction = (db: Db, attempt: StoredPaymentAttempt): TransactItem =>
  attemptPut(db, attempt, { ConditionExpression: 'attribute_not_exists(pk)' });

/** Replaces an attempt with its next state, only if it is still at the version it was read at. */
export const replaceAttemptAction = (
  db: Db,
  attempt: StoredPaymentAttempt,
  readVersion: number,
): TransactItem =>
  attemptPut(db, attempt, {
    ConditionExpression: '#version = :version',
    ExpressionAttributeNames: { '#version': 'version' },
    ExpressionAttributeValues: { ':version': readVersion },
  });

/** Marks a booking as awaiting payment until `deadline` (the sweeper's work list). */
export function putPaymentDueAction(db: Db, options: { bookingId: number; deadline: number }): TransactItem {
  return {
    Put: {
      TableName: db.tableName,
      Item: {
        ...paymentDueKey(options.deadline, options.bookingId),
        entity: 'payment_due',
        booking_id: options.bookingId,
        deadline: options.deadline,
      },
    },
  };
}

/** Takes a booking off the sweeper's work list (paid, authorised or lapsed). */
export function deletePaymentDueAction(
  db: Db,
  options: { bookingId: number; deadline: number },
): TransactItem {
  return { Delete: { TableName: db.tableName, Key: paymentDueKey(options.deadline, options.bookingId) } };
}

/** The bookings awaiting payment whose deadline is `nowSeconds` or earlier, oldest first (one query). */
export async function listPaymentsDue(
  db: Db,
  nowSeconds: number,
): Promise<{ booking_id: number; deadline: number }[]> {
  const records = await queryAll(db, {
    KeyConditionExpression: 'pk = :pk AND sk <= :until',
    ExpressionAttributeValues: { ':pk': PAYMENT_DUE_PARTITION, ':until': paymentDueUntil(nowSeconds) },
  });
  return records.map((record) => ({
    booking_id: Number(record.booking_id),
    deadline: Number(record.deadline),
  }));
}
