import ical from 'node-ical';
import { describe, expect, it, vi } from 'vitest';
import { writeBookingsFeed } from '#lib/channels/export-bookings.ts';
import { type ExportRun, writeFeed } from '#lib/channels/export-calendar.ts';
import { type FeedEvent, readFeed } from '#lib/channels/feed-parse.ts';
import { readByNodeIcal } from '#test/support/ical.ts';
import { inProcessZone } from '#test/support/wall-clock.ts';

// Writing an item's channel feed (lib/channels/export-calendar.ts) with ical-generator, checked as text and
// read back by this service's reader (ical.js) and by a second, independent parser (node-ical).

const BERLIN = 'Europe/Berlin';
const STAMP = Date.parse('2031-05-01T09:30:00Z');

type Feed = Parameters<typeof writeFeed>[0];
/** Flat 7's feed in Berlin, with the given runs and anything else overridden. */
const feedOf = (runs: ExportRun[], overrides: Partial<Feed> = {}): string =>
  writeFeed({
    name: 'Seaside Flat',
    prodId: { company: 'Demo Rentals', product: 'Booking Service' },
    uidDomain: 'demo.example',
    itemId: 7,
    timeZone: BERLIN,
    runs,
    stamp: STAMP,
    ...overrides,
  });
const days = (first: string, last: string): ExportRun => ({ kind: 'dates', first, last });
const hours = (start: string, end: string): ExportRun => ({
  kind: 'hours',
  start: Date.parse(start),
  end: Date.parse(end),
});
const uidsOf = (text: string): string[] => [...text.matchAll(/^UID:(.*)$/gm)].map((match) => match[1] ?? '');
/** The text with its folded lines joined again (RFC 5545 3.1). */
const unfolded = (text: string): string => text.replaceAll('\r\n ', '');

/** What a run reads back as. */
const readBackAs = (run: ExportRun): FeedEvent => {
  if (run.kind === 'hours') return { kind: 'instants', start: run.start, end: run.end };
  const next = new Date(
    Date.parse(`${run.last.slice(0, 4)}-${run.last.slice(4, 6)}-${run.last.slice(6)}T00:00Z`),
  );
  next.setUTCDate(next.getUTCDate() + 1);
  return {
    kind: 'dates',
    first: run.first,
    endExclusive: next.toISOString().slice(0, 10).replaceAll('-', ''),
  };
};

