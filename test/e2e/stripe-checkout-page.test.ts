import type { BrowserContext } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from '#test/support/accessibility.ts';
import { screenshot, setUpChromium } from '#test/support/chromium.ts';
import { depositSession, startStripeWorld } from '#test/support/stripe-world.ts';

// The stand-in's hosted checkout page as a guest meets it in Chromium: with JavaScript off (the page needs
// none), by its buttons' names, audited by axe-core; the SDK reads back what the guest did.

const { stripe, control } = await startStripeWorld({ withReceiver: false });
const SHOP = 'http://shop.test';

const chromium = setUpChromium();
let noScript: BrowserContext;
let withScript: BrowserContext;

beforeAll(async () => {
  const { browser } = chromium;
  noScript = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 375, height: 812 } });
  withScript = await browser.newContext();
  // The shop the guest returns to: only its address matters here.
  for (const context of [noScript, withScript])
    await context.route(`${SHOP}/**`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<title>Shop</title>' }),
    );
});

const session = () =>
  stripe.checkout.sessions.create(
    depositSession({
      success_url: `${SHOP}/paid?session={CHECKOUT_SESSION_ID}`,
      cancel_url: `${SHOP}/cancelled`,
    }),
  );

describe('the checkout page', () => {
  it('shows what is paid, declines, then pays and returns to success_url with the session id', async () => {
    const created = await session();
    const page = await noScript.newPage();
    await page.goto(created.url ?? '');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Pay CA$125.00');
    expect(await page.getByRole('table', { name: 'What you pay for' }).textContent()).toContain(
      'Deposit: Lakeside cabin, 2 nights',
    );
    expect(await page.getByRole('link', { name: 'Back (cancel)' }).getAttribute('href')).toBe(
      `${SHOP}/cancelled`,
    );

    await page.getByRole('button', { name: 'Decline (card declined)' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Your card was declined');
    await screenshot(page, 'stripe-checkout-declined');
    const declined = await stripe.checkout.sessions.retrieve(created.id, { expand: ['payment_intent'] });
    expect(declined.status).toBe('open');

    await page.getByRole('button', { name: 'Pay with test card' }).click();
    await page.waitForURL(`${SHOP}/paid?session=${created.id}`);
    const paid = await stripe.checkout.sessions.retrieve(created.id);
    expect([paid.status, paid.payment_status]).toEqual(['complete', 'paid']);
    await page.close();
  });

  it('says so when the session is complete or expired, and takes no payment then', async () => {
    const created = await session();
    await stripe.checkout.sessions.expire(created.id);
    const page = await noScript.newPage();
    // An expired session has no url any more: the guest comes back by the one they had.
    await page.goto(`${new URL(created.url ?? '').origin}/c/pay/${created.id}`);
    expect(await page.getByRole('status').textContent()).toContain('expired');
    expect(await page.getByRole('button').count()).toBe(0);
    const posted = await page.request.post(page.url(), { form: { action: 'pay' }, maxRedirects: 0 });
    expect(posted.status()).toBe(303);
    expect((await stripe.checkout.sessions.retrieve(created.id)).status).toBe('expired');
    await page.close();
  });

  it('has no accessibility violations open, declined, paid or expired', async () => {
    const states: [string, () => Promise<string>][] = [
      ['open', async () => (await session()).url ?? ''],
      [
        'declined',
        async () => {
          const created = await session();
          await control(`checkout/${created.id}/decline`, {});
          return `${created.url}?declined=1`;
        },
      ],
      [
        'expired',
        async () => {
          const created = await session();
          await stripe.checkout.sessions.expire(created.id);
          return `${new URL(created.url ?? '').origin}/c/pay/${created.id}`;
        },
      ],
      [
        'paid',
        async () => {
          const created = await session();
          await control(`checkout/${created.id}/pay`, {});
          return `${new URL(created.url ?? '').origin}/c/pay/${created.id}`;
        },
      ],
    ];
    const page = await withScript.newPage();
    for (const [state, url] of states) {
      await page.goto(await url());
      expect(await axeViolations(page), `axe-core on the ${state} page`).toEqual([]);
    }
    await page.close();
  });
});
