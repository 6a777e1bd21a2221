import { unixSeconds } from '../time.ts';

/** Pure key builders: every record's pk/sk (and index keys) are made here and nowhere else. */

const pad = (id: number): string => String(id).padStart(10, '0');

/** The tenant's configuration record (company, locale, settings, params, form, taxes, discounts). */
export const configKey = () => ({ pk: 'TENANT', sk: 'CONFIG' });

/** All items live in one partition, so listing them is one query. */
export const ITEM_PARTITION = 'ITEM';
export const itemKey = (itemId: number) => ({ pk: ITEM_PARTITION, sk: `ITEM#${pad(itemId)}` });

export const CATEGORY_PARTITION = 'CATEGORY';
export const categoryKey = (categoryId: number) => ({
  pk: CATEGORY_PARTITION,
  sk: `CATEGORY#${pad(categoryId)}`,
});

export const ACCOUNT_PARTITION = 'ACCOUNT';
export const accountKey = (accountId: number) => ({ pk: ACCOUNT_PARTITION, sk: `ACCOUNT#${pad(accountId)}` });

/** A gift certificate and its balance. */
export const giftcertKey = (code: string) => ({ pk: `GIFTCERT#${code}`, sk: 'GIFTCERT' });

/** A staff API credential, listed through gsi1. */
export const CREDENTIAL_LIST = 'CREDENTIALS';
export const credentialKey = (key: string) => ({ pk: `CREDENTIAL#${key}`, sk: 'CREDENTIAL' });
export const credentialListKey = (key: string) => ({ gsi1pk: CREDENTIAL_LIST, gsi1sk: key });

/** A bearer token, found by the hash of its value. */
export const tokenKey = (tokenHash: string) => ({ pk: `TOKEN#${tokenHash}`, sk: 'TOKEN' });

/** The gsi1 partition holding the sessions that expire in one UTC minute (the sweeper's shard). */
export const sessionExpiryShard = (epochSeconds: number): string => {
  const minute = new Date(Math.floor(epochSeconds / 60) * 60_000).toISOString().slice(0, 16);
  return `SESSION_EXPIRY#${minute}`;
};

/** The stock counter of one item slot (a date, or a UTC hour for hourly items), holding `used`. */
export const stockPartition = (itemId: number) => `STOCK#${itemId}`;
export const stockKey = (itemId: number, slot: string) => ({ pk: stockPartition(itemId), sk: slot });

/**
 * The span index of the counters (gsi3): every item's counters of one month together, by day then item
 * (an hourly slot under its UTC day), so one query returns every item's counters over a span of days.
 */
export const stockMonthPartition = (day: string) => `STOCKMONTH#${day.slice(0, 6)}`;
/** Where a counter sorts in its month: `YYYYMMDD#<item>#<slot>`. */
export const stockIndexKeys = (itemId: number, slot: string) => ({
  gsi3pk: stockMonthPartition(slot),
  gsi3sk: `${slot.slice(0, 8)}#${pad(itemId)}#${slot}`,
});
/** The layout of the index keys every counter carries once a tenant load indexed them (`stock_index`). */
export const STOCK_INDEX_LAYOUT = 'month';

/** A session (cart). */
export const sessionKey = (id: string) => ({ pk: `SESSION#${id}`, sk: 'SESSION' });

/** The sweeper's progress: the minute up to which every expiry shard has been read. */
export const sweeperStateKey = () => ({ pk: 'SWEEPER', sk: 'STATE' });

/** An atomic id counter (`booking`, `customer`). */
export const idCounterKey = (name: string) => ({ pk: `COUNTER#${name}`, sk: 'COUNTER' });

const padTime = (seconds: number): string => String(seconds).padStart(12, '0');