describe('writeFeed', () => {
  it('writes dates as all-day events with an exclusive DTEND, nothing but "Not available"', async () => {
    expect(feedOf([days('20310105', '20310107'), days('20310110', '20310110')]).split('\r\n')).toEqual([
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//Demo Rentals//Booking Service//EN',
      'NAME:Seaside Flat',
      'X-WR-CALNAME:Seaside Flat',
      'BEGIN:VEVENT',
      'UID:item-7-20310108@demo.example',
      'SEQUENCE:0',
      'DTSTAMP:20310501T093000Z',
      'DTSTART;VALUE=DATE:20310105',
      'DTEND;VALUE=DATE:20310108',
      'X-MICROSOFT-CDO-ALLDAYEVENT:TRUE',
      'X-MICROSOFT-MSNCALENDAR-ALLDAYEVENT:TRUE',
      'SUMMARY:Not available',
      'TRANSP:OPAQUE',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:item-7-20310111@demo.example',
      'SEQUENCE:0',
      'DTSTAMP:20310501T093000Z',
      'DTSTART;VALUE=DATE:20310110',
      'DTEND;VALUE=DATE:20310111',
      'X-MICROSOFT-CDO-ALLDAYEVENT:TRUE',
      'X-MICROSOFT-MSNCALENDAR-ALLDAYEVENT:TRUE',
      'SUMMARY:Not available',
      'TRANSP:OPAQUE',
      'END:VEVENT',
      'END:VCALENDAR',
      '',
    ]);
  });

  it('keeps a run’s UID while its start moves on and its end stays, and changes it with the end', async () => {
    expect(uidsOf(feedOf([days('20310105', '20310107')]))).toEqual(['item-7-20310108@demo.example']);
    expect(uidsOf(feedOf([days('20310106', '20310107')]))).toEqual(['item-7-20310108@demo.example']);
    expect(uidsOf(feedOf([days('20310106', '20310108')]))).toEqual(['item-7-20310109@demo.example']);
    expect(uidsOf(feedOf([hours('2031-06-02T08:00Z', '2031-06-02T10:00Z')]))).toEqual([
      'item-7-20310602T100000Z@demo.example',
    ]);
    expect(uidsOf(feedOf([hours('2031-06-02T09:00Z', '2031-06-02T10:00Z')]))).toEqual([
      'item-7-20310602T100000Z@demo.example',
    ]);
  });

  it('writes the same bytes for the same input, whatever the clock and the process’s time zone', async () => {
    const runs = [days('20310105', '20310107'), hours('2031-06-02T08:00Z', '2031-06-02T10:00Z')];
    const first = feedOf(runs);
    vi.useFakeTimers({ now: Date.parse('2040-01-01T00:00:00Z') });
    try {
      expect(feedOf(runs)).toBe(first);
      for (const zone of ['Pacific/Kiritimati', 'America/Los_Angeles', 'Asia/Kathmandu'])
        expect(inProcessZone(zone, () => feedOf(runs))).toBe(first);
    } finally {
      vi.useRealTimers();
    }
  });

  it('folds long lines to at most 75 octets, whole characters, and escapes , ; \\ and line breaks', async () => {
    const name = `Ferienwohnung „Seeblick“; Balkon, Meerblick \\ Süd 🏖️\nINJECTED:1 ${'Zimmer mit Aussicht '.repeat(6)}`;
    const text = feedOf([days('20310105', '20310107')], {
      name,
      prodId: { company: 'Demo; Rentals, Inc.', product: 'Booking\nService' },
    });
    for (const line of text.split('\r\n')) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
    expect(text).not.toMatch(/^INJECTED/m);
    expect(unfolded(text)).toContain(
      `\r\nNAME:Ferienwohnung „Seeblick“\\; Balkon\\, Meerblick \\\\ Süd 🏖️\\nINJECTED:1 Zimmer mit Aussicht `,
    );
    expect(unfolded(text)).toContain('\r\nPRODID:-//Demo\\; Rentals\\, Inc.//Booking\\nService//EN\r\n');
    const calendar = ical.sync.parseICS(text).vcalendar;
    expect(calendar?.['WR-CALNAME']).toBe(name);
  });

  it('ends every content line with CRLF, the last one too, none over 75 octets (RFC 5545 §3.1)', async () => {
    const long = `Chalet „Sonnenhang“ mit Blick auf den Wilden Kaiser, Sauna und Kamin 🏔️ ${'Zimmer '.repeat(8)}`;
    const feeds = [
      feedOf([days('20310105', '20310107')]),
      feedOf([hours('2031-06-02T08:00Z', '2031-06-02T10:00Z')], {
        name: long,
        timeZone: 'America/Argentina/Rio_Gallegos',
      }),
      feedOf([], { name: long }),
      writeBookingsFeed({
        name: `${long} bookings`,
        prodId: { company: long, product: 'Booking API 3.0 staff calendar' },
        uidDomain: 'demo.example',
        bookings: [
          {
            code: 'DEMO-123456',
            first: '20310105',
            endExclusive: '20310108',
            guest: 'Zoë Ångström-Øvergaard, née Ünsal',
            items: [long, 'Kayak'],
            status: 'Paid',
          },
        ],
        stamp: STAMP,
      }),
    ];
    for (const text of feeds) {
      expect(text.endsWith('END:VCALENDAR\r\n')).toBe(true);
      // Every line break is a CRLF: no CR or LF alone.
      expect(text.replaceAll('\r\n', '')).not.toMatch(/[\r\n]/);
      for (const line of text.slice(0, -2).split('\r\n'))
        expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
    }
  });

  it('writes hours as timed events in the tenant’s zone, with its VTIMEZONE; dates alone need none', async () => {
    const text = unfolded(feedOf([hours('2031-06-02T08:00Z', '2031-06-02T10:00Z')]));
    expect(text).toContain('\r\nBEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\n');
    expect(text).toContain(
      '\r\nDTSTART;TZID=Europe/Berlin:20310602T100000\r\nDTEND;TZID=Europe/Berlin:20310602T120000\r\n',
    );
    expect(feedOf([days('20310105', '20310107')])).not.toContain('VTIMEZONE');
  });

  it('writes a run that starts or ends in the hour the clocks go back in UTC, since readers differ on it', async () => {
    const text = feedOf([
      // 02:00 summer time, the first of the two 02:00s of 26 October, to 03:00 winter time.
      hours('2031-10-26T00:00Z', '2031-10-26T02:00Z'),
      // 01:00 summer time to 02:00 winter time, the second 02:00.
      hours('2031-10-25T23:00Z', '2031-10-26T01:00Z'),
      // The day the clocks go forward: 03:00 to 04:00 summer time happen once.
      hours('2031-03-30T01:00Z', '2031-03-30T02:00Z'),
    ]);
    expect(text).toContain('\r\nDTSTART:20311026T000000Z\r\nDTEND:20311026T020000Z\r\n');
    expect(text).toContain('\r\nDTSTART:20311025T230000Z\r\nDTEND:20311026T010000Z\r\n');
    expect(text).toContain(
      '\r\nDTSTART;TZID=Europe/Berlin:20310330T030000\r\nDTEND;TZID=Europe/Berlin:20310330T040000\r\n',
    );
  });

  it('writes hours in UTC for a zone known only by another name (an alias: no VTIMEZONE has its TZID)', async () => {
    const text = feedOf([hours('2031-06-02T08:00Z', '2031-06-02T10:00Z')], {
      timeZone: 'US/Eastern',
    });
    expect(text).not.toContain('TZID');
    expect(text).toContain('\r\nDTSTART:20310602T080000Z\r\nDTEND:20310602T100000Z\r\n');
  });

  it.each([
    ['a dates run ending before it starts', { runs: [days('20310107', '20310105')] }],
    ['a date that is not one', { runs: [days('20310230', '20310301')] }],
    ['an empty hours run', { runs: [hours('2031-06-02T08:00Z', '2031-06-02T08:00Z')] }],
    [
      'an instant within a second',
      { runs: [{ kind: 'hours', start: 1_938_153_600_500, end: 1_938_160_800_000 }] },
    ],
    ['two runs ending together', { runs: [days('20310105', '20310107'), days('20310106', '20310107')] }],
    ['a UID domain that is not a host name', { uidDomain: 'demo.example\r\nX-INJECTED:1' }],
    ['an item id that is not a whole number', { itemId: 7.5 }],
  ] as [string, Partial<Feed>][])('refuses %s', (_, overrides) => {
    expect(() => feedOf([days('20310105', '20310107')], overrides)).toThrow(RangeError);
  });
});

