import type { Locale } from './types.ts';

/** The tenant's locale as a BCP 47 tag (`en_CA` → `en-CA`), or the browser's when it is unusable. */
export const languageTag = (locale: Locale | undefined): string | undefined => {
  const tag = locale?.id.replace('_', '-');
  try {
    return tag ? Intl.getCanonicalLocales(tag)[0] : undefined;
  } catch {
    return undefined;
  }
};

/** An amount of the API (a decimal string) in the tenant's currency and locale (`whole`: no cents, for tight places). */
export function formatMoney(
  amount: string | undefined,
  locale: Locale | undefined,
  options: { whole?: boolean } = {},
): string {
  const value = Number(amount ?? 0);
  if (!locale) return value.toFixed(options.whole ? 0 : 2);
  return new Intl.NumberFormat(languageTag(locale), {
    style: 'currency',
    currency: locale.currency,
    ...(options.whole ? { maximumFractionDigits: 0, minimumFractionDigits: 0 } : {}),
  }).format(value);
}

const pad = (value: number) => String(value).padStart(2, '0');

/** A local date as YYYY-MM-DD, `days` after `from`. */
export function isoDate(from: Date, days = 0): string {
  const date = new Date(from.getFullYear(), from.getMonth(), from.getDate() + days);
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** Whether text is a real calendar date written YYYY-MM-DD. */
export function isIsoDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return false;
  const date = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return date.getMonth() === Number(match[2]) - 1 && date.getDate() === Number(match[3]);
}

/** The first and last day (YYYY-MM-DD) of the month `offset` months after the one of `date`. */
export function monthSpan(date: string, offset = 0): { start: string; end: string; first: Date } {
  const [year, month] = date.split('-').map(Number) as [number, number];
  const first = new Date(year, month - 1 + offset, 1);
  const last = new Date(first.getFullYear(), first.getMonth() + 1, 0);
  return { start: isoDate(first), end: isoDate(last), first };
}

/** A hold's time left as m:ss. */
export function clock(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(seconds / 60)}:${pad(seconds % 60)}`;
}

/** A hold's time left in words, for screen readers. */
export function timeLeftInWords(ms: number): string {
  const minutes = Math.ceil(ms / 60_000);
  if (minutes > 1) return `${minutes} minutes`;
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return seconds > 59 ? '1 minute' : `${seconds} seconds`;
}

/**
 * A URL from an API answer that is safe to render as a link: an absolute http(s) URL, else ''. Lit
 * binds `href` as it is, so a `javascript:` or `data:` URL would run in the page when clicked.
 */
export function linkUrl(value: string | undefined): string {
  if (!value) return '';
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : '';
  } catch {
    return '';
  }
}

/** A local date from `YYYY-MM-DD` or `YYYYMMDD`. */
export function dateOf(text: string): Date {
  const digits = text.replaceAll('-', '');
  return new Date(Number(digits.slice(0, 4)), Number(digits.slice(4, 6)) - 1, Number(digits.slice(6, 8)));
}

/** `YYYY-MM-DD` as the API's calendars key it (`YYYYMMDD`). */
export const compactDate = (iso: string): string => iso.replaceAll('-', '');

/** Whole days from one `YYYY-MM-DD` to another (DST-proof: counted on UTC dates). */
export function daysBetween(start: string, end: string): number {
  const utc = (text: string) => {
    const date = dateOf(text);
    return Date.UTC(date.getFullYear(), date.getMonth(), date.getDate());
  };
  return Math.round((utc(end) - utc(start)) / 86_400_000);
}

/** How a rate's unit is counted, in words: nights for a nightly item, days for a daily one, else hours. */
const UNIT_WORDS = { N: ['night', 'nights'], D: ['day', 'days'], H: ['hour', 'hours'] } as const;

/** A count of a unit in words with the right plural: "1 night", "3 nights", "2 hours". */
export function unitWords(unit: keyof typeof UNIT_WORDS, count: number): string {
  const [one, other] = UNIT_WORDS[unit];
  return `${count} ${new Intl.PluralRules('en').select(count) === 'one' ? one : other}`;
}

/** A count with its noun, the plural when the count asks for it ("1 option", "4 options"). */
export const plural = (count: number, one: string, other: string): string =>
  `${count} ${new Intl.PluralRules('en').select(count) === 'one' ? one : other}`;

/** How many nights or days a span of dates is, as the API counts it (a night per date, days inclusive). */
export function spanCount(unit: 'N' | 'D' | 'H', start: string, end: string): number {
  const days = daysBetween(start, end);
  return unit === 'N' ? Math.max(1, days) : days + 1;
}

/** A date in the tenant's words: `{ weekday: 'long', … }` options of Intl, e.g. "Monday, January 4, 2027". */
export const formatDate = (date: Date, locale: Locale | undefined, options: Intl.DateTimeFormatOptions) =>
  new Intl.DateTimeFormat(languageTag(locale), options).format(date);

const SHORT: Intl.DateTimeFormatOptions = { weekday: 'short', month: 'short', day: 'numeric' };

/** Dates from `start` to `end` in the tenant's words: "Mon, Jan 4 – Thu, Jan 7" (one date when they match). */
export function formatDates(start: string, end: string, locale: Locale | undefined): string {
  const format = new Intl.DateTimeFormat(languageTag(locale), SHORT);
  return start === end ? format.format(dateOf(start)) : format.formatRange(dateOf(start), dateOf(end));
}

/** A stay in words: "Mon, Jan 4 – Thu, Jan 7 · 3 nights". */
export function formatStay(
  unit: 'N' | 'D' | 'H',
  span: { start: string; end: string },
  locale: Locale | undefined,
): string {
  return `${formatDates(span.start, span.end, locale)} · ${unitWords(unit, spanCount(unit, span.start, span.end))}`;
}

/** An hour of the day (`HH:MM`) in the tenant's words: "10:00 a.m.". */
export function formatTime(time: string, locale: Locale | undefined): string {
  const [hours, minutes] = time.split(':').map(Number) as [number, number];
  return new Intl.DateTimeFormat(languageTag(locale), { hour: 'numeric', minute: '2-digit' }).format(
    new Date(2000, 0, 1, hours, minutes),
  );
}
