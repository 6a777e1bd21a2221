import ICAL from 'ical.js';
import { addDays, isRealYmd, localInstant, type Ymd } from '../kernel/dates.ts';
import { FeedParseError } from './feed-error.ts';
import { MAX_PARAMETERS, type ParameterDesigns, parametersOf } from './feed-lines.ts';
import { ReadAbandonedError, ReadBudget } from './read-budget.ts';

/**
 * A stretch a channel's feed marks as taken: an all-day event's dates (end excluded), or a timed event's
 * instants in ms (end excluded; an event with no DTEND or DURATION is an empty span at its start).
 */
export type FeedEvent =
  | { kind: 'dates'; first: Ymd; endExclusive: Ymd }
  | { kind: 'instants'; start: number; end: number };

/**
 * Occurrences of one recurring event walked from its DTSTART before the feed is refused: a daily event
 * begun 50 years ago still reads (some 0.3 s), an hourly one begun years ago does not.
 */
const MAX_OCCURRENCES = 20_000;

type Time = ICAL.Time;
type Window = { from: Ymd; to: Ymd; start: number; end: number; timeZone: string };

const pad = (value: number, width: number): string => String(value).padStart(width, '0');
const ymdOf = (time: Time): Ymd => `${pad(time.year, 4)}${pad(time.month, 2)}${pad(time.day, 2)}`;
const clip = (text: string): string => (text.length > 40 ? `${text.slice(0, 39)}…` : text);

/**
 * A TZID the feed names without its VTIMEZONE (Google does this), read as the IANA zone of that name
 * through Intl, with the service's own rules for skipped and repeated local times.
 */
class IntlZone extends ICAL.Timezone {
  // ical.js asks on every comparison while it walks a recurrence; offsets and their changes fall on whole
  // quarter hours of local time, so one answer holds for a quarter hour.
  private readonly offsets = new Map<number, number>();

  constructor(tzid: string) {
    super({ tzid });
  }

  override utcOffset(time: Time): number {
    const wall = Date.UTC(time.year, time.month - 1, time.day, time.hour, time.minute);
    const quarter = Math.floor(wall / 900_000);
    let offset = this.offsets.get(quarter);
    if (offset === undefined) {
      offset = (wall - localInstant(ymdOf(time), time.hour * 60 + time.minute, this.tzid)) / 1000;
      this.offsets.set(quarter, offset);
    }
    return offset;
  }
}

const isIanaZone = (tzid: string): boolean => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tzid });
    return true;
  } catch {
    return false;
  }
};

/** The design of the parameters ical.js reads a line with: the calendar's once its BEGIN is read. */
type ParserState = Parameters<typeof ICAL.parse._handleContentLine>[1];

/**
 * The feed's VCALENDARs, parsed by ical.js a content line a step: its own line splitting and line parser,
 * driven here so that no line (and no read) holds the thread longer than a step. A line whose parameters
 * would cost ical.js a scan of the line each is refused before it reads it.
 */
function* parseCalendars(text: string): Generator<void, ICAL.Component[]> {
  // ical.js fails on a byte order mark with a TypeError, not a parse error.
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const head = body.trimStart();
  if (head === '') throw new FeedParseError('not an iCalendar feed (empty)');
  if (head.startsWith('<')) throw new FeedParseError('not an iCalendar feed (an HTML page)');
  if (head.startsWith('{') || head.startsWith('[')) throw new FeedParseError('not an iCalendar feed (JSON)');
  if (!/^begin:/i.test(head)) throw new FeedParseError('not an iCalendar feed');
  const lines: string[] = [];
  ICAL.parse._eachLine(body, (_error, line) => {
    lines.push(line);
  });
  yield;
  const roots: unknown[] = [];
  // What ICAL.parse starts from: the design set comes with the first BEGIN.
  const state = { component: roots, stack: [roots] } as unknown as ParserState;
  for (const [index, line] of lines.entries()) {
    const designs = (state.designSet ?? ICAL.design.defaultSet).param as ParameterDesigns;
    if (parametersOf(line, designs) > MAX_PARAMETERS)
      throw new FeedParseError(`line ${index + 1} has over ${MAX_PARAMETERS} parameters`);
    try {
      ICAL.parse._handleContentLine(line, state);
    } catch (error) {
      throw new FeedParseError(`malformed line ${index + 1}`, { cause: error });
    }
    yield;
  }
  if (state.stack.length > 1) throw new FeedParseError('truncated feed (a component is not closed)');
  const calendars = roots
    .filter((jCal): jCal is unknown[] => Array.isArray(jCal) && jCal[0] === 'vcalendar')
    .map((jCal) => new ICAL.Component(jCal));
  if (calendars.length === 0) throw new FeedParseError('no VCALENDAR');
  return calendars;
}

