import type { Caller } from '#lib/access/index.ts';
import { bookingSnapshotOf } from '#lib/bookings/index.ts';
import type { StoredConfig } from '#lib/config/index.ts';
import type { RenderWebhook, StoredWebhookEvent } from '#lib/webhooks/index.ts';

import { presentEvent, presentRecord } from '../bookings/present.ts';
import { checkfrontNotification } from './checkfront.ts';

/** Who reads a webhook's booking: no account, so nothing is shown as its bookmark. */
const NOBODY: Caller = { kind: 'customer' };

/** The booking of an event as `booking/{id}` returned it at that event, with the tenant settings of then. */
const bookingAt = (event: StoredWebhookEvent, config: StoredConfig) => {
  const snapshot = bookingSnapshotOf(event);
  if (!snapshot) return undefined;
  const { timezone, ...then } = snapshot.config ?? { timezone: config.company.timezone };
  return presentRecord(
    {
      booking: snapshot.booking,
      notes: snapshot.notes,
      payments: snapshot.payments,
      events: [],
      bookmarks: [],
    },
    {
      config: { ...config, ...then, company: { ...config.company, timezone } },
      caller: NOBODY,
      events: false,
    },
  );
};

/**
 * A webhook body: `standard` is `{type, timestamp, data: {event, booking}}` for every event; `checkfront`
 * is the API 3.0 notification, for booking events only.
 */
export const renderWebhook: RenderWebhook = (format, event, config) => {
  const booking = bookingAt(event, config);
  const omitted = bookingSnapshotOf(event)?.notes_omitted;
  if (format === 'checkfront') {
    return booking ? JSON.stringify(checkfrontNotification(booking, event.event)) : undefined;
  }
  return JSON.stringify({
    type: event.event.type,
    timestamp: new Date(event.event.at).toISOString(),
    data: {
      // As `booking/{id}?events=1` lists it, where each entry carries its booking's id.
      event: presentEvent(booking ? { ...event.event, booking_id: event.booking_id } : event.event),
      ...(booking ? { booking } : {}),
      // A booking too large to keep whole at its event is sent without its notes, and says how many.
      ...(omitted ? { notes_omitted: omitted } : {}),
    },
  });
};