/** A booking and, in the same partition, its notes, events, bookmarks and payments. */
export const bookingPartition = (bookingId: number) => `BOOKING#${pad(bookingId)}`;
export const bookingKey = (bookingId: number) => ({ pk: bookingPartition(bookingId), sk: 'BOOKING' });
export const bookingNoteKey = (bookingId: number, at: number, id: string) => ({
  pk: bookingPartition(bookingId),
  sk: `NOTE#${padTime(at)}#${id}`,
});
export const bookingEventKey = (bookingId: number, atMs: number, id: string) => ({
  pk: bookingPartition(bookingId),
  sk: `EVENT#${String(atMs).padStart(15, '0')}#${id}`,
});
export const bookingPaymentKey = (bookingId: number, at: number, id: string) => ({
  pk: bookingPartition(bookingId),
  sk: `PAYMENT#${padTime(at)}#${id}`,
});
/** A payment attempt of a booking (issue 43), beside it in its partition: one record per attempt. */
export const bookingPaymentAttemptKey = (bookingId: number, paymentId: string) => ({
  pk: bookingPartition(bookingId),
  sk: `PAYMENT_ATTEMPT#${paymentId}`,
});
/** The sk prefix of a booking's payment attempts (not `PAYMENT#`: those are its recorded transactions). */
export const PAYMENT_ATTEMPT_PREFIX = 'PAYMENT_ATTEMPT#';

/** A booking awaiting payment, by its deadline, for the sweeper that lets it lapse (one partition). */
export const PAYMENT_DUE_PARTITION = 'PAYMENT_DUE';
export const paymentDueKey = (deadlineSeconds: number, bookingId: number) => ({
  pk: PAYMENT_DUE_PARTITION,
  sk: `${padTime(deadlineSeconds)}#${pad(bookingId)}`,
});
/** The sk of `paymentDueKey` just after every deadline up to `seconds`. */
export const paymentDueUntil = (seconds: number): string => `${padTime(seconds)}#~`;
/** An authorised payment, by when it is to be captured, for the sweeper that captures it (one partition). */
export const PAYMENT_CAPTURE_PARTITION = 'PAYMENT_CAPTURE';
export const paymentCaptureKey = (captureAt: number, bookingId: number, paymentId: string) => ({
  pk: PAYMENT_CAPTURE_PARTITION,
  sk: `${padTime(captureAt)}#${pad(bookingId)}#${paymentId}`,
});

/** A payment provider's event, recorded once by its id (a duplicate delivery finds it and does nothing). */
export const providerEventKey = (provider: string, eventId: string) => ({
  pk: `PROVIDER_EVENT#${provider}#${eventId}`,
  sk: 'EVENT',
});
export const bookmarkKey = (bookingId: number, accountId: number) => ({
  pk: bookingPartition(bookingId),
  sk: `BOOKMARK#${pad(accountId)}`,
});

/** The unique booking code, pointing at its booking id. */
export const bookingCodeKey = (code: string) => ({ pk: `BOOKING_CODE#${code}`, sk: 'CODE' });

/** The gsi1 partition of a customer's bookings. */
export const customerBookingsPartition = (customerId: number): string =>
  `CUSTOMER_BOOKINGS#${pad(customerId)}`;

/** The UTC month (`YYYYMM`) of an instant in Unix seconds: the shard of the month indexes. */
const monthOf = (seconds: number): string =>
  new Date(seconds * 1000).toISOString().slice(0, 7).replace('-', '');

/** The UTC months (`YYYYMM`) from `from` to `to` (Unix seconds), newest first. */
export function monthsBetween(from: number, to: number): string[] {
  const out: string[] = [];
  const start = new Date(from * 1000);
  const end = new Date(to * 1000);
  // Walked by count of months, so the walk ends however odd its ends are.
  const count =
    (end.getUTCFullYear() - start.getUTCFullYear()) * 12 + end.getUTCMonth() - start.getUTCMonth();
  for (let index = 0; index <= count; index += 1)
    out.push(monthOf(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + index, 1) / 1000));
  return out.reverse();
}

/** The gsi2 partition of the bookings of one status. */
export const bookingStatusPartition = (statusId: string): string => `BOOKING_STATUS#${statusId}`;

/** The gsi3 partition of the bookings created in one month. */
export const bookingMonthPartition = (month: string): string => `BOOKING_MONTH#${month}`;

/** The gsi3 partition of the notes written in one month. */
export const noteMonthPartition = (month: string): string => `NOTE_MONTH#${month}`;

