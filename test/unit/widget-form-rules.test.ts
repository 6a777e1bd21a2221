import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { presentForm } from '#functions/bookings/present.ts';
import { validateForm } from '#lib/bookings/form.ts';
import type { StoredConfig } from '#lib/config/model.ts';
import { DomainError } from '#lib/kernel/errors.ts';
import { makeTenant } from '#test/support/tenant.ts';
import { checkForm, serverProblems } from '#widget/src/form-rules.ts';
import type { FormField } from '#widget/src/types.ts';

const demo = JSON.parse(readFileSync('infra/tenants/demo.json', 'utf8'));
const withTos = { ...demo, policy: { ...demo.policy, tos_required: true } };

/** The form a customer's widget receives, as `booking/form` presents it, and the config the server checks with. */
function formOf(raw: Record<string, unknown>) {
  const config = { ...makeTenant(raw), updated_at: 0 } as StoredConfig;
  const { ui, policy } = presentForm(config, 'customer');
  const skip = new Set(['msg', 'errors', 'mode', '_cnf']);
  const fields = [
    ...Object.entries(ui).filter(([id]) => !skip.has(id)),
    ...Object.entries(policy.fields),
  ] as Array<[string, FormField]>;
  return { config, fields };
}

/** What a guest could type in each field: blanks, short and long text, emails good and bad, the options. */
const valueFor = (field: FormField) => {
  const { type, options } = field.define.layout;
  if (type === 'checkbox') return fc.constantFrom('', '1');
  const max = field.define.max_length ?? 500;
  return fc.oneof(
    fc.constantFrom('', '   ', 'Ada', 'ada@example.com', 'ada@example', 'a b@example.com', 'ZZ'),
    fc.constantFrom(...Object.keys(options ?? { x: '' })),
    fc.constantFrom('x'.repeat(max), 'x'.repeat(max + 1), ` ${'x'.repeat(max)} `),
    fc.string({ maxLength: 12 }),
  );
};

/** The server's verdict: nothing wrong, or the fields it names (missing ones come alone, first). */
function serverVerdict(config: StoredConfig, values: Record<string, string>) {
  try {
    validateForm(config, values, 'customer');
    return { ok: true, fields: [] as string[], missing: false };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const data = error.data as Record<string, string>;
    const fields = Object.keys(data).map((key) => /^form\[(.+)\]$/.exec(key)?.[1] ?? key);
    return { ok: false, fields, missing: !Object.keys(data).some((key) => key.startsWith('form[')) };
  }
}

describe('the widget checks its booking form as the server does', () => {
  for (const [name, raw] of [
    ['the demo tenant', demo],
    ['a tenant whose policy must be agreed to', withTos],
  ] as const) {
    it(`refuses exactly what the server refuses, for ${name}`, () => {
      const { config, fields } = formOf(raw);
      const values = fc.record(Object.fromEntries(fields.map(([id, field]) => [id, valueFor(field)])));
      fc.assert(
        fc.property(values, (typed) => {
          const client = checkForm(fields, typed as Record<string, string>);
          const server = serverVerdict(config, typed as Record<string, string>);
          expect(Object.keys(client).length === 0).toBe(server.ok);
          // The server names missing fields alone; the widget names those and any other problem.
          for (const field of server.fields) expect(client).toHaveProperty([field]);
          if (!server.missing) expect(Object.keys(client).sort()).toEqual(server.fields.sort());
        }),
        { numRuns: 400 },
      );
    });
  }

  it("shows the server's problems beside their fields, and the rest apart", () => {
    const { fields } = formOf(demo);
    expect(serverProblems(fields, { customer_name: 'Full name' }, true)).toEqual({
      byField: { customer_name: 'Enter full name' },
      other: [],
    });
    expect(
      serverProblems(fields, { 'form[customer_email]': 'not an email address', 'form[x]': 'unknown' }, false),
    ).toEqual({ byField: { customer_email: 'Email: not an email address' }, other: ['form[x]: unknown'] });
  });
});
