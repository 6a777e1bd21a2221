import { z } from 'zod';

/** Whether a YYYYMMDD string names a real calendar date. */
const isRealDate = (value: string): boolean => {
  const year = Number(value.slice(0, 4));
  const month = Number(value.slice(4, 6));
  const day = Number(value.slice(6, 8));
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
};

/** A date as YYYYMMDD that exists on the calendar. */
export const ymd = z
  .string()
  .regex(/^\d{8}$/, 'a date as YYYYMMDD')
  .refine(isRealDate, 'not a real calendar date');
/** A decimal amount as a string ("40.00"). */
export const money = z
  .string()
  .regex(/^\d{1,9}(\.\d{1,4})?$/, 'a decimal amount as a string, such as "40.00"');
/** A string of at most `max` characters. */
export const text = (max: number) => z.string().max(max);
/** A positive 32-bit id. */
export const positiveId = z.number().int().positive().max(2_147_483_647);
/** A parameter, tax or field id: lower case letters, digits and _. */
export const paramId = z.string().regex(/^[a-z][a-z0-9_]{0,31}$/, 'lower case letters, digits and _');
/** A time of day as HH:MM. */
export const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'a time as HH:MM');
/** A day of the week, Sunday 0. */
export const dow = z.number().int().min(0).max(6);
