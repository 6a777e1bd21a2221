import { readFileSync } from 'node:fs';
import ICAL from 'ical.js';
import { describe, expect, it } from 'vitest';
import { FeedParseError } from '#lib/channels/feed-error.ts';
import { type FeedEvent, readFeed } from '#lib/channels/feed-parse.ts';

// Reading a channel's iCalendar feed (lib/channels/feed-parse.ts). The stored fixtures are shaped like each
// channel's published feed (test/fixtures/ical/); the smaller feeds are built here, one property per line.
// Every date lies in 2031..2032 and every read names its window, so nothing goes stale.

const BERLIN = 'Europe/Berlin';
const fixture = (name: string): string => readFileSync(`test/fixtures/ical/${name}`, 'utf8');
const dates = (first: string, endExclusive: string): FeedEvent => ({ kind: 'dates', first, endExclusive });
const instants = (start: string, end: string): FeedEvent => ({
  kind: 'instants',
  start: Date.parse(start),
  end: Date.parse(end),
});

/** Reads a feed over a window (all of 2031 unless told), in Berlin unless told. */
const read = (text: string, window: { from?: string; to?: string; timeZone?: string } = {}) =>
  readFeed(text, { from: '20310101', to: '20311231', timeZone: BERLIN, ...window });

/** Runs a read with the process in another time zone until the read is done, then restores it. */
async function inProcessZoneWhile<T>(zone: string, read: () => Promise<T>): Promise<T> {
  const saved = process.env.TZ;
  process.env.TZ = zone;
  try {
    return await read();
  } finally {
    if (saved === undefined) delete process.env.TZ;
    else process.env.TZ = saved;
  }
}

/** A VCALENDAR of the given lines. */
const calendar = (...lines: string[]): string =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Test//Feeds//EN', ...lines, 'END:VCALENDAR', ''].join('\r\n');

let uids = 0;
/** A VEVENT of the given properties, with a UID of its own unless one is given. */
function vevent(...lines: string[]): string[] {
  uids += 1;
  const uid = lines.some((line) => /^UID[;:]/.test(line)) ? [] : [`UID:event-${uids}@test.example`];
  return ['BEGIN:VEVENT', ...uid, 'DTSTAMP:20310101T000000Z', ...lines, 'END:VEVENT'];
}
const allDay = (first: string, endExclusive: string, ...more: string[]) =>
  vevent(`DTSTART;VALUE=DATE:${first}`, `DTEND;VALUE=DATE:${endExclusive}`, ...more);

/** The reason a feed is refused with. */
async function refusal(text: string): Promise<string> {
  try {
    await read(text);
  } catch (error) {
    expect(error).toBeInstanceOf(FeedParseError);
    return (error as FeedParseError).reason;
  }
  throw new Error('the feed was read');
}

