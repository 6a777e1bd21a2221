import ical, { type VEvent } from 'node-ical';
import type { FeedEvent } from '#lib/channels/feed-parse.ts';

/** The events node-ical reads, as FeedEvents: an all-day date is its local midnight in the process's zone. */
export function readByNodeIcal(text: string): FeedEvent[] {
  const localYmd = (date: Date) =>
    `${date.getFullYear()}${String(date.getMonth() + 1).padStart(2, '0')}${String(date.getDate()).padStart(2, '0')}`;
  return Object.values(ical.sync.parseICS(text))
    .filter((component) => component?.type === 'VEVENT')
    .map((component) => {
      const event = component as VEvent;
      const end = event.end ?? event.start;
      return event.start.dateOnly
        ? { kind: 'dates' as const, first: localYmd(event.start), endExclusive: localYmd(end) }
        : { kind: 'instants' as const, start: event.start.getTime(), end: end.getTime() };
    });
}
