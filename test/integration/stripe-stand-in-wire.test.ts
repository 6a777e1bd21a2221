import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Stripe from 'stripe';
import { afterAll, describe, expect, it } from 'vitest';
import { startStripeStandIn } from '#infra/local/stripe/index.ts';
import { checkedSdk, depositSession, sdkFor, startStripeWorld } from '#test/support/stripe-world.ts';

// Stripe's wire beyond single objects: Idempotency-Key, cursor pagination, events read back, faults of the
// API, and a restart on the same data directory. Driven only through the official SDK.

const { standIn, stripe, control } = await startStripeWorld({ withReceiver: false });

const failure = async (call: Promise<unknown>) =>
  (await call.then(
    () => {
      throw new Error('the call succeeded');
    },
    (error: unknown) => error,
  )) as Stripe.errors.StripeError;

describe('Idempotency-Key', () => {
  it('replays the first answer to the same key and parameters, saying so', async () => {
    const first = await stripe.checkout.sessions.create(depositSession(), { idempotencyKey: 'create-1' });
    const second = await stripe.checkout.sessions.create(depositSession(), { idempotencyKey: 'create-1' });
    expect(second.id).toBe(first.id);
    expect(second.lastResponse.headers['idempotent-replayed']).toBe('true');
    expect(first.lastResponse.headers['idempotent-replayed']).toBeUndefined();
    expect(second.lastResponse.headers['original-request']).toBe(first.lastResponse.requestId);
    expect(second.lastResponse.requestId).not.toBe(first.lastResponse.requestId);
    const listed = await stripe.checkout.sessions.list({ limit: 100 });
    expect(
      listed.data.filter((s) => s.client_reference_id === first.client_reference_id && s.id === first.id),
    ).toHaveLength(1);
  });

  it('refuses the same key with other parameters, or on another endpoint, with 400 idempotency_error', async () => {
    await stripe.checkout.sessions.create(depositSession(), { idempotencyKey: 'create-2' });
    const other = await failure(
      stripe.checkout.sessions.create(depositSession({ client_reference_id: 'OTHER' }), {
        idempotencyKey: 'create-2',
      }),
    );
    expect([other.statusCode, other.type, other.rawType]).toEqual([
      400,
      'StripeIdempotencyError',
      'idempotency_error',
    ]);
    const elsewhere = await failure(
      stripe.refunds.create({ payment_intent: 'pi_x' }, { idempotencyKey: 'create-2' }),
    );
    expect([elsewhere.statusCode, elsewhere.rawType]).toEqual([400, 'idempotency_error']);
    expect(elsewhere.message).toContain("('POST /v1/checkout/sessions' vs 'POST /v1/refunds')");
  });

  it('replays an error that execution gave, even once the state has changed', async () => {
    const created = await stripe.checkout.sessions.create(
      depositSession({ payment_intent_data: { capture_method: 'manual' } }),
    );
    await control(`checkout/${created.id}/decline`, {});
    const intentId = (await stripe.checkout.sessions.retrieve(created.id)).payment_intent as string;
    const early = await failure(stripe.paymentIntents.capture(intentId, {}, { idempotencyKey: 'capture-1' }));
    expect(early.code).toBe('payment_intent_unexpected_state');
    await control(`checkout/${created.id}/pay`, {});
    const replayed = await failure(
      stripe.paymentIntents.capture(intentId, {}, { idempotencyKey: 'capture-1' }),
    );
    expect([replayed.code, replayed.headers?.['idempotent-replayed']]).toEqual([
      'payment_intent_unexpected_state',
      'true',
    ]);
    const fresh = await stripe.paymentIntents.capture(intentId, {}, { idempotencyKey: 'capture-2' });
    expect(fresh.status).toBe('succeeded');
  });

  it('saves nothing when parameters fail validation, so the key can be used again', async () => {
    const bad = await failure(
      stripe.checkout.sessions.create(depositSession({ customer_email: 'not-an-email' }), {
        idempotencyKey: 'create-3',
      }),
    );
    expect(bad.code).toBe('email_invalid');
    const good = await stripe.checkout.sessions.create(depositSession(), { idempotencyKey: 'create-3' });
    expect(good.lastResponse.headers['idempotent-replayed']).toBeUndefined();
  });

  it('forgets a key after 24 hours on the stand-in clock', async () => {
    const first = await stripe.checkout.sessions.create(depositSession(), { idempotencyKey: 'create-4' });
    await control('clock/advance', { seconds: 24 * 3600 });
    const later = await stripe.checkout.sessions.create(depositSession(), { idempotencyKey: 'create-4' });
    expect(later.id).not.toBe(first.id);
  });
});

