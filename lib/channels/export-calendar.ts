import { TZDate } from '@date-fns/tz';
import ical, { escape as escapeText, ICalEventTransparency } from 'ical-generator';
import { tzlib_get_ical_block } from 'timezones-ical-library';
import { addDays, isRealYmd, localParts, toIsoDate, type Ymd } from '../kernel/dates.ts';

/**
 * A stretch an item cannot be sold: local dates, both included (written as an all-day event with an
 * exclusive end), or an instant span in ms, end excluded (written as a timed event). `open` marks the run
 * that reaches the feed's last date and may go on past it: its end moves with the feed's, not with it.
 */
export type ExportRun = (
  | { kind: 'dates'; first: Ymd; last: Ymd }
  | { kind: 'hours'; start: number; end: number }
) & { open?: boolean };

const SUMMARY = 'Not available';

// UIDs are written as they are: keep the right-hand side to host-name characters.
const UID_DOMAIN = /^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/;

/** UTC midnight of a date: with no time zone on the event or calendar, ical-generator writes its UTC date. */
const utcMidnight = (ymd: Ymd): Date => new Date(`${toIsoDate(ymd)}T00:00:00Z`);

/** An instant as iCalendar's UTC form, `YYYYMMDDTHHMMSSZ`. */
const utcStamp = (instant: number): string =>
  `${new Date(instant).toISOString().slice(0, 19).replace(/[-:]/g, '')}Z`;

const DAY_MS = 86_400_000;

/** The local wall-clock time of an instant, as ms on a UTC clock. */
function wallClock(instant: number, timeZone: string): number {
  const { ymd, minutes } = localParts(instant, timeZone);
  return utcMidnight(ymd).getTime() + minutes * 60_000 + (((instant % 60_000) + 60_000) % 60_000);
}

/**
 * Whether the instant's local wall-clock time happens only once. A time in the hour the clocks go back
 * happens twice, and readers disagree on which one a TZID time names (RFC 5545 3.3.5 says the first;
 * ical.js and node-ical read the second), so a run that starts or ends there is written in UTC.
 */
function isLocallyWritable(instant: number, timeZone: string): boolean {
  const wall = wallClock(instant, timeZone);
  // No zone changes its offset twice in two days: the offsets a day either side are the ones in play.
  return [instant - DAY_MS, instant + DAY_MS].every((near) => {
    const reading = wall - (wallClock(near, timeZone) - near);
    return reading === instant || wallClock(reading, timeZone) !== wall;
  });
}

/** The UID of a run: the item and the run's exclusive end, so it holds while the run's start moves on. */
const uidOf = (run: ExportRun, itemId: number, uidDomain: string): string =>
  `item-${itemId}-${run.open ? 'open' : run.kind === 'dates' ? addDays(run.last, 1) : utcStamp(run.end)}@${uidDomain}`;

/** Throws a RangeError for a run that cannot be written as itself. */
function checkRun(run: ExportRun): void {
  if (run.kind === 'dates') {
    if (!isRealYmd(run.first) || !isRealYmd(run.last) || run.first > run.last)
      throw new RangeError(`a dates run needs real dates, first <= last (${run.first}..${run.last})`);
    return;
  }
  // iCalendar times have whole seconds: a finer instant would not read back as itself.
  if (!Number.isSafeInteger(run.start) || !Number.isSafeInteger(run.end) || run.start >= run.end)
    throw new RangeError('an hours run needs integer instants, start < end');
  if (run.start % 1000 !== 0 || run.end % 1000 !== 0)
    throw new RangeError('an hours run starts and ends on whole seconds');
}

/**
 * A calendar with its name and PRODID escaped: ical-generator writes both raw, so a line break in a name
 * would start a property of its own.
 */
export const newCalendar = (feed: { name: string; prodId: { company: string; product: string } }) =>
  ical({
    name: escapeText(feed.name, false),
    prodId: {
      company: escapeText(feed.prodId.company, false),
      product: escapeText(feed.prodId.product, false),
    },
  });

/**
 * A calendar's text, every content line ended by CRLF, the last one too (RFC 5545 §3.1): ical-generator
 * folds lines to 75 octets and joins them with CRLF, but leaves the last one without it.
 */
export const calendarText = (calendar: ReturnType<typeof newCalendar>): string =>
  `${calendar.toString()}\r\n`;

/**
 * The VTIMEZONE of a zone, from timezones-ical-library (the zones' rules as data in the module, so a
 * bundled function reads no file), or null when it has none under exactly that name.
 */
function vtimezoneOf(zone: string): string | null {
  const block = tzlib_get_ical_block(zone);
  const [component = '', tzid = ''] = Array.isArray(block) ? block : [];
  return component.startsWith('BEGIN:VTIMEZONE') && tzid === `TZID=${zone}` ? component : null;
}

/**
 * Writes an item's channel feed (RFC 5545): one "Not available" event per run, all-day `VALUE=DATE` with
 * an exclusive DTEND for dates, timed in the tenant's zone (with its VTIMEZONE) for hours. Every event is
 * stamped with `stamp`, so the same input gives the same bytes.
 */
export function writeFeed(feed: {
  name: string;
  prodId: { company: string; product: string };
  uidDomain: string;
  itemId: number;
  timeZone: string;
  runs: ExportRun[];
  stamp: number;
}): string {
  const { itemId, timeZone, uidDomain } = feed;
  if (!Number.isSafeInteger(itemId) || itemId < 0) throw new RangeError('itemId is a whole number');
  if (!UID_DOMAIN.test(uidDomain)) throw new RangeError('uidDomain is a host name');
  // ical-generator writes the calendar's NAME, X-WR-CALNAME and PRODID as given: a comma or a line break in
  // an item's name would end the value there, so they go through its own TEXT escaping.
  const calendar = newCalendar(feed);
  // The generator alone, no calendar zone: with one, ical-generator writes DTSTAMP as local time without
  // `Z` and all-day dates by the process's own zone, adding a TIMEZONE-ID property of no standard.
  calendar.timezone({ name: null, generator: vtimezoneOf });
  // A zone the VTIMEZONE package knows by another name (an alias) would leave a TZID undefined.
  const zoned = vtimezoneOf(timeZone) !== null;
  const stamp = new Date(feed.stamp);
  const uids = new Set<string>();
  for (const run of feed.runs) {
    checkRun(run);
    const id = uidOf(run, itemId, uidDomain);
    if (uids.has(id))
      throw new RangeError(`two runs end at the same ${run.kind === 'dates' ? 'date' : 'time'}`);
    uids.add(id);
    const common = { id, stamp, summary: SUMMARY, transparency: ICalEventTransparency.OPAQUE };
    if (run.kind === 'dates') {
      calendar.createEvent({
        ...common,
        allDay: true,
        start: utcMidnight(run.first),
        end: utcMidnight(addDays(run.last, 1)),
      });
    } else if (zoned && isLocallyWritable(run.start, timeZone) && isLocallyWritable(run.end, timeZone)) {
      // A TZDate, not a Date: ical-generator reads a Date's local fields in the process's own zone.
      calendar.createEvent({
        ...common,
        timezone: timeZone,
        start: new TZDate(run.start, timeZone),
        end: new TZDate(run.end, timeZone),
      });
    } else {
      calendar.createEvent({ ...common, start: new Date(run.start), end: new Date(run.end) });
    }
  }
  return calendarText(calendar);
}
