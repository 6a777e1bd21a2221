import type { StoredConfig } from '../config/index.ts';
import { DomainError } from '../kernel/errors.ts';

/** Who fills the form: customers see the customer layout, staff the staff one. */
export type Audience = 'customer' | 'staff';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/;

/** The form fields an audience sees. */
export const fieldsFor = (config: StoredConfig, audience: Audience) =>
  config.form.filter((field) => field.type !== 'p' && field[audience].form);

/** A validated form: the values of the audience's fields. */
export interface ValidatedForm {
  values: Record<string, string>;
}

const formInput = (raw: unknown): Record<string, unknown> =>
  raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};

/** Whether customers must agree to the booking policy in the form (`customer_tos_agree`). */
const agreementAsked = (config: StoredConfig, audience: Audience): boolean =>
  config.policy.tos_required && audience === 'customer';

/**
 * The fields sent that the audience's form does not have, as sent (`form[x]`): ignored, for the caller to
 * report whether or not the form is valid.
 */
export function unknownFormFields(config: StoredConfig, raw: unknown, audience: Audience): string[] {
  const known = new Set(fieldsFor(config, audience).map((field) => field.field_id));
  if (agreementAsked(config, audience)) known.add('customer_tos_agree');
  return Object.keys(formInput(raw))
    .filter((name) => !known.has(name))
    .map((name) => `form[${name}]`);
}

/**
 * Validates `form[...]` for an audience: every required field present, emails well formed, choices among
 * the options, lengths within bounds; unknown fields are ignored. Missing fields come first, as the wire's
 * "Missing required fields" (data: field id → label); other problems follow as validation errors.
 */
export function validateForm(config: StoredConfig, raw: unknown, audience: Audience): ValidatedForm {
  const input = formInput(raw);
  const fields = fieldsFor(config, audience);
  const tos = agreementAsked(config, audience);
  const problems: Record<string, string> = {};

  const values: Record<string, string> = {};
  const missing: Record<string, string> = {};
  for (const field of fields) {
    const value = input[field.field_id];
    if (value !== undefined && typeof value !== 'string') {
      problems[`form[${field.field_id}]`] = 'one value';
      continue;
    }
    const text = (value ?? '').trim();
    if (!text) {
      if (field[audience].required) missing[field.field_id] = field.lbl;
      continue;
    }
    if (text.length > field.max_length)
      problems[`form[${field.field_id}]`] = `at most ${field.max_length} characters`;
    else if (field.mask === 'email' && !EMAIL.test(text))
      problems[`form[${field.field_id}]`] = 'not an email address';
    else if (field.options && !(text in field.options))
      problems[`form[${field.field_id}]`] = 'not one of the options';
    else if (field.type === 'checkbox' && !['0', '1', 'on'].includes(text))
      problems[`form[${field.field_id}]`] = '1 or 0';
    else values[field.field_id] = field.type === 'checkbox' ? (text === '0' ? '0' : '1') : text;
  }
  if (tos && !['1', 'on'].includes(String(input.customer_tos_agree ?? ''))) {
    missing.customer_tos_agree = 'I agree to the booking policy';
  }
  if (Object.keys(missing).length) {
    throw new DomainError(
      'validation_error',
      `Missing required fields: ${Object.values(missing).join(', ')}`,
      missing,
      'Missing required fields',
    );
  }
  if (Object.keys(problems).length) {
    // The guest reads the fields by their labels; `data` keeps the `form[<id>]` names a widget maps back.
    const labels = new Map(fields.map((field) => [`form[${field.field_id}]`, field.lbl]));
    const named = Object.entries(problems).map(
      ([name, problem]) => `${labels.get(name) ?? name} (${problem})`,
    );
    throw new DomainError('validation_error', `Check these fields: ${named.join(', ')}`, problems);
  }
  return { values };
}