/** A property's value as text; a value of another type that its text is not (`VALUE=DATE-TIME:x`) is refused. */
function textOf(component: ICAL.Component, name: string, reason: string): string {
  try {
    return String(component.getFirstPropertyValue(name));
  } catch (error) {
    throw new FeedParseError(reason, { cause: error });
  }
}

/**
 * IANA zones lent to ical.js's global service for the reads in progress that name them without a VTIMEZONE,
 * with how many reads use each: reads take turns on the thread now, so one read's zone stays until the
 * last read that uses it is done.
 */
const lentZones = new Map<string, number>();

function borrowZones(tzids: string[]): void {
  for (const tzid of tzids) {
    const readers = lentZones.get(tzid) ?? 0;
    if (readers === 0) ICAL.TimezoneService.register(new IntlZone(tzid), tzid);
    lentZones.set(tzid, readers + 1);
  }
}

function returnZones(tzids: string[]): void {
  for (const tzid of tzids) {
    const readers = (lentZones.get(tzid) ?? 1) - 1;
    if (readers > 0) lentZones.set(tzid, readers);
    else {
      lentZones.delete(tzid);
      ICAL.TimezoneService.remove(tzid);
    }
  }
}

/**
 * The TZIDs the feed's events name with no VTIMEZONE of the feed's and none ical.js knows of its own (UTC,
 * GMT): each must be an IANA name. Reading them needs no time value, so nothing is read in a zone yet.
 */
function* missingZones(calendars: ICAL.Component[]): Generator<void, string[]> {
  const missing = new Set<string>();
  for (const calendar of calendars) {
    const defined = new Set(
      calendar
        .getAllSubcomponents('vtimezone')
        .map((zone) => textOf(zone, 'tzid', 'a VTIMEZONE has a TZID that cannot be read')),
    );
    for (const vevent of calendar.getAllSubcomponents('vevent')) {
      for (const property of vevent.getAllProperties()) {
        const tzid = property.getParameter('tzid');
        if (typeof tzid !== 'string' || defined.has(tzid) || missing.has(tzid)) continue;
        // Lent to another read: this one borrows it too. get, not has: has answers false for UTC until
        // the service has first been read.
        if (!lentZones.has(tzid) && ICAL.TimezoneService.get(tzid)) continue;
        if (!isIanaZone(tzid)) throw new FeedParseError(`unknown time zone "${clip(tzid)}"`);
        missing.add(tzid);
      }
      yield;
    }
  }
  return [...missing];
}

const isFloating = (time: Time): boolean => time.zone === ICAL.Timezone.localTimezone;

/** The instant of a date-time: UTC and zoned times through ical.js, floating ones in the tenant's zone. */
const instantOf = (time: Time, window: Window): number =>
  isFloating(time)
    ? localInstant(ymdOf(time), time.hour * 60 + time.minute, window.timeZone) + time.second * 1000
    : time.toUnixTime() * 1000;

/**
 * The span of an event or occurrence. An end before the start throws: skipping the event would free dates
 * a channel meant to block. An all-day end on its start day is read as one day, as calendar apps show it.
 */
function spanOf(start: Time, end: Time, number: number, window: Window): FeedEvent {
  if (start.isDate !== end.isDate) throw new FeedParseError(`event ${number} mixes a date and a date-time`);
  if (start.isDate) {
    const first = ymdOf(start);
    const endExclusive = ymdOf(end);
    if (endExclusive < first) throw new FeedParseError(`event ${number} ends before it starts`);
    return { kind: 'dates', first, endExclusive: endExclusive === first ? addDays(first, 1) : endExclusive };
  }
  const span = { kind: 'instants' as const, start: instantOf(start, window), end: instantOf(end, window) };
  if (span.end < span.start) throw new FeedParseError(`event ${number} ends before it starts`);
  return span;
}

