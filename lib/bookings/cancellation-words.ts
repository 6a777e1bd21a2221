import { type CancellationPolicy, nominalHours, type PolicyLength } from '../config/index.ts';
import { localParts } from '../kernel/dates.ts';
import { countOf, type DateWords, dateInWords, listInWords } from '../kernel/guest-words.ts';
import { formatDisplay } from '../kernel/money.ts';
import { type CancellationSnapshot, cutoffOf, deadlineOf, feeOf, tiersOf } from './cancellation.ts';

// The cancellation policy in words a guest reads (issue 44), from the same functions that work out a
// refund, so the words and the quote agree. English, with dates and times in the tenant's locale.

/** How to word a policy: with a start, at dates in the tenant's zone; without, as lengths before the start. */
export interface CancellationWordsOptions {
  /** When the booking starts (ms). */
  start?: number;
  /** What is past at this instant is left out: a guest about to book reads what is still open to them. */
  from?: number;
  timeZone: string;
  /** The tenant's locale and today (a date within the coming twelve months is named without its year). */
  dates: DateWords;
  currency: { symbol: string; decimals: number };
  /** Whether the booking is paid by a deposit: only then is a deposit that stays worth a sentence. */
  deposit: boolean;
  /** The lines' names by id, to say whose terms are whose when they differ. */
  names?: Record<string, string>;
}

const timeFormats = new Map<string, Intl.DateTimeFormat>();

/** A local instant in words: its date at midnight, else its time on its date ("3:00 p.m. on Friday, July 12"). */
function instantInWords(instant: number, options: CancellationWordsOptions): string {
  const { ymd, minutes } = localParts(instant, options.timeZone);
  const date = dateInWords(ymd, options.dates);
  if (minutes === 0) return date;
  const { locale } = options.dates;
  let format = timeFormats.get(locale);
  if (!format) {
    // The time of day as a UTC wall clock: the zone was applied by localParts.
    format = new Intl.DateTimeFormat(locale, { hour: 'numeric', minute: '2-digit', timeZone: 'UTC' });
    timeFormats.set(locale, format);
  }
  return `${format.format(minutes * 60_000)} on ${date}`;
}

const lengthInWords = (length: PolicyLength): string =>
  length.days === undefined ? countOf(length.hours ?? 0, 'hour') : countOf(length.days, 'day');

/** Until when a tier or the cutoff holds: "up to 14 days before the start", or "before Monday, July 1". */
function whenInWords(length: PolicyLength, options: CancellationWordsOptions, first: boolean): string {
  if (options.start !== undefined)
    return `before ${instantInWords(deadlineOf(options.start, length, options.timeZone), options)}`;
  if (nominalHours(length) === 0) return 'up to the start';
  return `up to ${lengthInWords(length)} before${first ? ' the start' : ''}`;
}

/** Whether a policy keeps the deposit of this booking. */
const keepsDeposit = (policy: CancellationPolicy, options: CancellationWordsOptions): boolean =>
  options.deposit && !policy.deposit_refundable;

/**
 * A policy's tiers in words, lower case: "free cancellation up to …; 50% back up to …; no refund after that".
 * A full refund is free cancellation only when nothing is kept: no fee (the booking's, charged once), no deposit.
 */
function refundsInWords(policy: CancellationPolicy, options: CancellationWordsOptions, fee: number): string {
  const open = tiersOf(policy).filter(
    (tier) =>
      tier.percent > 0 &&
      (options.from === undefined ||
        options.start === undefined ||
        deadlineOf(options.start, tier.before, options.timeZone) >= options.from),
  );
  if (!open.length) return 'no refund';
  const whole = fee === 0 && !keepsDeposit(policy, options) ? 'free cancellation' : 'full refund';
  const said = open.map(
    (tier, index) =>
      `${tier.percent === 100 ? whole : `${tier.percent}% back`} ${whenInWords(tier.before, options, index === 0)}`,
  );
  return `${said.join('; ')}; no refund after that`;
}

/** The lines' names, each once, as a list. */
const namesOf = (lines: string[], options: CancellationWordsOptions): string =>
  listInWords(
    [...new Set(lines.map((line) => options.names?.[line] ?? `line ${line}`))],
    options.dates.locale,
  );

/** When changes and cancellations close, in words; none without a cutoff. */
function cutoffInWords(
  snapshot: CancellationSnapshot,
  options: CancellationWordsOptions,
): string | undefined {
  const { start } = options;
  if (start === undefined) {
    const lengths = snapshot.policies.flatMap(({ policy }) => (policy.cutoff ? [policy.cutoff] : []));
    const longest = lengths.sort((a, b) => nominalHours(b) - nominalHours(a))[0];
    if (!longest) return undefined;
    return nominalHours(longest) === 0
      ? 'Changes and cancellations close at the start'
      : `Changes and cancellations close ${lengthInWords(longest)} before the start`;
  }
  const cutoff = cutoffOf(snapshot, start, options.timeZone);
  if (cutoff === undefined) return undefined;
  if (options.from !== undefined && cutoff < options.from)
    return 'Once booked, it can no longer be changed or cancelled';
  return `Changes and cancellations are possible only before ${instantInWords(cutoff, options)}`;
}

const capitalised = (text: string): string => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

/**
 * The policies of a booking (or of the tenant) in sentences: the refund tiers (per group of lines when they
 * differ), the fee, the deposit that stays, and the cutoff, as `quoteCancellation` applies them.
 */
export function cancellationWords(snapshot: CancellationSnapshot, options: CancellationWordsOptions): string {
  const { policies, uncovered = [] } = snapshot;
  const sentences: string[] = [];
  const fee = feeOf(snapshot);
  const [only] = policies;
  if (only && policies.length === 1 && !uncovered.length)
    sentences.push(capitalised(refundsInWords(only.policy, options, fee)));
  else {
    for (const { policy, lines } of policies)
      sentences.push(`${namesOf(lines, options)}: ${refundsInWords(policy, options, fee)}`);
    if (uncovered.length) sentences.push(`${namesOf(uncovered, options)}: no refund`);
  }
  if (fee > 0) sentences.push(`A fee of ${formatDisplay(fee, options.currency)} is kept from any refund`);
  const keeping = policies.filter(({ policy }) => keepsDeposit(policy, options));
  if (keeping.length === policies.length && keeping.length) sentences.push('The deposit is not refunded');
  else if (keeping.length)
    sentences.push(
      `The deposit is not refunded for ${namesOf(
        keeping.flatMap(({ lines }) => lines),
        options,
      )}`,
    );
  const cutoff = cutoffInWords(snapshot, options);
  if (cutoff) sentences.push(cutoff);
  return sentences.map((sentence) => `${sentence}.`).join(' ');
}
