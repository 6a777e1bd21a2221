import { makeTenantItem } from './rating.ts';
import { wallClockOf } from './wall-clock.ts';

// Where and when the clocks change, and which whole local hours a date has, read back through
// Intl.DateTimeFormat independently of lib/kernel/dates.ts, for test/unit/hourly-dst.test.ts; and its zones
// and hourly items.

export const H = 3_600_000;
export const Q = 900_000;

export const utcOf = (ymd: string) => Date.UTC(+ymd.slice(0, 4), +ymd.slice(4, 6) - 1, +ymd.slice(6, 8));
const ymdOfUtc = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');
export const nextDay = (ymd: string) => ymdOfUtc(utcOf(ymd) + 86_400_000);
export const hhmm = (minutes: number) =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

const offsetFormats = new Map<string, Intl.DateTimeFormat>();
/** `+10:30`, `-03:00`, `+00:00`: the zone's offset at an instant, from Intl's longOffset name. */
const offsetText = (instant: number, timeZone: string): string => {
  let format = offsetFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
    offsetFormats.set(timeZone, format);
  }
  const name = format.formatToParts(instant).find((part) => part.type === 'timeZoneName')?.value ?? '';
  const offset = name.replace('GMT', '');
  return offset === '' ? '+00:00' : offset;
};
/** `2027-04-04T01:00+11:00`: the local start of an instant with its offset. */
export const isoLabel = (instant: number, timeZone: string): string =>
  `${new Date(wallClockOf(instant, timeZone)).toISOString().slice(0, 16)}${offsetText(instant, timeZone)}`;
export const localYmd = (instant: number, timeZone: string) => ymdOfUtc(wallClockOf(instant, timeZone));
export const utcKey = (instant: number) =>
  `${new Date(instant).toISOString().slice(0, 13).replaceAll('-', '')}Z`;

/** The local dates of 2027 on which a zone's offset changes (both sides of the change). */
export const changeDays = (timeZone: string): string[] => {
  const days = new Set<string>();
  const offsetOf = (instant: number) => wallClockOf(instant, timeZone) - instant;
  // Day by day, then quarter hour by quarter hour through a day whose offset changed.
  for (let day = Date.UTC(2027, 0, 1); day < Date.UTC(2028, 0, 1); day += 24 * H) {
    if (offsetOf(day) === offsetOf(day + 24 * H)) continue;
    let previous = offsetOf(day);
    for (let instant = day + Q; instant <= day + 24 * H; instant += Q) {
      const offset = offsetOf(instant);
      if (offset !== previous) {
        days.add(ymdOfUtc(instant + previous));
        days.add(ymdOfUtc(instant + offset));
      }
      previous = offset;
    }
  }
  return [...days].sort();
};

export const tenantIn = (timeZone: string) => ({ tenant: { timeZone, decimals: 2, discounts: [] } });
export const hourlyItem = (open: string, close: string, stock = 1) =>
  makeTenantItem({
    unit: 'H',
    stock,
    hours: { open, close },
    params: { qty: { price: '10.00', counts_stock: true, def: 1 } },
  });

// West and east of UTC, a half-hour standard offset (St John's), 45 minutes (Chatham), changes of half an
// hour (Lord Howe) and two hours (Troll), at midnight (Santiago, Havana, Beirut, Easter), on a Friday
// (Jerusalem), southern hemisphere (Sydney, Santiago, Chatham, Lord Howe).
export const ZONES = [
  'Australia/Lord_Howe',
  'Europe/London',
  'America/Toronto',
  'America/St_Johns',
  'Australia/Sydney',
  'Pacific/Chatham',
  'Antarctica/Troll',
  'America/Santiago',
  'Pacific/Easter',
  'America/Havana',
  'Asia/Beirut',
  'Asia/Jerusalem',
  'Atlantic/Azores',
];

/** The instants on a date at which its whole local hours begin, with the hour, from every quarter hour. */
const hourStartsKept = new Map<string, { instant: number; hour: number; key: string; label: string }[]>();
export const hourStartsOf = (ymd: string, timeZone: string) => {
  const key = `${ymd} ${timeZone}`;
  let starts = hourStartsKept.get(key);
  if (!starts) {
    starts = [];
    for (let instant = utcOf(ymd) - 16 * H; instant < utcOf(ymd) + 40 * H; instant += Q) {
      const wall = wallClockOf(instant, timeZone);
      if (ymdOfUtc(wall) === ymd && wall % H === 0) {
        const hour = (wall - utcOf(ymd)) / H;
        starts.push({ instant, hour, key: utcKey(instant), label: isoLabel(instant, timeZone) });
      }
    }
    hourStartsKept.set(key, starts);
  }
  return starts;
};
/** The whole local hours from `start` up to `end` (hours after midnight) that happen on a date. */
export const hoursBetween = (ymd: string, start: number, end: number, timeZone: string) =>
  hourStartsOf(ymd, timeZone)
    .filter(({ hour }) => hour >= start && hour < end)
    .map(({ instant }) => instant);
