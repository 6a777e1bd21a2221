import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeSlip, SlipError, type SlipPayload, verifySlip } from '#lib/slip/codec.ts';
import { parseSlipKeys } from '#lib/slip/keys.ts';

const KEY = { secret: 'a'.repeat(40) };
const OLD = { secret: 'b'.repeat(40) };
const NOW = 1_800_000_000_000;

const payload = (overrides: Partial<SlipPayload> = {}): SlipPayload => ({
  tenant: 'demo',
  itemId: 3,
  start: '20270105',
  end: '20270107',
  params: { qty: 2 },
  expiresAt: NOW / 1000 + 3600,
  ...overrides,
});

const reasonOf = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    if (error instanceof SlipError) return error.reason;
    throw error;
  }
  return 'accepted';
};

const ymd = fc
  .date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true })
  .map((date) => date.toISOString().slice(0, 10).replaceAll('-', ''));
const payloads = fc
  .record(
    {
      tenant: fc.stringMatching(/^[a-z][a-z0-9-]{1,20}$/),
      itemId: fc.integer({ min: 1, max: 2_147_483_647 }),
      start: ymd,
      end: ymd,
      startTime: fc.integer({ min: 0, max: 1439 }),
      endTime: fc.integer({ min: 0, max: 1439 }),
      params: fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9_]{0,10}$/), fc.integer({ min: 0, max: 999 }), {
        maxKeys: 5,
      }),
      discountCode: fc.stringMatching(/^[A-Z0-9_-]{2,32}$/),
      optIn: fc.array(fc.integer({ min: 1, max: 1000 }), { minLength: 1, maxLength: 5 }),
      rules: fc.constantFrom('soft' as const, 'off' as const),
      expiresAt: fc.integer({ min: NOW / 1000 + 1, max: NOW / 1000 + 10 ** 7 }),
    },
    { requiredKeys: ['tenant', 'itemId', 'start', 'end', 'params', 'expiresAt'] },
  )
  .map((value) => {
    const { startTime, endTime, ...rest } = value;
    return (
      startTime !== undefined && endTime !== undefined ? { ...rest, startTime, endTime } : rest
    ) as SlipPayload;
  });

describe('the SLIP codec', () => {
  it('round-trips any valid payload', () => {
    fc.assert(
      fc.property(payloads, (value) => {
        const slip = encodeSlip(value, KEY);
        expect(slip).toMatch(/^[A-Za-z0-9._-]+$/);
        expect(verifySlip(slip, { keys: [KEY], tenant: value.tenant, now: NOW })).toEqual(value);
      }),
    );
  });

  it('refuses a SLIP with any one character changed', () => {
    fc.assert(
      fc.property(payloads, fc.nat(), fc.constantFrom(...'ABCxyz019._-'), (value, position, replacement) => {
        const slip = encodeSlip(value, KEY);
        const index = position % slip.length;
        fc.pre(slip[index] !== replacement);
        const altered = `${slip.slice(0, index)}${replacement}${slip.slice(index + 1)}`;
        expect(reasonOf(() => verifySlip(altered, { keys: [KEY], tenant: value.tenant, now: NOW }))).not.toBe(
          'accepted',
        );
      }),
    );
  });

  it('says why it refuses', () => {
    const slip = encodeSlip(payload(), KEY);
    const verify = (text: string, options: Partial<Parameters<typeof verifySlip>[1]> = {}) =>
      reasonOf(() => verifySlip(text, { keys: [KEY], tenant: 'demo', now: NOW, ...options }));
    expect(verify(slip)).toBe('accepted');
    expect(verify(slip.slice(0, -5))).toBe('truncated');
    expect(verify(slip.slice(0, slip.lastIndexOf('.')))).toBe('truncated');
    expect(verify(`${slip.slice(0, -2)}AA`)).toBe('tampered');
    expect(verify(slip, { now: NOW + 3_600_000 })).toBe('expired');
    expect(verify(slip, { tenant: 'other' })).toBe('foreign');
    expect(verify(encodeSlip(payload(), { secret: 'c'.repeat(40) }))).toBe('foreign');
    expect(verify(slip.replace(/^s1/, 's9'))).toBe('unsupported_version');
    expect(verify('hello world')).toBe('malformed');
    expect(verify('')).toBe('malformed');
  });

  it('verifies with any configured key, so the signing key can rotate', () => {
    const old = encodeSlip(payload(), OLD);
    expect(verifySlip(old, { keys: [KEY, OLD], tenant: 'demo', now: NOW }).itemId).toBe(3);
    expect(reasonOf(() => verifySlip(old, { keys: [KEY], tenant: 'demo', now: NOW }))).toBe('foreign');
  });

  it('reads keys from text, first one signing, and refuses short ones', () => {
    expect(parseSlipKeys(`${'n'.repeat(32)}, ${'o'.repeat(32)}\n`).map((key) => key.secret[0])).toEqual([
      'n',
      'o',
    ]);
    expect(() => parseSlipKeys('short')).toThrow();
    expect(() => parseSlipKeys('  ')).toThrow();
  });
});
