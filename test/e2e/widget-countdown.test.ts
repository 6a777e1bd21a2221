import { describe, expect, it } from 'vitest';
import { makeWidgetTenant } from '#test/fixtures/widget-tenants.ts';
import { announcements, recordAnnouncements } from '#test/support/accessibility.ts';
import { screenshot } from '#test/support/chromium.ts';
import { expectCleanTraffic } from '#test/support/traffic.ts';
import { cartMatchesApi, searchAndRead, softPoll } from '#test/support/widget-checks.ts';
import {
  cartLine,
  cartOf,
  formatMoney,
  resultItem,
  STEP_TIMEOUT,
  textOf,
} from '#test/support/widget-page.ts';
import { setUpWidgetSuite } from '#test/support/widget-suite.ts';

// Issue 14: the booking widget, driven in Debian's chromium through the page `npm start` serves at `/`, by
// the labels and roles the issue names, as a guest would. The tenant is the demo tenant (Loon Lake Lodge,
// en_CA, CAD, 15-minute holds) with per-client limits raised, since every browser here is one client.
// Here the hold's countdown, on a page whose clock the test moves.

const tenant = makeWidgetTenant();
const money = (amount: string | number) => formatMoney(amount, tenant.locale.id, tenant.locale.currency);
const suite = setUpWidgetSuite({ tenant, name: 'countdown' });
const { open } = suite;

describe("the hold's countdown in the booking widget", () => {
  it('counts down from expires, live, and announces the time left to screen readers', async () => {
    const guest = await open(1280, { prepare: (page) => page.clock.install() });
    const { page, traffic } = guest;
    await searchAndRead(page, traffic, '2027-06-07', '2027-06-09');
    const from = traffic.api.length;
    await resultItem(page, 'Mountain Bike').getByRole('button', { name: 'Add to cart' }).click();
    await cartLine(page, 'Mountain Bike').waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    const session = await cartMatchesApi(page, traffic, { from, step: 'after adding the bike', money });
    await recordAnnouncements(page);
    const pageNow = () => page.evaluate(() => Date.now());
    const shown = async () => {
      const text = await textOf(cartOf(page));
      const clock = /\b(\d{1,2}):(\d{2})\b/.exec(text);
      const minutes = /(\d+)\s*(min|minute)/i.exec(text);
      return {
        text,
        minutes: clock ? Number(clock[1]) + Number(clock[2]) / 60 : Number(minutes?.[1] ?? Number.NaN),
      };
    };
    let last = '';
    // The countdown shows the moved clock at its next tick: wait for it to follow, then check softly.
    const expectFollowsExpires = (step: string) =>
      softPoll(
        async () => {
          const { text, minutes } = await shown();
          const left = (session.expires * 1000 - (await pageNow())) / 60_000;
          last = `${step}: the countdown ("${text}") shows ${left.toFixed(2)} min left`;
          return Math.abs(minutes - left) < 1.01;
        },
        true,
        async () => last,
      );
    await expectFollowsExpires('at the start');
    const first = (await shown()).text;
    await page.clock.fastForward(61_000);
    await softPoll(
      async () => (await shown()).text !== first,
      true,
      'the countdown is live: a minute later it shows less',
    );
    await expectFollowsExpires('a minute later');
    for (const minutesLeft of [5, 2, 1, 0.25]) {
      const ahead = session.expires * 1000 - (await pageNow()) - minutesLeft * 60_000;
      if (ahead > 0) await page.clock.fastForward(Math.round(ahead));
      await expectFollowsExpires(`${minutesLeft} min before the end`);
    }
    const heard = await announcements(page);
    expect
      .soft(
        heard.some((text) => /\d{1,2}:\d{2}|\d+\s*(min|minute|second)|expire|hold/i.test(text)),
        `a live region announces the time left on the hold (heard: ${JSON.stringify(heard)})`,
      )
      .toBe(true);
    await screenshot(page, '1280-countdown');
    await expectCleanTraffic(guest);
  }, 120_000);
});
