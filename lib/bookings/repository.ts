import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { StoredEvent } from '../kernel/events.ts';
import type { Db } from '../kernel/storage/database.ts';
import {
  bookingCodeKey,
  bookingEventKey,
  bookingIndexKeys,
  bookingKey,
  bookingNoteKey,
  bookingPartition,
  bookingPaymentKey,
  bookmarkKey,
  noteIndexKeys,
  PAYMENT_ATTEMPT_PREFIX,
} from '../kernel/storage/keys.ts';
import { queryAll, stripKeys } from '../kernel/storage/operations.ts';
import type { TransactItem } from '../kernel/storage/transact.ts';
import type { SessionLine } from '../sessions/index.ts';
import type { CancellationSnapshot } from './cancellation.ts';
import type { StoredPaymentAttempt } from './payment-records.ts';

/** Money of a booking, in minor units. */
export interface BookingTotals {
  sub_total: number;
  discount: number;
  tax: number;
  tax_included: number;
  total: number;
}

/** A booking as stored. Its lines and holds are the session's, handed over when it was booked. */
export interface StoredBooking {
  booking_id: number;
  code: string;
  token: string;
  status_id: string;
  version: number;
  /** Unix seconds. */
  created_date: number;
  last_modified: number;
  customer_id: number;
  /** What was entered on the form, kept as the booking's own snapshot. */
  form: Record<string, string>;
  lines: Record<string, SessionLine>;
  holds: Record<string, number>;
  totals: BookingTotals;
  paid_total: number;
  giftcert?: { code: string; amount: number };
  checked_in: number;
  checked_out: number;
  start_date: string;
  end_date: string;
  /** Unix seconds of the local midnight starting `start_date` and `end_date`, for list filters. */
  start_at: number;
  end_at: number;
  /**
   * Unix seconds of the local midnight starting the last booked day (a nightly stay's last night, not its
   * check-out day), for the overlap of list windows; absent on bookings made before it existed.
   */
  last_at?: number;
  /** The partner account the booking is attributed to (made with its credential, or on its behalf). */
  partner_id?: number;
  /**
   * The account whose credential entered the booking (staff, a partner, or staff on its behalf); 0 for a
   * customer's create (the public form, or `X-On-Behalf: off`). Absent on bookings made before it existed,
   * which count as a customer's.
   */
  entered_by?: number;
  /**
   * While a customer's booking is unpaid and unconfirmed: the client whose budgets it counts against and
   * the units it counts there (its cart's holds, handed over with it). Gone once paid, confirmed by staff,
   * voided or cancelled.
   */
  budget?: { client: string; holds: Record<string, number> };
  /** The taxes as they were when it was sold (names and rates for the invoice); absent on older bookings. */
  taxes?: { tax_id: string; name: string; rate: number; inclusive?: boolean }[];
  /** The distinct items of its lines, for the item filter. */
  item_ids: number[];
  session_id?: string;
  /**
   * What the guest was asked to pay at booking (`settings.payment`, issue 43): the current attempt, its kind
   * and amount, and the deadline by which the booking lets go of its stock unpaid. Absent when nothing was.
   */
  payment?: { payment_id: string; kind: 'deposit' | 'full'; amount: number; deadline: number };
  /**
   * The cancellation policies it was sold under (issue 44), as they were then: a later change of the tenant
   * file never changes them. Absent when none applied, and on bookings made before they were kept.
   */
  cancellation_policy?: CancellationSnapshot;
  /**
   * Money paid that the policy kept when a change lowered the price (issue 44): beyond the total, and not
   * the guest's to have back on a later cancel. Absent while none was.
   */
  change_kept?: number;
  /** A change that waits for its price difference to be paid, its new stock held meanwhile (issue 44). */
  change?: PendingChange;
}

/**
 * A change of dates or party waiting for its payment: the booking as it will be, and the attempt and deadline
 * it waits on. Meanwhile the booking's `holds` are the larger of what it held and what it will hold, per
 * counter, so whatever lets go of the booking's stock (a cancel, the sweeper at the deadline) lets go of both.
 */
export interface PendingChange {
  /** The quote it was made from. */
  quote: string;
  payment_id: string;
  /** Unix seconds. */
  deadline: number;
  /** What the booking held before it. */
  from_holds: Record<string, number>;
  /** Who asked: 0 the guest, else the staff account. */
  by: number;
  to: Pick<
    StoredBooking,
    | 'lines'
    | 'holds'
    | 'totals'
    | 'taxes'
    | 'start_date'
    | 'end_date'
    | 'start_at'
    | 'end_at'
    | 'last_at'
    | 'item_ids'
    | 'cancellation_policy'
  >;
}

/** A note on a booking. */
export interface StoredNote {
  note_id: string;
  account_id: number;
  date: string;
  body: string;
  private: number;
}

/** A payment recorded on a booking. */
export interface StoredPayment {
  transaction_id: string;
  amount: number;
  method: string;
  account_id: number;
  date: number;
}

