import { tzOffset } from '@date-fns/tz/tzOffset';

/** The UTC offset of a time zone at an instant, in hours (fractional for zones such as Asia/Kolkata). */
export function utcOffsetHours(timeZone: string, at: number): number {
  return tzOffset(timeZone, new Date(at)) / 60;
}

/** Unix seconds of an instant given in milliseconds. */
export const unixSeconds = (ms: number): number => Math.floor(ms / 1000);
