import { describe, expect, it } from 'vitest';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import { invoke } from '#test/support/events.ts';
import { sessionOf } from '#test/support/session.ts';
import { setUpPartnerWorld } from './partner-world.ts';

// Adversarial review of issue 27 items 4 and 6 with settings.limits.partner_unpaid_budget: true: a partner's
// unpaid bookings count against its credential "until they are paid or confirmed by staff"; the partner's
// own credential can change the status of its own bookings.
const day = addDays(todayIn('America/Toronto', Date.now()), 45);
const world = setUpPartnerWorld('review-partner-unpaid', { limits: { partner_unpaid_budget: true } });
const { usedOf, asPartner } = world;

describe('review: partner_unpaid_budget', () => {
  // Failed at 73acd22: the partner "confirms" its own unpaid booking (status HOLD, with its own credential)
  // and gets its share back at once, then books the other half: 12 of 12 without paying, the setting moot.
  it('is not undone by the partner changing the status of its own booking', async () => {
    const agent = asPartner({});
    const first = await agent.hold(`date=${day}&param[qty]=6`);
    expect(first.status).toBe(200);
    const booked = await agent.book(sessionOf(first).id, 'one');
    expect(booked.status).toBe(200);
    const blocked = await agent.hold(`date=${day}&param[qty]=6`);
    expect(blocked.status).toBe(409);
    const confirm = await invoke(world.handlers.bookings, {
      method: 'POST',
      path: `booking/${booked.json.booking.id}/update`,
      query: 'status_id=HOLD',
      headers: { authorization: world.partner },
      sourceIp: '192.0.2.77',
    });
    const again = await agent.hold(`date=${day}&param[qty]=6`);
    if (again.status === 200) await agent.book(sessionOf(again).id, 'two');
    // Contract: only staff's confirmation or a payment gives the budget back.
    expect(confirm.status === 200 ? again.status : 409).toBe(409);
    expect(await usedOf(day)).toBeLessThanOrEqual(6);
  });
});
