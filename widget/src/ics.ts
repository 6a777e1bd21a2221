import ical from 'ical-generator';
import { dateOf } from './format.ts';
import type { Session } from './types.ts';

/** A line of a booking as its calendar file shows it: dates (`YYYYMMDD`), and the hour of an hourly one. */
export interface StayLine {
  name: string;
  unit: 'N' | 'D' | 'H';
  start: string;
  end: string;
  /** An hourly line's start and end instants, when the widget chose them. */
  hours?: { start: string; end: string };
}

/** A local `YYYYMMDD` as the UTC midnight ical-generator writes an all-day date from. */
const allDay = (compact: string, plusDays = 0): Date => {
  const date = dateOf(compact);
  return new Date(Date.UTC(date.getFullYear(), date.getMonth(), date.getDate() + plusDays));
};

/**
 * The booking as an iCalendar file (ical-generator): one event a line, all-day `VALUE=DATE` with an
 * exclusive end (a stay ends on its check-out day, a daily rental the day after its last), and an hourly
 * line at its hours.
 */
export function bookingCalendar(code: string, lines: StayLine[]): string {
  const calendar = ical({
    prodId: { company: 'booking-widget', product: 'booking' },
    name: `Booking ${code}`,
  });
  lines.forEach((line, index) => {
    const common = { id: `${code}-${index + 1}`, summary: line.name, description: `Booking ${code}` };
    if (line.hours)
      calendar.createEvent({ ...common, start: new Date(line.hours.start), end: new Date(line.hours.end) });
    else
      calendar.createEvent({
        ...common,
        allDay: true,
        start: allDay(line.start),
        end: line.unit === 'N' && line.end > line.start ? allDay(line.end) : allDay(line.end, 1),
      });
  });
  return calendar.toString();
}

/** A cart's lines (not a package's parts) with their dates, and the hours of hourly ones. */
export function stayLinesOf(
  cart: Session,
  hoursOf: (slip: string | undefined) => { start: string; end: string } | undefined,
): StayLine[] {
  return Object.values(cart.item)
    .filter((line) => !line.parent && line.date?.start_date && line.date.end_date)
    .map((line) => ({
      name: line.name,
      unit: (line as { unit?: StayLine['unit'] }).unit ?? 'D',
      start: line.date?.start_date ?? '',
      end: line.date?.end_date ?? '',
      hours: hoursOf(line.slip),
    }));
}