describe('cursor pagination', () => {
  it('pages newest first with limit, starting_after and ending_before, has_more on each side', async () => {
    const made: string[] = [];
    for (let n = 0; n < 5; n += 1)
      made.push(
        (await stripe.checkout.sessions.create(depositSession({ client_reference_id: `page-${n}` }))).id,
      );
    const newest = made.toReversed();
    const first = await stripe.checkout.sessions.list({ limit: 2 });
    expect([first.data.map((s) => s.id), first.has_more, first.url]).toEqual([
      newest.slice(0, 2),
      true,
      '/v1/checkout/sessions',
    ]);
    const second = await stripe.checkout.sessions.list({ limit: 2, starting_after: newest[1] });
    expect(second.data.map((s) => s.id)).toEqual(newest.slice(2, 4));
    const back = await stripe.checkout.sessions.list({ limit: 2, ending_before: newest[3] });
    expect([back.data.map((s) => s.id), back.has_more]).toEqual([newest.slice(1, 3), true]);
    const all = await stripe.checkout.sessions.list({ limit: 2 }).autoPagingToArray({ limit: 1000 });
    expect(all.slice(0, 5).map((s) => s.id)).toEqual(newest);
    expect(new Set(all.map((s) => s.id)).size).toBe(all.length);
  });

  it('lists PaymentIntents for a reconcile, and sessions by PaymentIntent', async () => {
    const paid: string[] = [];
    for (let n = 0; n < 3; n += 1) {
      const session = await stripe.checkout.sessions.create(depositSession());
      paid.push((await control(`checkout/${session.id}/pay`, {})).json.payment_intent);
    }
    const intents = await stripe.paymentIntents.list({ limit: 1 }).autoPagingToArray({ limit: 1000 });
    expect(intents.slice(0, 3).map((i) => i.id)).toEqual(paid.toReversed());
    const bySession = await stripe.checkout.sessions.list({ payment_intent: paid[0] });
    expect(bySession.data.map((s) => s.payment_intent)).toEqual([paid[0]]);
    const expanded = await stripe.checkout.sessions.list({
      payment_intent: paid[0],
      expand: ['data.payment_intent'],
    });
    expect((expanded.data[0]?.payment_intent as Stripe.PaymentIntent | undefined)?.status).toBe('succeeded');
  });

  it('refuses a cursor that names no object, and a limit over 100', async () => {
    const missing = await failure(stripe.paymentIntents.list({ starting_after: 'pi_nope' }));
    expect([missing.statusCode, missing.code]).toEqual([404, 'resource_missing']);
    const tooMany = await failure(stripe.paymentIntents.list({ limit: 101 }));
    expect(tooMany.statusCode).toBe(400);
  });
});

