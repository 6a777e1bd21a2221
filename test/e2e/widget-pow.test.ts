import { describe, expect, it } from 'vitest';
import { makeWidgetTenant } from '#test/fixtures/widget-tenants.ts';
import { expectCleanTraffic } from '#test/support/traffic.ts';
import { searchAndRead } from '#test/support/widget-checks.ts';
import { cartLine, resultItem, STEP_TIMEOUT } from '#test/support/widget-page.ts';
import { setUpWidgetSuite } from '#test/support/widget-suite.ts';

// Issue 27: the proof-of-work gate, as a guest meets it in Debian's chromium. The Boathouse Loft Suite (one
// unit) is gated with below_share 1, so any guest's hold of it needs a solved ALTCHA challenge at the
// default difficulty: the widget gets 409 challenge_required, solves it with ALTCHA's solver and sends the
// same change again with altcha, and the guest sees the suite in the cart.

const tenant = makeWidgetTenant((raw) => {
  raw.items = raw.items.map((item: any) =>
    item.item_id === 2 ? { ...item, pow: { below_share: 1 } } : item,
  );
});
const suite = setUpWidgetSuite({ tenant, name: 'pow' });

describe('the booking widget under the proof-of-work gate', () => {
  it('solves the challenge and holds the suite, the guest never seeing the refusal', async () => {
    const guest = await suite.open(1280);
    const { page, traffic } = guest;
    await searchAndRead(page, traffic, '2027-04-05', '2027-04-07');
    const from = traffic.api.length;
    const clicked = Date.now();
    await resultItem(page, 'Boathouse Loft Suite').getByRole('button', { name: 'Add to cart' }).click();
    await cartLine(page, 'Boathouse Loft Suite').waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    const took = Date.now() - clicked;
    await traffic.settle();
    const writes = traffic.api.slice(from).filter((exchange) => exchange.path.startsWith('booking/session'));
    expect(writes.map((exchange) => exchange.status)).toEqual([409, 200]);
    expect(writes[0]?.json?.request?.error?.id).toBe('challenge_required');
    expect(writes[0]?.body).not.toContain('altcha');
    expect(writes[1]?.body).toContain('altcha');
    expect(writes[1]?.json?.booking?.session?.items ?? writes[1]?.json?.booking?.session).toBeTruthy();
    // The whole add, challenge included, as the guest waits for it: reported, not asserted (a time is the
    // benchmark's to hold, `npm run bench:pow`); the cart line appearing within the step's wait is the test.
    process.stdout.write(`widget add under the PoW gate: ${took} ms from click to cart line\n`);
    await expectCleanTraffic(guest);
    await guest.context.close();
  }, 60_000);
});
