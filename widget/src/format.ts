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

/** An amount of the API (a decimal string) in the tenant's currency and locale. */
export function formatMoney(amount: string | undefined, locale: Locale | undefined): string {
  const value = Number(amount ?? 0);
  if (!locale) return value.toFixed(2);
  return new Intl.NumberFormat(languageTag(locale), { style: 'currency', currency: locale.currency }).format(
    value,
  );
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
