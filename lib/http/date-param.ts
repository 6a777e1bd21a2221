import { isSupportedDate, parseDateParam, SUPPORTED_DATES, type Ymd } from '../kernel/dates.ts';

/**
 * A date parameter as sent (`YYYYMMDD`, `YYYY-MM-DD`, `today`, `tomorrow`): the date, or the problem to name
 * under the parameter; nothing for a parameter not sent (or empty).
 */
export function readDateParam(value: string | undefined, today: Ymd): { date?: Ymd; problem?: string } {
  if (value === undefined || value === '') return {};
  const parsed = parseDateParam(value, today);
  if (!parsed) return { problem: 'not a date: use YYYYMMDD, YYYY-MM-DD, today or tomorrow' };
  if (!isSupportedDate(parsed)) return { problem: `dates run from ${SUPPORTED_DATES.text}` };
  return { date: parsed };
}