describe('the round trip', () => {
  const RUNS: ExportRun[] = [
    days('20310105', '20310107'),
    days('20310110', '20310110'),
    days('20320228', '20320301'),
    days('20311231', '20320102'),
    hours('2031-06-02T08:00Z', '2031-06-02T10:00Z'),
    hours('2031-03-30T00:00Z', '2031-03-30T02:00Z'),
    hours('2031-10-26T00:00Z', '2031-10-26T02:00Z'),
    hours('2031-10-26T01:00Z', '2031-10-26T03:00Z'),
  ];

  it('reads back as the same runs by this service’s reader and by node-ical, neither of them warning', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const text = feedOf(RUNS);
      const expected = RUNS.map(readBackAs);
      expect(await readFeed(text, { timeZone: BERLIN, from: '20310101', to: '20321231' })).toEqual({
        events: RUNS.length,
        taken: expected,
      });
      expect(readByNodeIcal(text)).toEqual(expected);
      for (const zone of ['Pacific/Kiritimati', 'America/Los_Angeles'])
        expect(inProcessZone(zone, () => readByNodeIcal(text))).toEqual(expected);
      expect(warn).not.toHaveBeenCalled();
      expect(error).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
      error.mockRestore();
    }
  });

  it('writes a calendar with no events for no runs, read back as an empty feed', async () => {
    const text = feedOf([]);
    expect(text).not.toContain('BEGIN:VEVENT');
    expect(await readFeed(text, { timeZone: BERLIN, from: '20310101', to: '20311231' })).toEqual({
      events: 0,
      taken: [],
    });
  });

  it('reads back in a zone known only by an alias as the same runs', async () => {
    const runs = [days('20310105', '20310107'), hours('2031-11-02T07:00Z', '2031-11-02T09:00Z')];
    const text = feedOf(runs, { timeZone: 'US/Eastern' });
    const expected = runs.map(readBackAs);
    expect(
      (await readFeed(text, { timeZone: 'US/Eastern', from: '20310101', to: '20311231' })).taken,
    ).toEqual(expected);
    expect(readByNodeIcal(text)).toEqual(expected);
  });
});
