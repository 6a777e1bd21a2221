/** Money is held in integer minor units (cents) until it is written out. */

/** The money of one line, in minor units: as rated, and as a booking keeps it once sold. */
export interface LineAmounts {
  subTotal: number;
  discount: number;
  /** Exclusive taxes, added to the total. */
  tax: number;
  /** Inclusive taxes, reported only. */
  taxIncluded: number;
  total: number;
  /** Each tax of the line by tax id, in minor units. */
  taxes: Record<string, number>;
}

/** Parses a decimal amount string ("40.5", "40.50") into minor units, exactly. */
export function toMinor(amount: string, decimals: number): number {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(amount.trim());
  if (!match) throw new Error(`Not a decimal amount: ${amount}`);
  const whole = match[1] ?? '0';
  const fraction = (match[2] ?? '').padEnd(decimals, '0');
  if (fraction.length > decimals && /[^0]/.test(fraction.slice(decimals))) {
    throw new Error(`${amount} has more than ${decimals} decimals`);
  }
  return Number(whole) * 10 ** decimals + Number(fraction.slice(0, decimals) || '0');
}

/** Writes minor units as a decimal string with the currency's digits ("130.00"). */
export function formatAmount(minor: number, decimals: number): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  if (decimals === 0) return `${sign}${abs}`;
  const unit = 10 ** decimals;
  return `${sign}${Math.floor(abs / unit)}.${String(abs % unit).padStart(decimals, '0')}`;
}

/** Writes minor units for display, with the currency symbol ("$130.00"). */
export function formatDisplay(minor: number, currency: { symbol: string; decimals: number }): string {
  const text = formatAmount(Math.abs(minor), currency.decimals);
  return `${minor < 0 ? '-' : ''}${currency.symbol}${text}`;
}

/**
 * A percentage of an amount, rounded half-up to the minor unit. The percentage is a decimal string
 * ("13", "7.5"), so the arithmetic stays in integers.
 */
export function percentOf(minor: number, percent: string | number): number {
  const [whole = '0', fraction = ''] = String(percent).split('.');
  const scale = 10 ** fraction.length;
  const basisPoints = Number(whole) * scale + Number(fraction || '0');
  const numerator = minor * basisPoints;
  const denominator = 100 * scale;
  return Math.floor((2 * numerator + denominator) / (2 * denominator));
}
