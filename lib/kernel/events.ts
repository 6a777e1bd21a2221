/**
 * Something that happened, as the service records it: a booking's audit entry, a channel's, and the body
 * of a webhook. `account_id` is who did it (0: the service itself).
 */
export interface StoredEvent {
  event_id: string;
  type: string;
  at: number;
  account_id: number;
  data: Record<string, unknown>;
}
