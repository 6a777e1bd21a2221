import type { FormField } from './types.ts';

/** The server's test of an email address (lib/bookings/form.ts), so both refuse the same values. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/;

/** The server's length limit when the form does not say (the tenant schema's default). */
const DEFAULT_MAX_LENGTH = 500;

/** A label inside a sentence: "Enter full name". */
const lower = (label: string) => label.charAt(0).toLowerCase() + label.slice(1);

/**
 * The problems of a filled-in form, field id → message, checked as the server checks `booking/create`:
 * required fields, email addresses, lengths, choices among the options.
 */
export function checkForm(fields: Array<[string, FormField]>, values: Record<string, string>) {
  const problems: Record<string, string> = {};
  for (const [id, field] of fields) {
    const { define } = field;
    const { lbl, type, options } = define.layout;
    if (type === 'p') continue;
    const text = (values[id] ?? '').trim();
    if (type === 'checkbox') {
      if (define.required && text !== '1') problems[id] = `Select “${lbl}” to continue`;
      continue;
    }
    if (!text) {
      if (define.required)
        problems[id] = type === 'select' || type === 'radio' ? `Choose ${lower(lbl)}` : `Enter ${lower(lbl)}`;
      continue;
    }
    const max = define.max_length ?? DEFAULT_MAX_LENGTH;
    if (text.length > max) problems[id] = `${lbl} must be ${max} characters or fewer`;
    else if (define.mask === 'email' && !EMAIL.test(text))
      problems[id] = 'Enter an email address in the correct format, like name@example.com';
    else if (options && !(text in options)) problems[id] = `Choose one of the options for ${lbl}`;
  }
  return problems;
}

/**
 * The server's `validation_error` data as messages per field: missing fields come as `field: label`,
 * invalid ones as `form[field]: reason`. Keys the form does not show are returned apart.
 */
export function serverProblems(
  fields: Array<[string, FormField]>,
  data: Record<string, string>,
  missing: boolean,
): { byField: Record<string, string>; other: string[] } {
  const labels = new Map(fields.map(([id, field]) => [id, field.define.layout.lbl]));
  const byField: Record<string, string> = {};
  const other: string[] = [];
  for (const [key, reason] of Object.entries(data)) {
    const id = /^form\[(.+)\]$/.exec(key)?.[1] ?? key;
    const label = labels.get(id);
    if (label === undefined) other.push(`${key}: ${reason}`);
    else byField[id] = missing ? `Enter ${lower(label)}` : `${label}: ${reason}`;
  }
  return { byField, other };
}

/** The browser's autofill purpose of the usual customer fields (WCAG 1.3.5). */
export const AUTOCOMPLETE: Record<string, string> = {
  customer_name: 'name',
  customer_email: 'email',
  customer_phone: 'tel',
  customer_address: 'street-address',
  customer_city: 'address-level2',
  customer_region: 'address-level1',
  customer_country: 'country',
  customer_postal_zip: 'postal-code',
};