describe('channel feeds', () => {
  it('reads Airbnb: reservations and blocks, folded descriptions, no DTSTAMP', async () => {
    expect(await read(fixture('airbnb.ics'), { from: '20310601', to: '20310930' })).toEqual({
      events: 6,
      // 05-05..05-10 is past; 05-26..06-01 leaves on the window's first day, so takes none of it.
      taken: [
        dates('20310528', '20310603'),
        dates('20310610', '20310614'),
        dates('20310620', '20310701'),
        dates('20310901', '20320601'),
      ],
    });
  });

  it('reads Booking.com: a byte order mark, CLOSED - Not available', async () => {
    expect(await read(fixture('booking-com.ics'), { from: '20310601', to: '20310630' })).toEqual({
      events: 3,
      taken: [dates('20310605', '20310608'), dates('20310612', '20310613')],
    });
  });

  it('reads Vrbo: LF line endings, guest names in the summary', async () => {
    expect(await read(fixture('vrbo.ics'), { from: '20310701', to: '20310731' })).toEqual({
      events: 3,
      taken: [dates('20310703', '20310710'), dates('20310712', '20310719')],
    });
  });

  it('reads Google: zoned, UTC and all-day events, a recurrence with EXDATE and a moved occurrence, free and cancelled events', async () => {
    expect(await read(fixture('google.ics'), { from: '20310301', to: '20310630' })).toEqual({
      events: 9,
      taken: [
        // Mondays 09:00-11:00 Berlin until 7 April, not 24 March, 31 March moved to 13:00; summer time from 30 March.
        instants('2031-03-17T08:00Z', '2031-03-17T10:00Z'),
        instants('2031-03-31T11:00Z', '2031-03-31T13:00Z'),
        instants('2031-04-07T07:00Z', '2031-04-07T09:00Z'),
        instants('2031-06-12T12:00Z', '2031-06-12T15:00Z'),
        instants('2031-06-18T08:00Z', '2031-06-18T10:00Z'),
        dates('20310625', '20310627'),
        // A weekly all-day event, three times. The cancelled 15 June and the free 16 June take nothing; the
        // daily event of November and December 2030 is over.
        dates('20310601', '20310602'),
        dates('20310608', '20310609'),
        dates('20310615', '20310616'),
      ],
    });
  });

  it('reads a feed the same with CRLF or LF line endings and with or without a byte order mark', async () => {
    const crlf = fixture('google.ics');
    const window = { from: '20310301', to: '20310630' };
    const expected = await read(crlf, window);
    expect(crlf).toContain('\r\n ');
    for (const text of [
      crlf.replaceAll('\r\n', '\n'),
      `\uFEFF${crlf}`,
      `\uFEFF${crlf.replaceAll('\r\n', '\n')}`,
    ])
      expect(await read(text, window)).toEqual(expected);
  });

  it('follows a rolling window: the next day, the block past the booking window moves on a day', async () => {
    const dayOne = await read(fixture('airbnb-rolling-day-1.ics'), { from: '20310601', to: '20310929' });
    const dayTwo = await read(fixture('airbnb-rolling-day-2.ics'), { from: '20310602', to: '20310930' });
    expect(dayOne.taken).toEqual([
      dates('20310530', '20310603'),
      dates('20310615', '20310618'),
      dates('20310901', '20320601'),
    ]);
    expect(dayTwo.taken).toEqual([
      dates('20310530', '20310603'),
      dates('20310615', '20310618'),
      dates('20310620', '20310622'),
      dates('20310902', '20320602'),
    ]);
  });

  it('tells an empty calendar from one whose events are all past', async () => {
    expect(await read(fixture('empty-calendar.ics'))).toEqual({ events: 0, taken: [] });
    expect(await read(fixture('airbnb.ics'), { from: '20330101', to: '20331231' })).toEqual({
      events: 6,
      taken: [],
    });
  });
});

