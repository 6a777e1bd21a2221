import { addDays, todayIn } from '#lib/kernel/dates.ts';

/** Dates no earlier test of the file touched: each call gives the next day after `daysAhead` from today. */
export const freshDays = (daysAhead = 30): (() => string) => {
  const start = addDays(todayIn('America/Toronto', Date.now()), daysAhead);
  let nextDay = 0;
  return () => {
    nextDay += 1;
    return addDays(start, nextDay);
  };
};

/** Client addresses of TEST-NET-3 (203.0.113.1 on), a new one each call, for tests that name the client. */
export const freshAddresses = (): (() => string) => {
  let nextAddress = 0;
  return () => {
    nextAddress += 1;
    return `203.0.113.${nextAddress}`;
  };
};