/** Whether a span touches the window's dates; an empty span counts where its instant lies. */
const overlaps = (span: FeedEvent, window: Window): boolean =>
  span.kind === 'dates'
    ? span.first <= window.to && span.endExclusive > window.from
    : span.start < window.end &&
      (span.end > window.start || (span.end === span.start && span.start >= window.start));

/** Whether an occurrence starts after the window, where walking a recurrence stops. */
const startsAfter = (time: Time, window: Window): boolean =>
  time.isDate ? ymdOf(time) > window.to : instantOf(time, window) >= window.end;

const isCancelled = (vevent: ICAL.Component): boolean =>
  String(vevent.getFirstPropertyValue('status') ?? '').toUpperCase() === 'CANCELLED';

/** Free time or a cancelled event blocks nothing. */
const isFree = (vevent: ICAL.Component): boolean =>
  isCancelled(vevent) || String(vevent.getFirstPropertyValue('transp') ?? '').toUpperCase() === 'TRANSPARENT';

/** One event's span, if it touches the window. */
function readSingle(event: ICAL.Event, number: number, window: Window): FeedEvent[] {
  if (isFree(event.component)) return [];
  const span = spanOf(event.startDate, event.endDate, number, window);
  return overlaps(span, window) ? [span] : [];
}

/** A wall-clock reading of a time as if it were UTC: within 14 hours of its instant (a date: its midnight). */
const roughInstant = (time: Time): number =>
  Date.UTC(time.year, time.month - 1, time.day, time.hour, time.minute, time.second);

const DAY_MS = 86_400_000;

/**
 * Whether a series' rules all end (UNTIL) before the window, with no RDATE: its walk would find nothing to
 * take, however long (a daily series from 2010 to 2024), so none is made.
 */
function endsBefore(event: ICAL.Event, window: Window, reach: number): boolean {
  if (event.component.hasProperty('rdate')) return false;
  const rules = event.component.getAllProperties('rrule').map((property) => property.getFirstValue());
  return (
    rules.length > 0 &&
    rules.every((rule) => {
      const until = (rule as ICAL.Recur | null)?.until;
      return until !== undefined && until !== null && roughInstant(until) + reach < window.start;
    })
  );
}

/**
 * A recurring event's occurrences that touch the window, walked from its DTSTART (ical.js applies RRULE,
 * RDATE, EXDATE and the RECURRENCE-ID overrides) up to the window's end, at most MAX_OCCURRENCES of them,
 * a step each. An override of an occurrence not looked at (long before the window, or past it) is read on
 * its own.
 */
function* readRecurring(event: ICAL.Event, number: number, window: Window): Generator<void, FeedEvent[]> {
  // The series' own span first: a broken DTEND throws even when every occurrence is long past.
  spanOf(event.startDate, event.endDate, number, window);
  const reach = event.duration.toSeconds() * 1000 + 2 * DAY_MS;
  if (endsBefore(event, window, reach)) {
    // Every occurrence of its rules ended before the window: only its overrides may still touch it.
    return Object.values(event.exceptions).flatMap((override) => readSingle(override, number, window));
  }
  const free = isFree(event.component);
  const taken: FeedEvent[] = [];
  const applied = new Set<ICAL.Event>();
  const iterator = event.iterator();
  let walked = 0;
  for (let next = iterator.next(); next; next = iterator.next()) {
    yield;
    walked += 1;
    if (walked > MAX_OCCURRENCES)
      throw new FeedParseError(
        `event ${number} repeats over ${MAX_OCCURRENCES} times before the window ends`,
      );
    // Most of a long walk ends days before the window: only the iterator's own work is spent on it.
    if (roughInstant(next) + reach < window.start) continue;
    if (startsAfter(next, window)) break;
    const details = event.getOccurrenceDetails(next);
    if (details.item !== event) applied.add(details.item);
    if (details.item === event ? free : isFree(details.item.component)) continue;
    const span = spanOf(details.startDate, details.endDate, number, window);
    if (overlaps(span, window)) taken.push(span);
  }
  for (const override of Object.values(event.exceptions))
    if (!applied.has(override)) taken.push(...readSingle(override, number, window));
  return taken;
}

