// Local wall-clock readings by Intl alone, for tests that check the date helpers (lib/kernel/dates.ts)
// without using them.

const formats = new Map<string, Intl.DateTimeFormat>();
/** How en-CA writes a date and a 24-hour time: `2027-03-14, 02:30`. */
const WALL = /^(\d+)-(\d{2})-(\d{2}), (\d{2}):(\d{2})$/;

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
  // One string and a pattern, not formatToParts: a third of the time, and the reference tests read millions.
  const text = format.format(instant);
  const wall = WALL.exec(text);
  if (!wall) throw new Error(`Intl wrote ${text} for ${instant} in ${timeZone}, not Y-MM-DD, HH:MM`);
  const [, year, month, day, hour, minute] = wall.map(Number) as number[];
  return Date.UTC(year as number, (month as number) - 1, day, hour, minute);
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
