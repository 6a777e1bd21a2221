import type { Locator, Page, Route } from 'playwright-core';
import { expect } from 'vitest';
import { fieldError } from './accessibility.ts';
import type { Traffic } from './traffic.ts';
import { softPoll } from './widget-checks.ts';
import { bookingForm, STEP_TIMEOUT, widgetOf } from './widget-page.ts';

// The widget's booking form: its fields held against `booking/form`, and the server's refusals of what it
// sends shown beside the field they name.

/**
 * Changes one field of the next `booking/create` on its way to the server (`null` leaves it out), so the
 * server, not the widget's own checks, finds the problem.
 */
export async function spoilOnce(page: Page, field: string, value: string | null): Promise<void> {
  await page.route(
    (url) => url.pathname.endsWith('/api/3.0/booking/create'),
    async (route: Route) => {
      const request = route.request();
      if (request.method() !== 'POST') return route.continue();
      const body = request.postData() ?? '';
      const type = (await request.headerValue('content-type')) ?? '';
      if (type.includes('json')) {
        const json = JSON.parse(body);
        const holder = json.form && typeof json.form === 'object' ? json.form : json;
        const key = holder === json ? `form[${field}]` : field;
        if (value === null) delete holder[key];
        else holder[key] = value;
        return route.continue({ postData: JSON.stringify(json) });
      }
      const form = new URLSearchParams(body);
      if (value === null) form.delete(`form[${field}]`);
      else form.set(`form[${field}]`, value);
      return route.continue({ postData: form.toString() });
    },
    { times: 1 },
  );
}

/** Sends the form once with a field spoiled and checks the server's error is shown beside that field. */
export async function expectServerErrorBeside(
  page: Page,
  traffic: Traffic,
  options: { field: string; value: string | null; control: Locator; label: string },
): Promise<void> {
  await spoilOnce(page, options.field, options.value);
  const from = traffic.api.length;
  await widgetOf(page).getByRole('button', { name: 'Confirm booking' }).click();
  await expect
    .poll(
      async () => {
        await traffic.settle();
        return traffic.api.slice(from).find((exchange) => exchange.path === 'booking/create')?.status;
      },
      {
        timeout: STEP_TIMEOUT,
        message: `the booking/create without a good ${options.field} reaches the server`,
      },
    )
    .toBe(400);
  const shown = await softPoll(
    async () => {
      const error = await fieldError(options.control);
      return error.invalid && `${error.described} ${error.beside}`.trim().length > 0;
    },
    true,
    `the server's error is shown beside "${options.label}" (marked invalid, with a message tied to it or next to it)`,
  );
  if (!shown) {
    const error = traffic.api.slice(from).find((exchange) => exchange.path === 'booking/create')?.json
      ?.request?.error;
    expect
      .soft(
        JSON.stringify(await fieldError(options.control)),
        `what "${options.label}" shows after the server said ${JSON.stringify(error)}`,
      )
      .toBe('');
  }
}

/** The fields of `booking/form` a guest fills in. */
export const formFields = (json: any) =>
  Object.entries(json?.booking_form_ui ?? {}).filter(
    ([id, field]) =>
      !['msg', 'errors', 'mode', '_cnf', 'booking_policy'].includes(id) && field && typeof field === 'object',
  ) as [string, any][];

/** Checks the rendered booking form against `booking/form`: labels, types, required flags, options. */
export async function expectFormMatchesApi(page: Page, formJson: any): Promise<void> {
  const form = await bookingForm(page);
  for (const [id, field] of formFields(formJson)) {
    const { lbl, type, options } = field.define.layout;
    if (type === 'p') continue;
    if (type === 'radio') {
      for (const option of Object.values(options ?? {}) as string[]) {
        expect
          .soft(await form.getByRole('radio', { name: option }).count(), `${id}: radio "${option}"`)
          .toBe(1);
      }
      continue;
    }
    if (type === 'checkbox') {
      expect
        .soft(await form.getByRole('checkbox', { name: lbl }).count(), `${id}: checkbox "${lbl}"`)
        .toBe(1);
      continue;
    }
    const control = form.getByLabel(lbl, { exact: false });
    const count = await control.count();
    expect.soft(count, `${id}: one control labelled "${lbl}"`).toBe(1);
    if (count !== 1) continue;
    const shape = await control.evaluate((element: any) => ({
      tag: element.tagName.toLowerCase(),
      type: element.getAttribute('type') ?? '',
      required: element.required === true || element.getAttribute('aria-required') === 'true',
      options:
        element.tagName === 'SELECT'
          ? Array.from(element.options).map((option: any) => option.text.trim())
          : [],
    }));
    const expectedTag = type === 'textarea' ? 'textarea' : type === 'select' ? 'select' : 'input';
    expect.soft(shape.tag, `${id} ("${lbl}") is a ${type}`).toBe(expectedTag);
    expect.soft(shape.required, `${id} ("${lbl}") required flag`).toBe(field.define.required === 1);
    if (type === 'select') {
      expect
        .soft(shape.options, `${id} ("${lbl}") options`)
        .toEqual(expect.arrayContaining(Object.values(options)));
    }
    if (field.define.mask === 'email') expect.soft(shape.type, `${id} takes an email`).toMatch(/email|text/);
  }
}
