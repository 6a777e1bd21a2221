import { describe, expect, it } from 'vitest';
import { makeWidgetTenant } from '#test/fixtures/widget-tenants.ts';
import { audit } from '#test/support/accessibility.ts';
import { screenshot } from '#test/support/chromium.ts';
import { expectCleanTraffic } from '#test/support/traffic.ts';
import { cartMatchesApi, expectResultsMatchApi, searchAndRead } from '#test/support/widget-checks.ts';
import {
  bookingForm,
  cartLine,
  formatMoney,
  refusalShown,
  resultItem,
  STEP_TIMEOUT,
  searchArea,
  textOf,
} from '#test/support/widget-page.ts';
import { setUpWidgetSuite } from '#test/support/widget-suite.ts';

// Issue 14 §2, read from the API rather than built in: another tenant's booking parameters (their labels),
// locale and currency (amounts written by `Intl` for de-DE and EUR, not the API's "€190.00"), and booking
// form (a required radio group, a checkbox, a phone number made required).
const tenant = makeWidgetTenant((raw) => {
  raw.locale = { id: 'de_DE', lang: 'de', currency: 'EUR', currency_symbol: '€', decimals: 2 };
  raw.params.adults.lbl = 'Grown-ups';
  raw.params.children.lbl = 'Kids';
  raw.params.qty.lbl = 'Boats and bikes';
  const phone = raw.form.find((field: any) => field.field_id === 'customer_phone');
  phone.customer = { required: true };
  // No country chosen by the form: the widget preselects the business's own (company.country_id, CA).
  delete raw.form.find((field: any) => field.field_id === 'customer_country').value;
  raw.form.push(
    {
      field_id: 'heard_from',
      lbl: 'How did you hear about us?',
      type: 'radio',
      options: { friend: 'From a friend', web: 'On the web', other: 'Some other way' },
      customer: { required: true },
    },
    { field_id: 'newsletter', lbl: 'Send me the lodge newsletter', type: 'checkbox' },
  );
  raw.policy.tos_required = true;
});
const money = (amount: string | number) => formatMoney(amount, tenant.locale.id, tenant.locale.currency);

const suite = setUpWidgetSuite({ tenant, name: 'custom' });

describe("the booking widget follows the tenant's API", () => {
  it("offers the tenant's parameters, writes amounts in its locale and renders its form", async () => {
    const guest = await suite.open(1280);
    const { page, traffic, widget } = guest;
    const area = await searchArea(page);
    for (const label of ['Grown-ups', 'Kids', 'Boats and bikes']) {
      expect.soft(await area.getByLabel(label).count(), `a quantity labelled "${label}"`).toBe(1);
    }
    expect.soft(await area.getByLabel('Adults').count(), 'no built-in "Adults" label').toBe(0);

    const items = await searchAndRead(page, traffic, '2027-05-17', '2027-05-19');
    const kayak = items.get('Touring Kayak');
    expect(kayak?.rate.summary.price.total, 'the API writes its own amount').not.toBe(
      money(kayak?.rate.total),
    );
    expect(await textOf(resultItem(page, 'Touring Kayak')), 'the amount as de-DE writes EUR').toContain(
      money(kayak?.rate.total),
    );
    await expectResultsMatchApi(page, items, money);
    await screenshot(page, 'de-DE-results');

    const addFrom = traffic.api.length;
    await resultItem(page, 'Touring Kayak').getByRole('button', { name: 'Add to cart' }).click();
    await cartLine(page, 'Touring Kayak').waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    await cartMatchesApi(page, traffic, { from: addFrom, step: 'the de-DE cart', money });

    await widget.getByRole('button', { name: 'Book now' }).click();
    await widget
      .getByRole('button', { name: 'Confirm booking' })
      .waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    const form = await bookingForm(page);
    const radios = ['From a friend', 'On the web', 'Some other way'];
    for (const option of radios) {
      expect.soft(await form.getByRole('radio', { name: option }).count(), `a radio "${option}"`).toBe(1);
    }
    const group = form
      .getByRole('radiogroup', { name: 'How did you hear about us?' })
      .or(form.getByRole('group', { name: 'How did you hear about us?' }));
    expect.soft(await group.count(), 'the radios are grouped under their label').toBeGreaterThan(0);
    const newsletter = form.getByRole('checkbox', { name: 'Send me the lodge newsletter' });
    expect.soft(await newsletter.count(), 'the checkbox field').toBe(1);
    const phone = form.getByLabel('Phone');
    expect
      .soft(
        await phone.evaluate(
          (element: any) => element.required || element.getAttribute('aria-required') === 'true',
        ),
        'Phone is required for this tenant',
      )
      .toBe(true);
    const agree = form.getByRole('checkbox', { name: 'I agree to the booking policy' });
    expect(await agree.count(), 'the policy checkbox of booking_policy').toBe(1);
    expect
      .soft(
        await agree.evaluate(
          (element: any) => element.required || element.getAttribute('aria-required') === 'true',
        ),
        'the policy checkbox is required (tos_required)',
      )
      .toBe(true);
    expect(
      await form.getByLabel('Country').inputValue(),
      "the business's country, preselected where the form gives none",
    ).toBe('CA');
    await screenshot(page, 'de-DE-form');
    await audit(page, 'custom form');

    // Required radio and phone are checked before sending.
    const creates = () =>
      traffic.requests.filter((request) => request.url.includes('/booking/create')).length;
    await form.getByLabel('Full name').fill('Klara Schmidt');
    await form.getByLabel('Email').fill('klara@example.com');
    await phone.fill('+49 30 1234567');
    const confirm = widget.getByRole('button', { name: 'Confirm booking' });
    await confirm.click();
    // Refused here, nothing is sent: once the refusal shows, the click has been dealt with.
    await refusalShown(page, /how did you hear about us/i);
    expect.soft(creates(), 'no booking/create without the required radio').toBe(0);

    await form.getByRole('radio', { name: 'On the web' }).check();
    if ((await newsletter.count()) === 1) await newsletter.check();
    await confirm.click();
    await refusalShown(page, /booking policy/i, /how did you hear about us/i);
    expect.soft(creates(), 'no booking/create without agreeing to the required policy').toBe(0);
    await agree.check();
    const createFrom = traffic.api.length;
    await confirm.click();
    await expect
      .poll(
        async () => {
          await traffic.settle();
          return traffic.api.slice(createFrom).find((exchange) => exchange.path === 'booking/create')?.status;
        },
        { timeout: STEP_TIMEOUT, message: 'booking/create answers' },
      )
      .toBe(200);
    const create = traffic.api.slice(createFrom).find((exchange) => exchange.path === 'booking/create');
    const sent = decodeURIComponent(`${create?.url.search} ${create?.body ?? ''}`);
    expect.soft(sent, 'the radio value is sent').toMatch(/heard_from\]?"?[=:]\s*"?web/);
    expect.soft(sent.replace(/[\s+]/g, ''), 'the phone is sent').toContain('49301234567');
    const booking = create?.json.booking;
    await widget.getByText(booking.id).first().waitFor({ state: 'visible', timeout: STEP_TIMEOUT });
    expect
      .soft(await textOf(widget), 'the confirmation total as de-DE writes EUR')
      .toContain(money(booking.total));
    await screenshot(page, 'de-DE-confirmation');
    await expectCleanTraffic(guest);
  }, 150_000);
});
