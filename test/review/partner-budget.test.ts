import { describe, expect, it } from 'vitest';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import { invoke } from '#test/support/events.ts';
import { sessionOf } from '#test/support/session.ts';
import { setUpPartnerWorld } from './partner-world.ts';

// Adversarial review of issue 27 item 6 ("partners are held to hold budgets per credential"): a partner's
// credential with `X-On-Behalf: off` becomes a customer whose client address is the X-Forwarded-For it
// sends (the vouching meant for staff integrations), so it picks a fresh address per cart.
const day = addDays(todayIn('America/Toronto', Date.now()), 45);
const world = setUpPartnerWorld('review-partner', {});
const { usedOf, asPartner } = world;

describe('review: a partner credential is held to its hold budget', () => {
  // Passes at 73acd22 (resisted): its own credential is budgeted per credential.
  it('cannot hold more than the share of a tour in two carts with its own credential', async () => {
    const d = addDays(day, 1);
    const agent = asPartner({});
    expect((await agent.hold(`date=${d}&param[qty]=6`)).status).toBe(200);
    const more = await agent.hold(`date=${d}&param[qty]=6`);
    expect(more.status).toBe(409);
    expect(more.json.request.error.id).toBe('hold_limit');
  });

  // Failed at 73acd22: with `X-On-Behalf: off` and a different X-Forwarded-For per cart, the partner's
  // credential holds and books all 12 seats (and would any number of unpaid bookings): the vouching of
  // X-Forwarded-For meant for staff integrations is given to a partner's credential too.
  it('cannot escape the budget with X-On-Behalf: off and a made-up X-Forwarded-For per cart', async () => {
    const carts: string[] = [];
    for (const forwarded of ['10.9.0.1', '10.9.0.2']) {
      const agent = asPartner({ 'x-on-behalf': 'off', 'x-forwarded-for': forwarded });
      const held = await agent.hold(`date=${day}&param[qty]=6`);
      if (held.status === 200) {
        carts.push(sessionOf(held).id);
        await agent.book(sessionOf(held).id, `guest${forwarded.replaceAll('.', '')}`);
      }
    }
    // Contract: one partner credential holds at most floor(12 × 0.5) = 6 of the item-date.
    expect(await usedOf(day)).toBeLessThanOrEqual(6);
    expect(carts).toHaveLength(1);
  });

  // Failed at 73acd22: the same vouching gives a partner credential a fresh request budget per made-up
  // X-Forwarded-For: 130 calls in a minute pass where 120 is the limit (a guest without credentials
  // sending the same headers is limited, its X-Forwarded-For ignored).
  it('cannot escape the request rate limit with X-On-Behalf: off and a made-up X-Forwarded-For', async () => {
    const statuses: number[] = [];
    // The limit counts fixed one-minute windows: 130 calls could straddle two and pass with 120 a window.
    // 241 calls in under a minute put more than 120 in one window, wherever the boundary falls.
    for (let index = 0; index < 241; index += 1) {
      const response = await invoke(world.handlers.items, {
        path: 'item',
        headers: {
          authorization: world.partner,
          'x-on-behalf': 'off',
          'x-forwarded-for': `10.8.${index >> 8}.${index & 255}`,
        },
        sourceIp: '192.0.2.77',
      });
      statuses.push(response.status);
    }
    expect(statuses).toContain(429);
  });
});