describe('events', () => {
  it("records each change as an event with Stripe's shape, readable by id and listed by type", async () => {
    const session = await stripe.checkout.sessions.create(depositSession(), { idempotencyKey: 'events-1' });
    await control(`checkout/${session.id}/pay`, {});
    const completed = (await stripe.events.list({ type: 'checkout.session.completed', limit: 1 })).data[0];
    expect(completed).toMatchObject({
      object: 'event',
      type: 'checkout.session.completed',
      livemode: false,
      api_version: Stripe.API_VERSION,
      pending_webhooks: 0,
      request: { id: null, idempotency_key: null },
    });
    expect(completed?.id).toMatch(/^evt_/);
    const object = completed?.data.object as Stripe.Checkout.Session;
    expect([object.id, object.status]).toEqual([session.id, 'complete']);
    expect((await stripe.events.retrieve(completed?.id ?? '')).id).toBe(completed?.id);
    const refund = await stripe.refunds.create(
      { payment_intent: object.payment_intent as string },
      { idempotencyKey: 'refund-ev' },
    );
    const refunded = (await stripe.events.list({ type: 'charge.refunded', limit: 1 })).data[0];
    expect(refunded?.request).toEqual({ id: refund.lastResponse.requestId, idempotency_key: 'refund-ev' });
    expect((refunded?.data.object as Stripe.Charge | undefined)?.amount_refunded).toBe(12_500);
  });

  it('emits each of its seven event types at its moment, with the object it is about', async () => {
    const since = (await stripe.events.list({ limit: 1 })).data[0]?.id;
    const manual = depositSession({ payment_intent_data: { capture_method: 'manual' } });
    const held = await stripe.checkout.sessions.create(manual);
    const intent = (await control(`checkout/${held.id}/decline`, {})).json.payment_intent as string;
    await control(`checkout/${held.id}/pay`, {});
    await stripe.paymentIntents.capture(intent);
    await stripe.refunds.create({ payment_intent: intent, amount: 100 });
    const released = await stripe.checkout.sessions.create(manual);
    const releasedIntent = (await control(`checkout/${released.id}/pay`, {})).json.payment_intent as string;
    await stripe.paymentIntents.cancel(releasedIntent);
    const abandoned = await stripe.checkout.sessions.create(depositSession());
    await stripe.checkout.sessions.expire(abandoned.id);
    const events = await stripe.events.list({ limit: 100, ...(since ? { ending_before: since } : {}) });
    const seen = events.data
      .toReversed()
      .map((event) => [event.type, (event.data.object as { id: string }).id]);
    expect(seen).toEqual([
      ['payment_intent.payment_failed', intent],
      ['payment_intent.amount_capturable_updated', intent],
      ['checkout.session.completed', held.id],
      ['payment_intent.succeeded', intent],
      ['charge.refunded', expect.stringMatching(/^ch_/)],
      ['payment_intent.amount_capturable_updated', releasedIntent],
      ['checkout.session.completed', released.id],
      ['payment_intent.canceled', releasedIntent],
      ['checkout.session.expired', abandoned.id],
    ]);
  });
});

describe('API faults', () => {
  const retrying = checkedSdk(sdkFor(standIn, { maxNetworkRetries: 1 }));

  it('answers 500 before running anything: nothing is created, and a retry with the key runs afresh', async () => {
    const before = (await stripe.checkout.sessions.list({ limit: 100 })).data.length;
    await control('faults/api', { mode: 'error', when: 'before', count: 1 });
    const error = await failure(
      stripe.checkout.sessions.create(depositSession(), { idempotencyKey: 'fault-1' }),
    );
    expect([error.statusCode, error.type]).toEqual([500, 'StripeAPIError']);
    expect((await stripe.checkout.sessions.list({ limit: 100 })).data.length).toBe(before);
    const retried = await stripe.checkout.sessions.create(depositSession(), { idempotencyKey: 'fault-1' });
    expect(retried.lastResponse.headers['idempotent-replayed']).toBeUndefined();
  });

  it("answers 500 after running: the object exists, and Stripe's replay repeats the 500", async () => {
    await control('faults/api', { mode: 'error', when: 'after', count: 1 });
    const error = await failure(
      stripe.checkout.sessions.create(depositSession({ client_reference_id: 'after-500' }), {
        idempotencyKey: 'fault-2',
      }),
    );
    expect(error.statusCode).toBe(500);
    const listed = await stripe.checkout.sessions.list({ limit: 100 });
    expect(listed.data.filter((s) => s.client_reference_id === 'after-500')).toHaveLength(1);
    const replay = await failure(
      stripe.checkout.sessions.create(depositSession({ client_reference_id: 'after-500' }), {
        idempotencyKey: 'fault-2',
      }),
    );
    expect([replay.statusCode, replay.headers?.['idempotent-replayed']]).toEqual([500, 'true']);
  });

  it('lets the SDK retry through one 500 with the key it made itself', async () => {
    await control('faults/api', { mode: 'error', when: 'before', count: 1 });
    const session = await retrying.checkout.sessions.create(depositSession());
    expect(session.status).toBe('open');
  });

  it('hangs: the client times out; after running, a retry with the key gets the saved answer', async () => {
    const impatient = sdkFor(standIn, { timeout: 300 });
    await control('faults/api', { mode: 'hang', when: 'after', count: 1 });
    const error = await failure(
      impatient.checkout.sessions.create(depositSession({ client_reference_id: 'hung' }), {
        idempotencyKey: 'fault-3',
      }),
    );
    expect(error.type).toBe('StripeConnectionError');
    const retried = await stripe.checkout.sessions.create(depositSession({ client_reference_id: 'hung' }), {
      idempotencyKey: 'fault-3',
    });
    expect(retried.lastResponse.headers['idempotent-replayed']).toBe('true');
    await control('faults/api', { mode: 'hang', when: 'before', count: 1 });
    const hung = await failure(impatient.paymentIntents.list());
    expect(hung.type).toBe('StripeConnectionError');
    expect((await stripe.paymentIntents.list()).object).toBe('list');
  });
});

