import { dateOf, isIsoDate, isoDate } from './format.ts';

/** The dates a page's link asks for: `start-date`, and `end-date` or `nights`. */
export interface LinkDates {
  start?: string;
  end?: string;
  nights?: string;
}

/** The longest stay a link may ask for (as the booking page reads `nights`). */
const MAX_NIGHTS = 366;

/**
 * The dates a link chooses once the unit of what is offered is known (undefined: several units, read as
 * nights). `nights` counts units from the start: a nightly stay ends on its check-out (start + n), a daily
 * rental on its last day (start + n − 1, the API's daily end being inclusive); an hourly item needs its
 * date alone. `end-date`, when given, is the end as it is. A start alone is the first date chosen.
 */
export function linkedDates(
  link: LinkDates,
  unit: 'N' | 'D' | 'H' | undefined,
  today: string,
): { start: string; end?: string } | undefined {
  const { start, end, nights } = link;
  if (!start || !isIsoDate(start) || start < today) return undefined;
  if (unit === 'H') return { start, end: start };
  if (end && isIsoDate(end) && (unit === 'N' || unit === undefined ? end > start : end >= start))
    return { start, end };
  const count = nights && /^\d{1,3}$/.test(nights) ? Number(nights) : 0;
  if (count >= 1 && count <= MAX_NIGHTS)
    return { start, end: isoDate(dateOf(start), unit === 'D' ? count - 1 : count) };
  return { start };
}
