import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '#lib/kernel/storage/database.ts';
import { webhookEventActions } from '#lib/webhooks/outbox.ts';
import type { RecordedEvent } from '#test/soak/audit-webhooks.ts';
import { readRecordedEvents } from '#test/soak/read-recorded-events.ts';
import { createTestDb } from '#test/support/dynamo.ts';

// The soak's reader of the webhook outbox (test/soak/read-recorded-events.ts) on DynamoDB Local: the
// events as the service writes them, beside their deliveries and other records it must pass over.

let db: Db;
const at = Date.UTC(2027, 10, 1, 12);
const recorded: RecordedEvent[] = [
  { event_id: 'evt-a', type: 'booking.created', booking_id: 7, sequence: 1, at },
  { event_id: 'evt-b', type: 'booking.note_added', booking_id: 7, sequence: 2, at: at + 1_000 },
  { event_id: 'evt-c', type: 'booking.created', booking_id: 8, sequence: 1, at: at + 2_000 },
  { event_id: 'evt-d', type: 'webhook.disabled', booking_id: 0, sequence: 0, at: at + 3_000 },
];

beforeAll(async () => {
  db = await createTestDb('soak-events');
  for (const event of recorded) {
    await db.documents.send(
      new TransactWriteCommand({
        TransactItems: webhookEventActions(db, {
          event: {
            event: { event_id: event.event_id, type: event.type, at: event.at, account_id: 0, data: {} },
            booking_id: event.booking_id,
            sequence: event.sequence,
          },
          // Two deliveries an event: records of another entity the scan must leave out.
          endpointIds: ['desk', 'books'],
          retentionDays: 30,
        }),
      }),
    );
  }
});

const byId = (events: RecordedEvent[]) => [...events].sort((a, b) => a.event_id.localeCompare(b.event_id));

describe('readRecordedEvents', () => {
  it('reads every webhook_event record of the table as a RecordedEvent, and nothing else', async () => {
    expect(byId(await readRecordedEvents(db))).toEqual(recorded);
  });

  it('reads on through every page, pages emptied by the filter included', async () => {
    // One record a page: most pages hold a delivery, which the filter leaves empty.
    expect(byId(await readRecordedEvents(db, { pageSize: 1 }))).toEqual(recorded);
  });
});