describe('the raw wire', () => {
  const raw = (path: string, init: RequestInit = {}) =>
    fetch(`${standIn.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${standIn.secretKey}`, ...(init.headers as Record<string, string>) },
    });

  it('answers without a key with 401 and says how to send one; takes the key as Basic user (curl -u)', async () => {
    const none = await fetch(`${standIn.url}/v1/payment_intents`);
    expect([none.status, none.headers.get('www-authenticate')]).toEqual([401, 'Basic realm="Stripe"']);
    expect(((await none.json()) as { error: { message: string } }).error.message).toContain(
      'You did not provide an API key',
    );
    const basic = await fetch(`${standIn.url}/v1/payment_intents`, {
      headers: { authorization: `Basic ${Buffer.from(`${standIn.secretKey}:`).toString('base64')}` },
    });
    expect(basic.status).toBe(200);
  });

  it('answers an unknown URL or method with 404, and an id that is not valid percent-encoding as missing', async () => {
    const unknown = await raw('/v1/customers');
    expect([
      unknown.status,
      ((await unknown.json()) as { error: { message: string } }).error.message,
    ]).toEqual([
      404,
      'Unrecognized request URL (GET: /v1/customers). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.',
    ]);
    expect((await raw('/v1/payment_intents', { method: 'DELETE' })).status).toBe(404);
    const malformed = await raw('/v1/payment_intents/pi_%E0%A4%A');
    expect([malformed.status, ((await malformed.json()) as { error: { code: string } }).error.code]).toEqual([
      404,
      'resource_missing',
    ]);
  });

  it('refuses a body over 1 MiB with 413 and stays up', async () => {
    const big = await raw('/v1/refunds', { method: 'POST', body: `metadata[x]=${'a'.repeat(1024 * 1024)}` });
    expect(big.status).toBe(413);
    expect((await raw('/v1/payment_intents')).status).toBe(200);
  });
});

describe('a restart on the same data directory', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stripe-stand-in-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps every object, the keys, the idempotency answers and the clock; a stop leaves one JSON file', async () => {
    const first = await startStripeStandIn({ dataDir });
    const before = checkedSdk(sdkFor(first));
    const session = await before.checkout.sessions.create(depositSession(), { idempotencyKey: 'restart-1' });
    await first.controls.pay(session.id);
    first.controls.advanceClock(600);
    await first.stop();
    const saved = JSON.parse(readFileSync(join(dataDir, 'stripe-stand-in.json'), 'utf8'));
    expect(Object.keys(saved.sessions)).toEqual([session.id]);
    expect(readFileSync(join(dataDir, 'stripe-stand-in.json.journal'), 'utf8')).toBe('');

    const second = await startStripeStandIn({ dataDir });
    try {
      expect([second.secretKey, second.webhookSecret]).toEqual([first.secretKey, first.webhookSecret]);
      const after = checkedSdk(sdkFor(second));
      const read = await after.checkout.sessions.retrieve(session.id, { expand: ['payment_intent'] });
      expect([read.status, (read.payment_intent as Stripe.PaymentIntent).status]).toEqual([
        'complete',
        'succeeded',
      ]);
      const replay = await after.checkout.sessions.create(depositSession(), { idempotencyKey: 'restart-1' });
      expect([replay.id, replay.lastResponse.headers['idempotent-replayed']]).toEqual([session.id, 'true']);
      expect(second.controls.now()).toBeGreaterThanOrEqual(first.controls.now());
      expect((await after.events.list()).data.map((e) => e.type)).toContain('checkout.session.completed');
    } finally {
      await second.stop();
    }
  });
});
