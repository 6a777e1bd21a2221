import type { Tenant } from '#lib/config/tenant-schema.ts';
import { makeItem, makeTenant, makeTenantJson } from '#test/support/tenant.ts';

/** The soak's items: few units each, so guests contend for them all run long. */
export const SOAK_ITEMS = [
  { item_id: 1, sku: 'cabin', name: 'Lake Cabin', unit: 'N', stock: 2 },
  { item_id: 2, sku: 'kayak', name: 'Kayak', unit: 'D', stock: 4 },
  { item_id: 3, sku: 'canoe', name: 'Canoe', unit: 'D', stock: 1 },
] as const;

/**
 * The soak's tenant: a one-minute hold (so carts expire and the sweeper works all run long), client limits
 * that the steady traffic stays under but a burst goes over, one webhook endpoint, the soak's receiver,
 * subscribed to every booking event, a 30 % deposit paid on the stand-in for Stripe within 5 minutes, and two
 * channels whose feeds the soak changes as it runs.
 */
export function soakTenant(receiverUrl: string, feedBase: string): Tenant {
  return makeTenant(
    makeTenantJson({
      tenant: 'soak',
      settings: {
        booking_code_prefix: 'SOAK',
        hold_minutes: 1,
        max_session_minutes: 10,
        limits: {
          requests_per_minute: 240,
          writes_per_minute: 120,
          staff_requests_per_minute: 100_000,
          client_hold_share: 1,
          open_sessions_per_client: 5,
          unpaid_bookings_per_client: 1_000,
          rehold_cooldown_minutes: 0,
        },
        // Guests pay a deposit on the stand-in for Stripe; unpaid, a booking keeps its stock for the shortest
        // time the schema allows, so a long run sees bookings lapse (a 90 s quick run ends before any can).
        payment: { take: 'deposit', deposit: { percent: 30 }, pay_within_minutes: 5 },
        webhooks: { retry_seconds: [5, 10, 20, 40, 60, 120, 300], retention_days: 7 },
      },
      items: SOAK_ITEMS.map((item) => makeItem({ ...item })),
      // Guests cancel some bookings from their manage link (issue 44): full refund two weeks ahead, half a
      // week ahead, a 5.00 fee kept; the soak's bookings start 7 to 27 days out.
      policy: {
        cancellation: {
          refunds: [
            { before: { days: 14 }, percent: 100 },
            { before: { days: 2 }, percent: 50 },
          ],
          fee: 500,
        },
      },
      webhooks: [{ id: 'soak', url: receiverUrl, events: ['booking.*'] }],
      // Two channels whose feeds change while the soak runs: their blocks share the counters with guests.
      channels: [
        { id: 'airbnb', item_id: 1, url: `${feedBase}/airbnb.ics`, name: 'Airbnb' },
        { id: 'booking', item_id: 2, url: `${feedBase}/booking.ics`, name: 'Booking.com' },
      ],
    }),
  );
}
