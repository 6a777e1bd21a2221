import type { Ymd } from '../kernel/dates.ts';
import { calendarText, newCalendar } from './export-calendar.ts';

/** One booking as a staff calendar shows it: an all-day event over the days it takes. */
export interface BookingEntry {
  code: string;
  /** The first day, and the day after the last day it takes (a stay's check-out day). */
  first: Ymd;
  endExclusive: Ymd;
  guest: string;
  items: string[];
  status: string;
}

const utcDate = (ymd: Ymd): Date =>
  new Date(Date.UTC(+ymd.slice(0, 4), +ymd.slice(4, 6) - 1, +ymd.slice(6, 8)));

/**
 * The staff calendar feed (RFC 5545, written by ical-generator, which folds and escapes): one all-day
 * event per booking, titled with its code, guest and items, its status in the description. `stamp` is the
 * DTSTAMP of every event (when the feed's content last changed), so the same bookings are the same text.
 */
export function writeBookingsFeed(feed: {
  name: string;
  prodId: { company: string; product: string };
  uidDomain: string;
  bookings: BookingEntry[];
  stamp: number;
}): string {
  const calendar = newCalendar(feed);
  for (const booking of feed.bookings) {
    calendar.createEvent({
      id: `booking-${booking.code}@${feed.uidDomain}`,
      start: utcDate(booking.first),
      end: utcDate(booking.endExclusive),
      allDay: true,
      stamp: new Date(feed.stamp),
      summary: `${booking.code} ${booking.guest} (${booking.items.join(', ')})`,
      description: `Status: ${booking.status}\nItems: ${booking.items.join(', ')}`,
    });
  }
  return calendarText(calendar);
}
