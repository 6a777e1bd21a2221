import { tzOffset } from '@date-fns/tz/tzOffset';

/** A calendar date as `YYYYMMDD`. */
export type Ymd = string;

const DAY_MS = 86_400_000;

// The year is all but the last four digits: a date worked out past year 9999 reads back as itself.
const toUtc = (ymd: Ymd): number =>
  Date.UTC(Number(ymd.slice(0, -4)), Number(ymd.slice(-4, -2)) - 1, Number(ymd.slice(-2)));

const twoDigits = (value: number): string => (value < 10 ? `0${value}` : String(value));

// Rating walks dates per item and night: this is read thousands of times per list, so it formats the
// date's fields directly rather than through toISOString.
const fromUtc = (ms: number): Ymd => {
  const date = new Date(ms);
  return `${String(date.getUTCFullYear()).padStart(4, '0')}${twoDigits(date.getUTCMonth() + 1)}${twoDigits(date.getUTCDate())}`;
};

/** Whether a `YYYYMMDD` string names a real calendar date. */
export function isRealYmd(value: string): boolean {
  if (!/^\d{8}$/.test(value)) return false;
  return fromUtc(toUtc(value)) === value;
}

/**
 * The first and last dates the service reads from a request. Every date worked out from one (a span's end
 * up to 366 days on, a calendar's default month, a night's morning, an hour's UTC day) then still has a
 * four-digit year, so `YYYYMMDD` stays eight digits and its text order stays the order of the dates.
 */
export const SUPPORTED_DATES = {
  first: '19000101',
  last: '99981231',
  text: '1900-01-01 to 9998-12-31',
} as const;

/** Whether a real `YYYYMMDD` date lies in the supported range. */
export const isSupportedDate = (ymd: Ymd): boolean =>
  ymd >= SUPPORTED_DATES.first && ymd <= SUPPORTED_DATES.last;

/** The date `days` after `ymd` (negative for before). */
export const addDays = (ymd: Ymd, days: number): Ymd => fromUtc(toUtc(ymd) + days * DAY_MS);

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export const daysBetween = (from: Ymd, to: Ymd): number => Math.round((toUtc(to) - toUtc(from)) / DAY_MS);

/** Day of the week, Sunday 0 (1 January 1970 was a Thursday). */
export const dayOfWeek = (ymd: Ymd): number => (((Math.floor(toUtc(ymd) / DAY_MS) + 4) % 7) + 7) % 7;

/** Every date from `first` to `last`, both included (a count of days, never a comparison of texts). */
export function datesFrom(first: Ymd, last: Ymd): Ymd[] {
  const out: Ymd[] = [];
  const start = toUtc(first);
  const count = Math.round((toUtc(last) - start) / DAY_MS);
  for (let index = 0; index <= count; index += 1) out.push(fromUtc(start + index * DAY_MS));
  return out;
}

/**
 * An instant's wall clock in a time zone, as a Date whose UTC fields are the local ones, and the zone's
 * offset then (minutes, east positive). What date-fns/tz's TZDate does, without its class in every bundle.
 */
const wallClock = (instant: number, timeZone: string): { local: Date; offsetMinutes: number } => {
  const offset = offsetAt(timeZone, instant);
  return { local: new Date(instant + offset), offsetMinutes: offset / 60_000 };
};

/** The local date of a wall clock from `wallClock`. */
const zonedYmd = (local: Date): Ymd =>
  `${local.getUTCFullYear()}${twoDigits(local.getUTCMonth() + 1)}${twoDigits(local.getUTCDate())}`;

/**
 * A zone's offset at an instant (minutes, east positive) read through the process's own zone: TZ set for
 * one synchronous read of `getTimezoneOffset`, then put back. Some 25 µs, against Intl's 1.4 µs, but it
 * needs no Intl.DateTimeFormat, whose first creation in a process costs some 15 ms (ICU's formatting
 * data): today's date is read once per zone and quarter hour, so a request that needs no other zoned time
 * (a nightly item's) never pays that after a cold start (issue 33).
 */
const offsetThroughProcessZone = (timeZone: string, instant: number): number => {
  const before = process.env.TZ;
  process.env.TZ = timeZone;
  try {
    return -new Date(instant).getTimezoneOffset();
  } finally {
    if (before === undefined) delete process.env.TZ;
    else process.env.TZ = before;
  }
};