/** Index keys of a booking: by customer (gsi1), by status (gsi2), by creation month (gsi3); newest last. */
export const bookingIndexKeys = (booking: {
  booking_id: number;
  customer_id: number;
  status_id: string;
  created_date: number;
}) => {
  const order = `${padTime(booking.created_date)}#${pad(booking.booking_id)}`;
  const month = monthOf(booking.created_date);
  return {
    gsi1pk: customerBookingsPartition(booking.customer_id),
    gsi1sk: order,
    gsi2pk: bookingStatusPartition(booking.status_id),
    gsi2sk: order,
    gsi3pk: bookingMonthPartition(month),
    gsi3sk: order,
  };
};

/** A customer, and the lookup that makes an email belong to one customer. */
export const customerKey = (customerId: number) => ({ pk: `CUSTOMER#${pad(customerId)}`, sk: 'CUSTOMER' });
export const customerEmailKey = (email: string) => ({
  pk: `CUSTOMER_EMAIL#${email.toLowerCase()}`,
  sk: 'EMAIL',
});

/** A client's request counters in one fixed window (a minute), deleted by TTL after it. */
export const RATE_PARTITION_PREFIX = 'RATE#';
export const rateWindowKey = (client: string, windowStart: number) => ({
  pk: `${RATE_PARTITION_PREFIX}${client}`,
  sk: String(windowStart),
});

/** A client's refused guesses of one kind in one fixed window (an hour), beside its request counters. */
export const guessAttemptsKey = (kind: GuessKind, client: string, windowStart: number) => ({
  pk: `${RATE_PARTITION_PREFIX}${client}`,
  sk: `${kind}#${windowStart}`,
});

/** What a client may guess within an hourly budget: gift certificate codes and bookings' tokens. */
export type GuessKind = 'GIFTCERT' | 'TOKEN';

/** What one client holds of one stock counter, across all its sessions (its hold budget). */
const clientPartition = (client: string) => `CLIENT#${client}`;
export const clientHoldKey = (client: string, counterId: string) => ({
  pk: clientPartition(client),
  sk: `HOLD#${counterId}`,
});

/** A client's holding and re-hold cooldown of one stay zone of an item (dates one stay could span). */
export const clientZoneKey = (client: string, zoneId: string) => ({
  pk: clientPartition(client),
  sk: `ZONE#${zoneId}`,
});

/** A spent proof-of-work challenge, by its nonce: present means it can never be used again. */
export const challengeKey = (nonce: string) => ({ pk: `CHALLENGE#${nonce}`, sk: 'CHALLENGE' });

/** The set of a client's open sessions that hold stock. */
export const clientSessionsKey = (client: string) => ({ pk: clientPartition(client), sk: 'SESSIONS' });

/**
 * The marker of an unpaid booking that still counts against its client, in one partition by creation time,
 * for the sweeper that voids them after `settings.void_unpaid_after_hours` (written and deleted with the
 * booking's `budget`).
 */
export const unpaidBookingKey = (createdSeconds: number, bookingId: number) => ({
  pk: UNPAID_BOOKINGS_PARTITION,
  sk: `${padTime(createdSeconds)}#${pad(bookingId)}`,
});
export const UNPAID_BOOKINGS_PARTITION = 'UNPAID_BOOKINGS';

/** A client's count of unpaid bookings that still count against its budgets. */
export const clientUnpaidKey = (client: string) => ({ pk: clientPartition(client), sk: 'UNPAID' });

/** The gsi3 keys of a note: notes across bookings by month, in millisecond order (`booking/notes`). */
export const noteIndexKeys = (atMs: number, noteId: string) => ({
  gsi3pk: noteMonthPartition(monthOf(unixSeconds(atMs))),
  gsi3sk: `${String(atMs).padStart(15, '0')}#${noteId}`,
});

/** A webhook endpoint's state, and (same partition) its deliveries by event time. */
export const webhookPartition = (endpointId: string) => `WEBHOOK#${endpointId}`;
export const webhookEndpointKey = (endpointId: string) => ({
  pk: webhookPartition(endpointId),
  sk: 'ENDPOINT',
});
export const WEBHOOK_ENDPOINTS = 'WEBHOOK_ENDPOINTS';
export const webhookListKey = (endpointId: string) => ({ gsi1pk: WEBHOOK_ENDPOINTS, gsi1sk: endpointId });
export const WEBHOOK_DELIVERY_PREFIX = 'DELIVERY#';
export const webhookDeliveryKey = (endpointId: string, eventAtMs: number, eventId: string) => ({
  pk: webhookPartition(endpointId),
  sk: `${WEBHOOK_DELIVERY_PREFIX}${String(eventAtMs).padStart(15, '0')}#${eventId}`,
});