describe('what an event takes', () => {
  it('blocks whatever the summary says, and with none', async () => {
    const summaries = [
      'Reserved',
      'Not available',
      'Airbnb (Not available)',
      'CLOSED - Not available',
      'Jane Doe',
    ];
    const text = calendar(
      ...summaries.flatMap((summary) => allDay('20310105', '20310106', `SUMMARY:${summary}`)),
      ...allDay('20310105', '20310106'),
      ...allDay('20310105', '20310106', 'STATUS:TENTATIVE', 'TRANSP:OPAQUE'),
    );
    expect((await read(text)).taken).toEqual(Array(7).fill(dates('20310105', '20310106')));
  });

  it('skips cancelled events and free time, in any letter case', async () => {
    const text = calendar(
      ...allDay('20310105', '20310106', 'STATUS:CANCELLED'),
      ...allDay('20310107', '20310108', 'TRANSP:TRANSPARENT'),
      ...allDay('20310109', '20310110', 'STATUS:cancelled'),
      ...allDay('20310111', '20310112', 'STATUS:CONFIRMED'),
    );
    expect(await read(text)).toEqual({ events: 4, taken: [dates('20310111', '20310112')] });
  });

  it.each([
    ['no DTEND is one day', ['DTSTART;VALUE=DATE:20310105'], dates('20310105', '20310106')],
    [
      'a DTEND on the start day is one day',
      ['DTSTART;VALUE=DATE:20310105', 'DTEND;VALUE=DATE:20310105'],
      dates('20310105', '20310106'),
    ],
    [
      'a DURATION counts days',
      ['DTSTART;VALUE=DATE:20310105', 'DURATION:P3D'],
      dates('20310105', '20310108'),
    ],
    [
      'a leap day is a day',
      ['DTSTART;VALUE=DATE:20320229', 'DTEND;VALUE=DATE:20320301'],
      dates('20320229', '20320301'),
    ],
    [
      'a timed DURATION',
      ['DTSTART:20310105T100000Z', 'DURATION:PT90M'],
      instants('2031-01-05T10:00Z', '2031-01-05T11:30Z'),
    ],
    [
      'a timed event with no DTEND is an empty span at its start',
      ['DTSTART:20310105T100000Z'],
      instants('2031-01-05T10:00Z', '2031-01-05T10:00Z'),
    ],
  ])('all-day and timed ends: %s', async (_, lines, expected) => {
    expect((await read(calendar(...vevent(...lines)), { to: '20321231' })).taken).toEqual([expected]);
  });

  it.each([
    ['an all-day event leaving on the first day', allDay('20310526', '20310601'), false],
    ['an all-day event arriving on the last day', allDay('20310630', '20310702'), true],
    ['an all-day event arriving the day after', allDay('20310701', '20310702'), false],
    ['an all-day event around the window', allDay('20310501', '20310801'), true],
    [
      'a timed event ending at midnight Berlin as the window opens',
      vevent('DTSTART:20310531T200000Z', 'DTEND:20310531T220000Z'),
      false,
    ],
    [
      'a timed event ending a second into the window',
      vevent('DTSTART:20310531T200000Z', 'DTEND:20310531T220001Z'),
      true,
    ],
    [
      'a timed event starting a second before the window closes',
      vevent('DTSTART:20310630T215959Z', 'DTEND:20310630T230000Z'),
      true,
    ],
    [
      'a timed event starting at midnight Berlin after the last day',
      vevent('DTSTART:20310630T220000Z', 'DTEND:20310630T230000Z'),
      false,
    ],
    ['an empty span as the window opens', vevent('DTSTART:20310531T220000Z'), true],
    ['an empty span as the window closes', vevent('DTSTART:20310630T220000Z'), false],
  ])('keeps only what touches the window (June 2031): %s', async (_, lines, kept) => {
    expect((await read(calendar(...lines), { from: '20310601', to: '20310630' })).taken).toHaveLength(
      kept ? 1 : 0,
    );
  });
});