/** Every UTC offset in use, and every change between them, falls on a quarter hour. */
const QUARTER_HOUR_MS = 900_000;
const todayByZone = new Map<string, { quarter: number; today: Ymd }>();

/**
 * Today's date in a time zone. A local date can change only where a quarter hour begins (offsets and
 * their changes are whole quarter hours), so each zone's answer is kept for its quarter hour: a zoned
 * date costs tens of microseconds, and every request asks.
 */
export function todayIn(timeZone: string, now: number): Ymd {
  const quarter = Math.floor(now / QUARTER_HOUR_MS);
  const kept = todayByZone.get(timeZone);
  if (kept?.quarter === quarter) return kept.today;
  const today = zonedYmd(new Date(now + offsetThroughProcessZone(timeZone, now) * 60_000));
  if (todayByZone.size >= 64 && !kept) todayByZone.clear();
  todayByZone.set(timeZone, { quarter, today });
  return today;
}

/** `MM/DD/YYYY`, the wire's local date form. */
export const toLocalDate = (ymd: Ymd): string => `${ymd.slice(4, 6)}/${ymd.slice(6, 8)}/${ymd.slice(0, 4)}`;

/** `YYYY-MM-DD`. */
export const toIsoDate = (ymd: Ymd): string => `${ymd.slice(0, 4)}-${ymd.slice(4, 6)}-${ymd.slice(6, 8)}`;

const WEEKDAY_NAMES = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;
const MONTH_NAMES = [
  'Jan',
  'Feb',
  'Mar',
  'Apr',
  'May',
  'Jun',
  'Jul',
  'Aug',
  'Sep',
  'Oct',
  'Nov',
  'Dec',
] as const;

/**
 * "Thu Oct 5" or "Thu Oct 5, 2027": what en-US Intl.DateTimeFormat writes (short weekday and month, less
 * the comma after the weekday), written here because the process's first Intl object loads ICU's data,
 * some 20 ms of the first rated answer after a cold start (issue 33). test/unit/dates.test.ts holds it to
 * Intl.
 */
const describeDay = (ymd: Ymd, withYear: boolean): string => {
  const day = new Date(toUtc(ymd));
  const text = `${WEEKDAY_NAMES[day.getUTCDay()]} ${MONTH_NAMES[day.getUTCMonth()]} ${day.getUTCDate()}`;
  return withYear ? `${text}, ${ymd.slice(0, 4)}` : text;
};

const described = new Map<string, string>();

/**
 * A human date or range: "Thu Oct 5, 2027", "Thu Oct 5 - Sat Oct 7, 2027". Answers are kept (a list
 * describes the same span for every item; Intl formatting is slow), up to a thousand ranges.
 */
export function describeDates(first: Ymd, last: Ymd): string {
  const key = `${first}${last}`;
  const kept = described.get(key);
  if (kept !== undefined) return kept;
  if (described.size >= 1_000) described.clear();
  const text = formatDates(first, last);
  described.set(key, text);
  return text;
}

function formatDates(first: Ymd, last: Ymd): string {
  const end = describeDay(last, true);
  if (first === last) return end;
  return `${describeDay(first, first.slice(0, 4) !== last.slice(0, 4))} - ${end}`;
}

/**
 * Reads a date parameter: `YYYYMMDD`, `YYYY-MM-DD`, `today` or `tomorrow` (in the tenant's time zone).
 * Returns undefined when it is not a real date.
 */
export function parseDateParam(value: string, today: Ymd): Ymd | undefined {
  const text = value.trim().toLowerCase();
  if (text === 'today') return today;
  if (text === 'tomorrow') return addDays(today, 1);
  const compact = /^\d{4}-\d{2}-\d{2}$/.test(text) ? text.replaceAll('-', '') : text;
  return isRealYmd(compact) ? compact : undefined;
}

/** Reads a time of day ("1200", "12:00", "9:30") as minutes after midnight; undefined when invalid. */
export function parseTimeParam(value: string): number | undefined {
  const match = /^(\d{1,2}):?(\d{2})$/.exec(value.trim());
  if (!match) return undefined;
  const hours = Number(match[1]);
  const minutes = Number(match[2]);
  if (hours > 23 || minutes > 59) return undefined;
  return hours * 60 + minutes;
}

