import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import { type RunningService, startService, stopService } from '#test/support/local-runner.ts';

// Issue 43, item 6: `npm start` takes a payment with no account and no network; the demo tenant takes a
// deposit. With the demo tenant file as it is (the default TENANT_FILE, named here) and no Stripe keys in the environment,
// the runner starts the local stand-in for Stripe beside the service: the create answers the stand-in's
// checkout page and a 30 % deposit, the guest pays there, and the stand-in's signed event, posted to the
// runner's webhook route, moves the booking on.

const dataDir = mkdtempSync(join(tmpdir(), 'local-payments-'));
const admin = { key: 'local-payments-admin', secret: 'local-payments-secret-long-enough' };
const staff = `Basic ${Buffer.from(`${admin.key}:${admin.secret}`).toString('base64')}`;
let service: RunningService | undefined;

beforeAll(async () => {
  service = await startService({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    TENANT_FILE: 'infra/tenants/demo.json',
    ADMIN_API_KEY: admin.key,
    ADMIN_API_SECRET: admin.secret,
    // Its own DynamoDB Local under DATA_DIR; no Stripe keys, whatever the shell running the tests says.
    DYNAMODB_ENDPOINT: '',
    TABLE_NAME: '',
    STRIPE_SECRET_KEY: '',
    STRIPE_API_BASE: '',
  });
}, 120_000);

afterAll(async () => {
  // DATA_DIR holds DynamoDB Local's files: kept only when something may still use it.
  if (service && (await stopService(service))) rmSync(dataDir, { recursive: true, force: true });
});

const base = () => service?.base ?? '';
const post = (url: string, fields: Record<string, string>, authorization?: string) =>
  fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(authorization ? { authorization } : {}),
    },
    body: new URLSearchParams(fields).toString(),
  });

describe('npm start with the demo tenant, which takes a deposit', () => {
  it('starts the stand-in for Stripe, and a guest who pays there has a partly paid booking', async () => {
    const standIn = /local stand-in for Stripe at (\S+)/.exec(service?.output() ?? '')?.[1];
    expect(standIn, service?.output()).toBeTruthy();

    const day = addDays(todayIn('America/Toronto', Date.now()), 40);
    const rated = (await (await fetch(`${base()}/item/3?date=${day}&param[qty]=1`)).json()) as any;
    const added = (await (
      await post(`${base()}/booking/session`, { 'slip[]': rated.item.rate.slip })
    ).json()) as any;
    const created = await post(`${base()}/booking/create`, {
      session_id: added.booking.session.id,
      'form[customer_name]': 'Ada Lovelace',
      'form[customer_email]': 'ada@example.com',
    });
    const booking = ((await created.json()) as any).booking;
    expect(created.status).toBe(200);
    expect(booking.payment_url).toMatch(new RegExp(`^${standIn}/c/pay/cs_`));
    // 30 % of the total, half-up to the cent (docs/payments.md), the rest still due.
    const totalCents = Math.round(Number(booking.total) * 100);
    expect(Math.round(Number(booking.deposit) * 100)).toBe(Math.round((totalCents * 30) / 100));
    expect(Number(booking.deposit)).toBeGreaterThan(0);
    expect(Number(booking.deposit)).toBeLessThan(Number(booking.total));

    // The guest pays with the test card on the stand-in's checkout page, as its form posts, and is sent back.
    const paid = await fetch(booking.payment_url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'action=pay',
      redirect: 'manual',
    });
    expect(paid.status).toBe(303);

    // The stand-in's signed event reaches the runner's webhook route and moves the booking on.
    let status = '';
    for (let tries = 0; tries < 100 && status !== 'PART'; tries += 1) {
      await new Promise((wake) => setTimeout(wake, 200));
      const answer = await fetch(`${base()}/booking/${booking.id}`, { headers: { authorization: staff } });
      const read = (await answer.json()) as any;
      status = read.booking?.status_id ?? '';
    }
    expect(status).toBe('PART');
  }, 90_000);
});