describe('time zones', () => {
  it('reads a TZID by the feed’s own VTIMEZONE, whatever its name', async () => {
    const text = calendar(
      'BEGIN:VTIMEZONE',
      'TZID:Ferienhaus Zeit',
      'BEGIN:STANDARD',
      'DTSTART:19700101T000000',
      'TZOFFSETFROM:+0300',
      'TZOFFSETTO:+0300',
      'END:STANDARD',
      'END:VTIMEZONE',
      ...vevent('DTSTART;TZID=Ferienhaus Zeit:20310705T100000', 'DTEND;TZID=Ferienhaus Zeit:20310705T120000'),
    );
    expect((await read(text)).taken).toEqual([instants('2031-07-05T07:00Z', '2031-07-05T09:00Z')]);
  });

  it('reads a TZID with no VTIMEZONE as the IANA zone of that name, exactly, as Google writes it', async () => {
    // Sundays at 20:00 New York, across the change to summer time on 9 March. UNTIL is a second before the
    // 16 March occurrence (00:00Z on the 17th): a reading that took the times as UTC would keep it.
    const text = calendar(
      ...vevent(
        'DTSTART;TZID=America/New_York:20310302T200000',
        'DTEND;TZID=America/New_York:20310302T210000',
        'RRULE:FREQ=WEEKLY;UNTIL=20310316T235959Z',
      ),
    );
    expect((await read(text)).taken).toEqual([
      instants('2031-03-03T01:00Z', '2031-03-03T02:00Z'),
      instants('2031-03-10T00:00Z', '2031-03-10T01:00Z'),
    ]);
  });

  it('resolves TZID=UTC with no VTIMEZONE', async () => {
    const text = calendar(...vevent('DTSTART;TZID=UTC:20310705T100000', 'DTEND;TZID=UTC:20310705T120000'));
    expect((await read(text)).taken).toEqual([instants('2031-07-05T10:00Z', '2031-07-05T12:00Z')]);
  });

  it('leaves no zone of a feed behind in ical.js’s shared time zone service', async () => {
    const text = calendar(...vevent('DTSTART;TZID=Asia/Kathmandu:20310705T100000'));
    expect((await read(text)).taken).toEqual([instants('2031-07-05T04:15Z', '2031-07-05T04:15Z')]);
    expect(ICAL.TimezoneService.has('Asia/Kathmandu')).toBe(false);
  });

  it('reads floating times in the tenant’s zone', async () => {
    const text = calendar(...vevent('DTSTART:20310705T100000', 'DTEND:20310705T120000'));
    expect((await read(text)).taken).toEqual([instants('2031-07-05T08:00Z', '2031-07-05T10:00Z')]);
    expect((await read(text, { timeZone: 'America/Toronto' })).taken).toEqual([
      instants('2031-07-05T14:00Z', '2031-07-05T16:00Z'),
    ]);
  });

  it('reads the same whatever the process’s own time zone', async () => {
    const window = { from: '20310301', to: '20310630' };
    const expected = await read(fixture('google.ics'), window);
    for (const zone of ['Pacific/Kiritimati', 'America/Los_Angeles', 'UTC'])
      expect(await inProcessZoneWhile(zone, () => read(fixture('google.ics'), window))).toEqual(expected);
  });
});