/**
 * Index keys of a delivery while it is pending: due by time (gsi2), and in order per endpoint and booking
 * (gsi1), by the booking's version at the event (the order its changes were committed), then time.
 */
export const WEBHOOK_DUE = 'WEBHOOK_DUE';
export const webhookPendingKeys = (delivery: {
  endpointId: string;
  bookingId: number;
  sequence: number;
  eventAtMs: number;
  eventId: string;
  nextAtMs: number;
}) => ({
  gsi1pk: `WEBHOOK_ORDER#${delivery.endpointId}#${delivery.bookingId}`,
  gsi1sk: `${String(delivery.sequence).padStart(10, '0')}#${String(delivery.eventAtMs).padStart(15, '0')}#${delivery.eventId}`,
  gsi2pk: WEBHOOK_DUE,
  gsi2sk: `${String(delivery.nextAtMs).padStart(15, '0')}#${delivery.endpointId}#${delivery.eventId}`,
});

/** An event kept for delivery (what it says, and the booking as it was), by time for replays (gsi3). */
export const webhookEventKey = (eventId: string) => ({ pk: `WEBHOOK_EVENT#${eventId}`, sk: 'EVENT' });
export const webhookEventMonthPartition = (month: string): string => `WEBHOOK_EVENT_MONTH#${month}`;
export const webhookEventIndexKeys = (atMs: number, eventId: string) => ({
  gsi3pk: webhookEventMonthPartition(monthOf(unixSeconds(atMs))),
  gsi3sk: `${String(atMs).padStart(15, '0')}#${eventId}`,
});

/**
 * A channel's partition: its sync state, the blocks it holds (one per item slot) and its open conflicts, so
 * a sync reads everything it diffs against in one query. Its states are listed through gsi1.
 */
export const channelPartition = (channelId: string) => `CHANNEL#${channelId}`;
export const channelStateKey = (channelId: string) => ({ pk: channelPartition(channelId), sk: 'STATE' });
export const CHANNEL_LIST = 'CHANNELS';
export const channelListKey = (channelId: string) => ({ gsi1pk: CHANNEL_LIST, gsi1sk: channelId });
export const CHANNEL_BLOCK_PREFIX = 'BLOCK#';
export const channelBlockKey = (channelId: string, slot: string) => ({
  pk: channelPartition(channelId),
  sk: `${CHANNEL_BLOCK_PREFIX}${slot}`,
});
export const CHANNEL_CONFLICT_PREFIX = 'CONFLICT#';
export const channelConflictKey = (channelId: string, slot: string) => ({
  pk: channelPartition(channelId),
  sk: `${CHANNEL_CONFLICT_PREFIX}${slot}`,
});
/** A conflict of a channel closed lately, remembered so that one opened again is not announced again. */
export const CHANNEL_CLOSED_PREFIX = 'CLOSED#';
export const channelClosedKey = (channelId: string, slot: string) => ({
  pk: channelPartition(channelId),
  sk: `${CHANNEL_CLOSED_PREFIX}${slot}`,
});

/** A channel's audit trail (conflicts opened and closed, failures, recoveries), by time, apart from its blocks. */
export const channelEventKey = (channelId: string, atMs: number, eventId: string) => ({
  pk: `CHANNEL_EVENTS#${channelId}`,
  sk: `EVENT#${String(atMs).padStart(15, '0')}#${eventId}`,
});

/** A calendar feed token, found by the hash of its value. */
export const FEED_TOKEN_PREFIX = 'FEED_TOKEN#';
export const feedTokenKey = (tokenHash: string) => ({
  pk: `${FEED_TOKEN_PREFIX}${tokenHash}`,
  sk: 'FEED_TOKEN',
});
/** What a feed token opens (`item#7`, `item#7#airbnb`, `bookings`): its current token, listed through gsi1. */
export const feedScopeKey = (scope: string) => ({ pk: `FEED_SCOPE#${scope}`, sk: 'FEED_SCOPE' });
export const FEED_SCOPE_LIST = 'FEED_SCOPES';
export const feedScopeListKey = (scope: string) => ({ gsi1pk: FEED_SCOPE_LIST, gsi1sk: scope });
