// Local wall-clock readings by Intl alone, for tests that check the date helpers (lib/kernel/dates.ts)
// without using them.

const formats = new Map<string, Intl.DateTimeFormat>();

/** The local wall-clock time of an instant in a time zone, as the ms of that date and time read as UTC. */
export function wallClockOf(instant: number, timeZone: string): number {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    });
    formats.set(timeZone, format);
  }
  const part = Object.fromEntries(format.formatToParts(instant).map(({ type, value }) => [type, +value]));
  return Date.UTC(part.year as number, (part.month as number) - 1, part.day, part.hour, part.minute);
}

/** Runs `check` with the process in another time zone (Node reads `TZ` anew when it is set), then restores it. */
export function inProcessZone<T>(zone: string, check: () => T): T {
  const saved = process.env.TZ;
  process.env.TZ = zone;
  try {
    return check();
  } finally {
    if (saved === undefined) delete process.env.TZ;
    else process.env.TZ = saved;
  }
}
