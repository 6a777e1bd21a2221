import type { Ymd } from './dates.ts';

// The words a guest reads (issue 32): the messages are English; the dates in them follow the tenant's
// locale. docs/decisions.md "Issue 32: words for guests" has the choices (order, year, cap).

/** How to name dates for one tenant: its locale (BCP 47) and its today, which decides when a year is shown. */
export interface DateWords {
  locale: string;
  today: Ymd;
}

/** A tenant locale id as the config writes it (`en_CA`) in BCP 47 (`en-CA`); an unknown one reads as `en`. */
export function localeTag(id: string | undefined): string {
  const tag = (id ?? 'en').replace('_', '-');
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? 'en';
  } catch {
    return 'en';
  }
}

// Made on first use, as every Intl object here: a cold start need not load ICU's data before its request.
let english: Intl.PluralRules | undefined;
const englishPlurals = (): Intl.PluralRules => {
  english ??= new Intl.PluralRules('en');
  return english;
};

/** A count with its noun in the right number: "1 night", "2 nights", "0 hours". */
export const countOf = (count: number, singular: string, plural = `${singular}s`): string =>
  `${count} ${englishPlurals().select(count) === 'one' ? singular : plural}`;

/** The units of sale, as a count of them reads ("1 night", "3 days"). */
const UNIT_NOUNS = { D: 'day', N: 'night', H: 'hour' } as const;

/** A length in units of sale: "1 night", "3 days", "2 hours". */
export const unitCount = (unit: keyof typeof UNIT_NOUNS, count: number): string =>
  countOf(count, UNIT_NOUNS[unit]);

/** The noun of one unit of sale ("night"). */
export const unitNoun = (unit: keyof typeof UNIT_NOUNS): string => UNIT_NOUNS[unit];

/** A wait in seconds as a guest reads it, rounded up: "45 seconds", "1 minute", "2 hours". */
export function waitOf(seconds: number): string {
  const whole = Math.max(1, Math.ceil(seconds));
  if (whole < 60) return countOf(whole, 'second');
  const minutes = Math.ceil(whole / 60);
  if (minutes < 120) return countOf(minutes, 'minute');
  return countOf(Math.ceil(minutes / 60), 'hour');
}

/** At most this many dates are named; more are named up to one less, then counted ("and 3 more dates"). */
export const MAX_NAMED_DATES = 4;

type Formats = {
  withYear: Intl.DateTimeFormat;
  withoutYear: Intl.DateTimeFormat;
  and: Intl.ListFormat;
  or: Intl.ListFormat;
};
const formatsByLocale = new Map<string, Formats>();

// Intl objects are slow to build and a list rates many items: one set per locale, for the process.
function formatsOf(locale: string): Formats {
  let formats = formatsByLocale.get(locale);
  if (!formats) {
    // The date is a calendar date, not an instant: formatted as UTC midnight, no zone can move it.
    const base = { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' } as const;
    // The sentence around the list is English: its "and" is English too, in the tenant's English if it has one.
    const listLocale = locale.startsWith('en') ? locale : 'en';
    formats = {
      withYear: new Intl.DateTimeFormat(locale, { ...base, year: 'numeric' }),
      withoutYear: new Intl.DateTimeFormat(locale, base),
      and: new Intl.ListFormat(listLocale, { style: 'long', type: 'conjunction' }),
      or: new Intl.ListFormat(listLocale, { style: 'long', type: 'disjunction' }),
    };
    if (formatsByLocale.size >= 64) formatsByLocale.clear();
    formatsByLocale.set(locale, formats);
  }
  return formats;
}

const monthIndex = (ymd: Ymd): number => Number(ymd.slice(0, -4)) * 12 + Number(ymd.slice(-4, -2)) - 1;

/**
 * Whether a date is named without its year: it falls in the twelve months that start with today's month
 * (this month and the next 11), where a day and a month name one date only.
 */
export const needsNoYear = (ymd: Ymd, today: Ymd): boolean => {
  const ahead = monthIndex(ymd) - monthIndex(today);
  return ahead >= 0 && ahead <= 11;
};

/** One date in words, in the tenant's locale: "Thursday, December 24" (en-CA), "jeudi 24 décembre 2027" (fr-CA). */
export function dateInWords(ymd: Ymd, words: DateWords): string {
  const formats = formatsOf(words.locale);
  const instant = Date.UTC(Number(ymd.slice(0, -4)), Number(ymd.slice(-4, -2)) - 1, Number(ymd.slice(-2)));
  return (needsNoYear(ymd, words.today) ? formats.withoutYear : formats.withYear).format(instant);
}

/** A list in the messages' words: "A, B and C", or "A, B or C" (the tenant's English, or plain English). */
export const listInWords = (texts: string[], locale: string, join: 'and' | 'or' = 'and'): string =>
  formatsOf(locale)[join].format(texts);

/**
 * Dates in words, in order and once each, as one list: "Thursday, December 24 and Friday, December 25".
 * More than `MAX_NAMED_DATES` are named up to one less and counted: "…, Saturday, December 26 and 3 more dates".
 */
export function datesInWords(dates: Ymd[], words: DateWords): string {
  const sorted = [...new Set(dates)].sort();
  const named = sorted.length > MAX_NAMED_DATES ? sorted.slice(0, MAX_NAMED_DATES - 1) : sorted;
  const texts = named.map((ymd) => dateInWords(ymd, words));
  if (named.length < sorted.length) texts.push(`${sorted.length - named.length} more dates`);
  return listInWords(texts, words.locale);
}

/** Several reasons as one text a guest reads: each its own sentence. */
export const joinReasons = (reasons: string[]): string => reasons.join('. ');
