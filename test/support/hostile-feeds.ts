// Feeds an adversary serves a channel sync (issue 41): short to send, costly to read as they were read.

const calendarOf = (events: string[][]): string =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//A//EN',
    ...events.flatMap((lines, index) => ['BEGIN:VEVENT', `UID:${index}`, ...lines, 'END:VEVENT']),
    'END:VCALENDAR',
    '',
  ].join('\r\n');

/**
 * The feed (173 bytes with `count` 600): an all-day event from 1975 to 2035, repeated daily `count`
 * times, `events` times over. Every occurrence covers the whole two-year window.
 */
export const repeatedFeed = (count: number, events = 1): string =>
  calendarOf(
    Array.from({ length: events }, () => [
      'DTSTART;VALUE=DATE:19750101',
      'DTEND;VALUE=DATE:20350101',
      `RRULE:FREQ=DAILY;COUNT=${count}`,
    ]),
  );

/** A rule no date satisfies (a Tuesday every seventh day from a Monday): ical.js spins inside one step. */
export const spinningFeed = (): string =>
  calendarOf([
    ['DTSTART:20310106T100000Z', 'DTEND:20310106T110000Z', 'RRULE:FREQ=DAILY;INTERVAL=7;BYDAY=TU'],
  ]);

/** A feed of one-day events just under the fetcher's 2 MB cap: the longest single parse a feed can ask for. */
export function largestFeed(first: string): string {
  const day = (offset: number) => {
    const date = new Date(Date.UTC(+first.slice(0, 4), +first.slice(4, 6) - 1, +first.slice(6, 8) + offset));
    return date.toISOString().slice(0, 10).replaceAll('-', '');
  };
  const events: string[][] = [];
  // The calendar's own lines, then each event's: its lines, BEGIN, UID and END, each with its CRLF.
  let bytes = 60;
  for (let index = 0; ; index += 1) {
    const lines = [
      `DTSTART;VALUE=DATE:${day(index % 700)}`,
      `DTEND;VALUE=DATE:${day((index % 700) + 1)}`,
      'SUMMARY:Reserved',
    ];
    const size = lines.reduce((sum, line) => sum + line.length + 2, 0) + 32 + String(index).length;
    if (bytes + size > 2 * 1024 * 1024) break;
    bytes += size;
    events.push(lines);
  }
  return calendarOf(events);
}

/**
 * One event whose extra property has a stray double quote in a value and then 480,000 parameters, just
 * under the fetcher's 2 MB: a guard that took any quote for the start of a quoted value saw none of them.
 */
export const strayQuoteFeed = (): string =>
  calendarOf([
    ['DTSTART;VALUE=DATE:20310105', 'DTEND;VALUE=DATE:20310106', `X-NOTE;P=a"${';Q=1'.repeat(480_000)}:note`],
  ]);

/**
 * Forty events from `first` whose every occurrence costs ical.js 100 to 200 ms to find (a SECONDLY rule
 * that matches once in two months, walked second by second): every step of the read is a long one, and
 * the walk through the window is over the read's budget.
 */
export const slowStepsFeed = (first: string): string =>
  calendarOf(
    Array.from({ length: 40 }, () => [
      `DTSTART:${first}T000000Z`,
      `DTEND:${first}T000100Z`,
      'RRULE:FREQ=SECONDLY;BYMONTH=1,3,5,7,9,11;BYMONTHDAY=1;BYHOUR=0;BYMINUTE=0;BYSECOND=0',
    ]),
  );