/** A time zone's offset from UTC at an instant, in ms (east positive). */
const offsetAt = (timeZone: string, instant: number): number =>
  tzOffset(timeZone, new Date(instant)) * 60_000;

/** The instants at which a local wall-clock time occurs, earliest first, and the offset before any change. */
function readingsOf(ymd: Ymd, minutes: number, timeZone: string): { instants: number[]; before: number } {
  const wall = toUtc(ymd) + minutes * 60_000;
  // No zone changes its offset twice in two days: the offsets a day either side are the ones in play.
  const before = offsetAt(timeZone, wall - DAY_MS);
  const after = offsetAt(timeZone, wall + DAY_MS);
  if (before === after) return { instants: [wall - before], before };
  const readings = [wall - Math.max(before, after), wall - Math.min(before, after)];
  return { instants: readings.filter((instant) => instant + offsetAt(timeZone, instant) === wall), before };
}

/**
 * The instant (ms) of a local wall-clock time on a date in a time zone, whatever the process's own zone.
 * Where the clocks go back, a time that happens twice is its first occurrence; where they go forward, a
 * skipped time moves forward by the gap (Temporal's `compatible` disambiguation). date-fns/tz's `TZDate`
 * built from fields resolves a repeated time by the process's zone instead (date-fns/tz#40).
 */
export function localInstant(ymd: Ymd, minutes: number, timeZone: string): number {
  const { instants, before } = readingsOf(ymd, minutes, timeZone);
  return instants[0] ?? toUtc(ymd) + minutes * 60_000 - before;
}

/**
 * Every start of a whole local hour on a date, from `fromMinutes` up to, not including, `toMinutes`
 * (both whole hours), in time order: an hour the clocks skip has none, an hour they repeat has two.
 * These are the hours an hourly item sells, whatever the size of the change (30 minutes on Lord Howe).
 */
export function localHourStarts(
  ymd: Ymd,
  fromMinutes: number,
  toMinutes: number,
  timeZone: string,
): number[] {
  const starts: number[] = [];
  const day = toUtc(ymd);
  const before = offsetAt(timeZone, day + fromMinutes * 60_000 - DAY_MS);
  const after = offsetAt(timeZone, day + toMinutes * 60_000 + DAY_MS);
  if (before === after) {
    for (let minutes = fromMinutes; minutes < toMinutes; minutes += 60)
      starts.push(day + minutes * 60_000 - before);
    return starts;
  }
  for (let minutes = fromMinutes; minutes < toMinutes; minutes += 60)
    starts.push(...readingsOf(ymd, minutes, timeZone).instants);
  // In time order: where two hours repeat (Troll goes back by two), 01:00 twice comes around 02:00.
  return starts.sort((a, b) => a - b);
}

/** The local date, minutes after midnight and ISO text with offset of an instant in a time zone. */
export function localParts(instant: number, timeZone: string): { ymd: Ymd; minutes: number; iso: string } {
  const { local, offsetMinutes: offset } = wallClock(instant, timeZone);
  const ymd = zonedYmd(local);
  const sign = offset < 0 ? '-' : '+';
  const hh = String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0');
  const mm = String(Math.abs(offset) % 60).padStart(2, '0');
  const time = `${String(local.getUTCHours()).padStart(2, '0')}:${String(local.getUTCMinutes()).padStart(2, '0')}`;
  return {
    ymd,
    minutes: local.getUTCHours() * 60 + local.getUTCMinutes(),
    iso: `${toIsoDate(ymd)}T${time}${sign}${hh}:${mm}`,
  };
}

/** The UTC hour key of an instant, `YYYYMMDDTHHZ`: the stock counter slot of an hourly item. */
export const utcHourKey = (instant: number): string => {
  const iso = new Date(instant).toISOString();
  return `${iso.slice(0, 10).replaceAll('-', '')}T${iso.slice(11, 13)}Z`;
};

/** The instant (ms) an hourly slot `YYYYMMDDTHHZ` starts. */
export const hourKeyInstant = (key: string): number =>
  Date.UTC(+key.slice(0, 4), +key.slice(4, 6) - 1, +key.slice(6, 8), +key.slice(9, 11));