describe('recurrences', () => {
  it('walks only up to the window, and keeps only what touches it', async () => {
    const text = calendar(...allDay('20310101', '20310102', 'RRULE:FREQ=DAILY'));
    const { taken } = await read(text, { from: '20310301', to: '20310331' });
    expect(taken).toHaveLength(31);
    expect(taken[0]).toEqual(dates('20310301', '20310302'));
    expect(taken.at(-1)).toEqual(dates('20310331', '20310401'));
  });

  it('adds RDATEs and removes EXDATEs', async () => {
    const text = calendar(
      ...allDay(
        '20310105',
        '20310106',
        'RRULE:FREQ=DAILY;COUNT=3',
        'RDATE;VALUE=DATE:20310110',
        'EXDATE;VALUE=DATE:20310106',
      ),
    );
    expect((await read(text)).taken).toEqual([
      dates('20310105', '20310106'),
      dates('20310107', '20310108'),
      dates('20310110', '20310111'),
    ]);
  });

  it('gives each series only its own moved occurrences (ical.js, left alone, gives a series all of them)', async () => {
    const series = (uid: string, first: string) =>
      vevent(`UID:${uid}`, `DTSTART:${first}T100000Z`, `DTEND:${first}T110000Z`, 'RRULE:FREQ=DAILY;COUNT=2');
    const text = calendar(
      ...series('a@test.example', '20310105'),
      ...series('b@test.example', '20310105'),
      ...vevent(
        'UID:a@test.example',
        'RECURRENCE-ID:20310106T100000Z',
        'DTSTART:20310106T150000Z',
        'DTEND:20310106T160000Z',
      ),
    );
    expect((await read(text)).taken).toEqual([
      instants('2031-01-05T10:00Z', '2031-01-05T11:00Z'),
      instants('2031-01-06T15:00Z', '2031-01-06T16:00Z'),
      instants('2031-01-05T10:00Z', '2031-01-05T11:00Z'),
      instants('2031-01-06T10:00Z', '2031-01-06T11:00Z'),
    ]);
  });

  it('takes an occurrence moved into the window from past its end, and not one moved out of it', async () => {
    const text = calendar(
      ...vevent(
        'UID:s@test.example',
        'DTSTART:20310601T100000Z',
        'DTEND:20310601T110000Z',
        'RRULE:FREQ=MONTHLY;COUNT=3',
      ),
      ...vevent(
        'UID:s@test.example',
        'RECURRENCE-ID:20310801T100000Z',
        'DTSTART:20310610T100000Z',
        'DTEND:20310610T110000Z',
      ),
      ...vevent(
        'UID:s@test.example',
        'RECURRENCE-ID:20310701T100000Z',
        'DTSTART:20310901T100000Z',
        'DTEND:20310901T110000Z',
      ),
    );
    expect((await read(text, { from: '20310601', to: '20310731' })).taken).toEqual([
      instants('2031-06-01T10:00Z', '2031-06-01T11:00Z'),
      instants('2031-06-10T10:00Z', '2031-06-10T11:00Z'),
    ]);
  });

  it('takes an occurrence begun before the window that reaches into it, and one moved in from long before', async () => {
    const text = calendar(
      ...allDay('20310101', '20310111', 'UID:s@test.example', 'RRULE:FREQ=MONTHLY;COUNT=6'),
      ...allDay('20310310', '20310311', 'UID:s@test.example', 'RECURRENCE-ID;VALUE=DATE:20310101'),
      ...allDay('20310201', '20310202', 'UID:s@test.example', 'RECURRENCE-ID;VALUE=DATE:20310201'),
    );
    expect((await read(text, { from: '20310305', to: '20310331' })).taken).toEqual([
      dates('20310301', '20310311'),
      dates('20310310', '20310311'),
    ]);
  });

  it('refuses a series that ends before it starts, even with every occurrence past', async () => {
    const text = calendar(...allDay('20300105', '20300103', 'RRULE:FREQ=DAILY;COUNT=3'));
    expect(await refusal(text)).toBe('event 1 ends before it starts');
  });

  it('frees a cancelled occurrence, and all of a cancelled series', async () => {
    const text = calendar(
      ...allDay('20310105', '20310106', 'UID:s@test.example', 'RRULE:FREQ=DAILY;COUNT=3'),
      ...allDay(
        '20310106',
        '20310107',
        'UID:s@test.example',
        'RECURRENCE-ID;VALUE=DATE:20310106',
        'STATUS:CANCELLED',
      ),
      ...allDay('20310205', '20310206', 'RRULE:FREQ=DAILY;COUNT=3', 'STATUS:CANCELLED'),
    );
    expect((await read(text)).taken).toEqual([dates('20310105', '20310106'), dates('20310107', '20310108')]);
  });

  it('frees the occurrences of a free series, but not one of them made busy', async () => {
    const text = calendar(
      ...allDay(
        '20310105',
        '20310106',
        'UID:s@test.example',
        'RRULE:FREQ=DAILY;COUNT=3',
        'TRANSP:TRANSPARENT',
      ),
      ...allDay(
        '20310106',
        '20310107',
        'UID:s@test.example',
        'RECURRENCE-ID;VALUE=DATE:20310106',
        'TRANSP:OPAQUE',
      ),
    );
    expect((await read(text)).taken).toEqual([dates('20310106', '20310107')]);
  });

  it('refuses a recurrence that needs more than 20000 occurrences to reach the window', async () => {
    const hourly = calendar(
      ...vevent('DTSTART:20310101T000000Z', 'DTEND:20310101T010000Z', 'RRULE:FREQ=HOURLY'),
    );
    expect((await read(hourly, { from: '20310101', to: '20310102' })).taken).toHaveLength(47);
    await expect(read(hourly, { from: '20340101', to: '20340101' })).rejects.toThrow(
      new FeedParseError('event 1 repeats over 20000 times before the window ends'),
    );
  });

  it('reads past a finished series without walking it, and past a daily one begun decades ago', async () => {
    const finished = calendar(
      ...vevent(
        'DTSTART;VALUE=DATE:19900101',
        'DTEND;VALUE=DATE:19900102',
        'RRULE:FREQ=HOURLY;UNTIL=20240101T000000Z',
      ),
      ...vevent('DTSTART;VALUE=DATE:20310105', 'DTEND;VALUE=DATE:20310106'),
    );
    expect((await read(finished, { from: '20310101', to: '20310110' })).taken).toEqual([
      { kind: 'dates', first: '20310105', endExclusive: '20310106' },
    ]);
    const daily = calendar(
      ...vevent('DTSTART;VALUE=DATE:19900101', 'DTEND;VALUE=DATE:19900102', 'RRULE:FREQ=DAILY'),
    );
    expect((await read(daily, { from: '20310101', to: '20310102' })).taken).toHaveLength(2);
  });

  it('refuses a property with hundreds of thousands of parameters before ical.js reads it', async () => {
    const crowded = calendar(
      ...vevent(`DTSTART;VALUE=DATE;${'X=a;'.repeat(100_000)}X=a:20310105`, 'DTEND;VALUE=DATE:20310106'),
    );
    expect(await refusal(crowded)).toMatch(/^line \d+ has over 100 parameters$/);
    // A stray quote in a value (`P=a"`) opens nothing for ical.js, and hides no parameter from the count.
    const strayQuote = calendar(
      ...allDay('20310105', '20310106', `X-NOTE;P=a"${';Q=1'.repeat(100_000)}:note`),
    );
    expect(await refusal(strayQuote)).toBe('line 9 has over 100 parameters');
    // Quoted ';' and ':' are a parameter's value, and a value may hold any number of ';'.
    const fine = calendar(
      ...vevent(
        'DTSTART;VALUE=DATE:20310105',
        'DTEND;VALUE=DATE:20310106',
        'ATTENDEE;CN="Smith; Jones: guests":mailto:a@example.com',
        `DESCRIPTION:${'a;'.repeat(500)}`,
      ),
    );
    expect((await read(fine, { from: '20310101', to: '20310110' })).taken).toHaveLength(1);
  });

  it('refuses a rule no date satisfies, on which ical.js would spin for ever, within its time budget', async () => {
    // A Tuesday every seventh day from a Monday never comes: ical.js loops inside a single step.
    const never = calendar(
      ...vevent('DTSTART:20310106T100000Z', 'DTEND:20310106T110000Z', 'RRULE:FREQ=DAILY;INTERVAL=7;BYDAY=TU'),
    );
    const started = performance.now();
    expect(await refusal(never)).toMatch(/takes too long/);
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});

describe('refused feeds', () => {
  it.each([
    ['an empty string', '', /^not an iCalendar feed/],
    ['blank lines', ' \r\n\r\n', /^not an iCalendar feed/],
    ['an HTML error page', fixture('html-error.ics'), /^not an iCalendar feed \(an HTML page\)$/],
    ['JSON', '{"error":"Calendar not found","status":404}', /^not an iCalendar feed \(JSON\)$/],
    ['plain text', 'Service temporarily unavailable, please retry', /^not an iCalendar feed$/],
    ['a truncated feed', fixture('malformed.ics'), /^truncated feed/],
    [
      'a feed missing END:VCALENDAR',
      calendar(...allDay('20310105', '20310106')).replace('END:VCALENDAR\r\n', ''),
      /^truncated feed/,
    ],
    ['a vCard', 'BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Jane Doe\r\nEND:VCARD\r\n', /^no VCALENDAR$/],
    [
      'a line with no colon',
      calendar(...allDay('20310105', '20310106'), 'SOME LOOSE TEXT'),
      /^malformed line 10$/,
    ],
    ['an event with no DTSTART', calendar(...vevent('SUMMARY:Reserved')), /^event 1 has no DTSTART$/],
    [
      'an all-day event ending before it starts',
      calendar(...allDay('20310105', '20310103')),
      /^event 1 ends before it starts$/,
    ],
    [
      'a timed event ending before it starts',
      calendar(...vevent('DTSTART:20310105T100000Z', 'DTEND:20310105T090000Z')),
      /^event 1 ends before it starts$/,
    ],
    [
      'a negative DURATION',
      calendar(...vevent('DTSTART:20310105T100000Z', 'DURATION:-PT1H')),
      /^event 1 ends before it starts$/,
    ],
    [
      'a date ending at a date-time',
      calendar(...vevent('DTSTART;VALUE=DATE:20310105', 'DTEND:20310106T100000Z')),
      /^event 1 mixes a date and a date-time$/,
    ],
    [
      'a date that is not one',
      calendar(...vevent('DTSTART;VALUE=DATE:2031AB05')),
      /^event 1 cannot be read$/,
    ],
    [
      'a UID given a type its text is not',
      calendar(...allDay('20310105', '20310106', 'UID;VALUE=DATE-TIME:garbage')),
      /^event 1 has a UID that cannot be read$/,
    ],
    [
      'a VTIMEZONE whose TZID is given a type its text is not',
      calendar(
        'BEGIN:VTIMEZONE',
        'TZID;VALUE=DATE-TIME:garbage',
        'END:VTIMEZONE',
        ...allDay('20310105', '20310106'),
      ),
      /^a VTIMEZONE has a TZID that cannot be read$/,
    ],
    [
      'a status given a type its text is not',
      calendar(...allDay('20310105', '20310106', 'STATUS;VALUE=DATE:garbage')),
      /^event 1 cannot be read$/,
    ],
    [
      'an unknown time zone',
      calendar(...vevent('DTSTART;TZID=W. Europe Standard Time:20310105T100000')),
      /^unknown time zone "W\. Europe Standard Time"$/,
    ],
  ])('refuses %s', async (_, text, reason) => {
    expect(await refusal(text)).toMatch(reason);
  });

  it('says why in a few words, quoting nothing of the feed but a clipped TZID', async () => {
    const secret = 'Reservation for Jane Doe, +49 170 1234567, door code 4711';
    expect(await refusal(`${fixture('html-error.ics')}${secret}`)).not.toMatch(/503|Jane/);
    expect(await refusal(calendar(...allDay('20310105', '20310106'), secret))).toBe('malformed line 10');
    expect(
      await refusal(calendar(...vevent(`DTSTART;TZID=${secret.replaceAll(',', '')}:20310105T100000`))),
    ).toBe('unknown time zone "Reservation for Jane Doe +49 170 123456…"');
  });

  it('is a FeedParseError with a code, whose message is its reason', async () => {
    try {
      await read('');
    } catch (error) {
      expect(error).toMatchObject({
        name: 'FeedParseError',
        code: 'invalid_feed',
        message: 'not an iCalendar feed (empty)',
      });
    }
    expect.assertions(1);
  });

  it('takes a window of real dates in order and a real time zone', async () => {
    const text = fixture('empty-calendar.ics');
    await expect(read(text, { from: '20310230' })).rejects.toThrow(RangeError);
    await expect(read(text, { from: '20310201', to: '20310131' })).rejects.toThrow(RangeError);
    await expect(read(text, { timeZone: 'Mars/Olympus' })).rejects.toThrow(RangeError);
  });
});