/** A booking with everything in its partition. */
export interface BookingRecord {
  booking: StoredBooking;
  notes: StoredNote[];
  events: StoredEvent[];
  payments: StoredPayment[];
  bookmarks: number[];
  /** Its payment attempts at a provider (issue 43). */
  attempts?: StoredPaymentAttempt[];
}

/** Reads a booking with its notes, events, payments and bookmarks in one query. */
export async function getBookingRecord(db: Db, bookingId: number): Promise<BookingRecord | undefined> {
  const records = await queryAll(db, {
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': bookingPartition(bookingId) },
    ConsistentRead: true,
  });
  const main = records.find((record) => record.sk === 'BOOKING');
  if (!main) return undefined;
  const of = (prefix: string) => records.filter((record) => String(record.sk).startsWith(prefix));
  return {
    booking: stripKeys<StoredBooking>(main),
    notes: of('NOTE#').map((record) => stripKeys<StoredNote>(record)),
    events: of('EVENT#').map((record) => stripKeys<StoredEvent>(record)),
    payments: of('PAYMENT#').map((record) => stripKeys<StoredPayment>(record)),
    bookmarks: of('BOOKMARK#').map((record) => Number(record.account_id)),
    attempts: of(PAYMENT_ATTEMPT_PREFIX).map((record) => stripKeys<StoredPaymentAttempt>(record)),
  };
}

/** The booking id of a booking code. */
export async function getBookingIdByCode(db: Db, code: string): Promise<number | undefined> {
  const { Item } = await db.documents.send(
    new GetCommand({ TableName: db.tableName, Key: bookingCodeKey(code) }),
  );
  return Item ? Number(Item.booking_id) : undefined;
}

const bookingItem = (booking: StoredBooking) => ({
  ...bookingKey(booking.booking_id),
  entity: 'booking',
  ...booking,
  ...bookingIndexKeys(booking),
});

/** Writes a new booking, its code and its index keys. */
export function createBookingActions(db: Db, booking: StoredBooking): TransactItem[] {
  return [
    {
      Put: {
        TableName: db.tableName,
        Item: bookingItem(booking),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: db.tableName,
        Item: { ...bookingCodeKey(booking.code), entity: 'booking_code', booking_id: booking.booking_id },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
}

/** Replaces a booking, only if nobody changed it since it was read (its version). */
export function replaceBookingAction(db: Db, booking: StoredBooking, previousVersion: number): TransactItem {
  return {
    Put: {
      TableName: db.tableName,
      Item: bookingItem(booking),
      ConditionExpression: '#version = :version',
      ExpressionAttributeNames: { '#version': 'version' },
      ExpressionAttributeValues: { ':version': previousVersion },
    },
  };
}

/**
 * Takes an unpaid booking's `budget` off it, only while it is at `version` and still has one: the first
 * half of a change too large for one transaction (see `changeBooking`), which leaves the version as it is.
 */
export function dropBudgetAction(db: Db, options: { bookingId: number; version: number }): TransactItem {
  return {
    Update: {
      TableName: db.tableName,
      Key: bookingKey(options.bookingId),
      UpdateExpression: 'REMOVE budget',
      ConditionExpression: '#version = :version AND attribute_exists(budget)',
      ExpressionAttributeNames: { '#version': 'version' },
      ExpressionAttributeValues: { ':version': options.version },
    },
  };
}

/** Appends an event to a booking's audit trail. */
export function putEventAction(db: Db, bookingId: number, event: StoredEvent): TransactItem {
  return {
    Put: {
      TableName: db.tableName,
      Item: {
        ...bookingEventKey(bookingId, event.at, event.event_id),
        entity: 'event',
        booking_id: bookingId,
        ...event,
      },
    },
  };
}

/** Adds a note to a booking. */
export function putNoteAction(
  db: Db,
  booking: { booking_id: number; code: string; partner_id?: number },
  note: StoredNote,
  at: number,
): TransactItem {
  return {
    Put: {
      TableName: db.tableName,
      Item: {
        ...bookingNoteKey(booking.booking_id, at, note.note_id),
        ...noteIndexKeys(Date.parse(note.date), note.note_id),
        entity: 'note',
        booking_id: booking.booking_id,
        booking_code: booking.code,
        at,
        ...(booking.partner_id !== undefined ? { partner_id: booking.partner_id } : {}),
        ...note,
      },
    },
  };
}

/** Records a payment on a booking. */
export function putPaymentAction(db: Db, bookingId: number, payment: StoredPayment): TransactItem {
  return {
    Put: {
      TableName: db.tableName,
      Item: {
        ...bookingPaymentKey(bookingId, payment.date, payment.transaction_id),
        entity: 'payment',
        booking_id: bookingId,
        ...payment,
      },
    },
  };
}

/** Sets or clears one account's bookmark on a booking. */
export function bookmarkAction(
  db: Db,
  options: { bookingId: number; accountId: number; mark: boolean; at: number },
): TransactItem {
  const key = bookmarkKey(options.bookingId, options.accountId);
  return options.mark
    ? {
        Put: {
          TableName: db.tableName,
          Item: { ...key, entity: 'bookmark', account_id: options.accountId, at: options.at },
        },
      }
    : { Delete: { TableName: db.tableName, Key: key } };
}