/** Every span of the feed's events that touches the window, in feed order, a step an event or occurrence. */
function* readEvents(vevents: ICAL.Component[], window: Window): Generator<void, FeedEvent[]> {
  const uids = vevents.map((vevent, index) =>
    textOf(vevent, 'uid', `event ${index + 1} has a UID that cannot be read`),
  );
  // Overrides go to their own series by UID: left to itself, ical.js gives a series every override in the
  // calendar, whatever its UID. An override with no recurring series of its UID is read as an event.
  const series = new Set(
    vevents
      .map((vevent, index) =>
        !vevent.hasProperty('recurrence-id') && (vevent.hasProperty('rrule') || vevent.hasProperty('rdate'))
          ? uids[index]
          : undefined,
      )
      .filter((uid) => uid !== undefined),
  );
  const overrides = new Map<string, ICAL.Component[]>();
  for (const [index, vevent] of vevents.entries()) {
    const uid = uids[index] as string;
    if (!vevent.hasProperty('recurrence-id') || !series.has(uid)) continue;
    overrides.set(uid, [...(overrides.get(uid) ?? []), vevent]);
  }
  const taken: FeedEvent[] = [];
  for (const [index, vevent] of vevents.entries()) {
    yield;
    const number = index + 1;
    const uid = uids[index] as string;
    if (vevent.hasProperty('recurrence-id') && series.has(uid)) continue;
    if (!vevent.hasProperty('dtstart')) throw new FeedParseError(`event ${number} has no DTSTART`);
    try {
      const event = new ICAL.Event(vevent, { strictExceptions: true, exceptions: overrides.get(uid) ?? [] });
      if (!event.isRecurring()) taken.push(...readSingle(event, number, window));
      // A cancelled series cancels its overrides with it; a free one may have busy occurrences.
      else if (!isCancelled(vevent)) taken.push(...(yield* readRecurring(event, number, window)));
    } catch (error) {
      if (error instanceof FeedParseError) throw error;
      throw new FeedParseError(`event ${number} cannot be read`, { cause: error });
    }
  }
  return taken;
}

/**
 * Reads a channel's iCalendar feed: the all-day and timed spans its events (and their recurrences) take
 * that touch the local dates `from`..`to` (both included); floating times are read in `timeZone`.
 * Cancelled events and free time (TRANSP:TRANSPARENT) block nothing; every other event does, whatever its
 * summary. `events` counts the feed's VEVENTs before any of this. The read runs under `budget` (a fresh
 * one unless given), in slices that leave the thread to others between them. Rejects with FeedParseError
 * for anything that is not a whole, readable VCALENDAR, or that takes over the budget to read.
 */
export async function readFeed(
  text: string,
  options: { timeZone: string; from: Ymd; to: Ymd; budget?: ReadBudget },
): Promise<{ events: number; taken: FeedEvent[] }> {
  const { timeZone, from, to } = options;
  if (!isRealYmd(from) || !isRealYmd(to) || from > to)
    throw new RangeError('from and to are dates, from <= to');
  if (!isIanaZone(timeZone)) throw new RangeError('timeZone is an IANA time zone');
  const window: Window = {
    from,
    to,
    timeZone,
    start: localInstant(from, 0, timeZone),
    end: localInstant(addDays(to, 1), 0, timeZone),
  };
  const budget = options.budget ?? new ReadBudget();
  try {
    const calendars = await budget.walk(() => parseCalendars(text));
    const vevents = await budget.walk(function* () {
      yield;
      return calendars.flatMap((calendar) => calendar.getAllSubcomponents('vevent'));
    });
    // ical.js looks a TZID up in the feed's own VTIMEZONEs, then in its global service: the missing IANA
    // zones are lent to it while this feed is read.
    const zones = await budget.walk(() => missingZones(calendars));
    borrowZones(zones);
    try {
      return { events: vevents.length, taken: await budget.walk(() => readEvents(vevents, window)) };
    } finally {
      returnZones(zones);
    }
  } catch (error) {
    // Whatever else ical.js throws on what a feed says (a value it cannot read where it reads it), the feed
    // is unreadable: never an error of the service's.
    if (error instanceof FeedParseError || error instanceof ReadAbandonedError) throw error;
    throw new FeedParseError('the feed cannot be read', { cause: error });
  }
}
