import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { unixSeconds } from '../kernel/time.ts';

/** What a SLIP carries: everything needed to hold and book one line, and when it stops being valid. */
export interface SlipPayload {
  /** Tenant the SLIP was made for. */
  tenant: string;
  itemId: number;
  /** First date, `YYYYMMDD`. */
  start: string;
  /** The wire's end date: last day (daily), departure (nightly), same date (hourly). */
  end: string;
  /** Hourly items: local start and end, minutes after midnight. */
  startTime?: number;
  endTime?: number;
  /** Quantities by parameter id. */
  params: Record<string, number>;
  discountCode?: string;
  /** Optional package parts opted into, by item id. */
  optIn?: number[];
  /** Rules mode other than `on`, granted to staff when rated. */
  rules?: 'soft' | 'off';
  /** Unix seconds after which the SLIP is refused. */
  expiresAt: number;
}

/** A signing key; the first key of a list signs, every key verifies. */
export interface SlipKey {
  secret: string;
}

/** Why a SLIP was refused; becomes `data.reason` of a 400 `invalid_slip`. */
export type SlipFailure =
  | 'malformed'
  | 'truncated'
  | 'unsupported_version'
  | 'tampered'
  | 'expired'
  | 'foreign';

/** A refused SLIP. */
export class SlipError extends Error {
  readonly code = 'invalid_slip';
  readonly reason: SlipFailure;

  constructor(reason: SlipFailure, message: string) {
    super(message);
    this.name = 'SlipError';
    this.reason = reason;
  }
}

const VERSION = 's1';
const SIGNATURE_BYTES = 32;
const KEY_ID_CHARS = 6;

const keyIds = new WeakMap<SlipKey, string>();

/** A key's public id: the start of its secret's SHA-256, computed once per key object. */
const keyId = (key: SlipKey): string => {
  let id = keyIds.get(key);
  if (id === undefined) {
    id = createHash('sha256').update(key.secret).digest('base64url').slice(0, KEY_ID_CHARS);
    keyIds.set(key, id);
  }
  return id;
};

const sign = (key: SlipKey, signed: string): Buffer =>
  createHmac('sha256', key.secret).update(signed).digest();

type Wire = {
  t: string;
  i: number;
  s: string;
  e: string;
  h?: [number, number];
  p: Record<string, number>;
  d?: string;
  o?: number[];
  r?: 'soft' | 'off';
  x: number;
};

const toWire = (payload: SlipPayload): Wire => ({
  t: payload.tenant,
  i: payload.itemId,
  s: payload.start,
  e: payload.end,
  ...(payload.startTime !== undefined && payload.endTime !== undefined
    ? { h: [payload.startTime, payload.endTime] }
    : {}),
  p: payload.params,
  ...(payload.discountCode ? { d: payload.discountCode } : {}),
  ...(payload.optIn?.length ? { o: payload.optIn } : {}),
  ...(payload.rules ? { r: payload.rules } : {}),
  x: payload.expiresAt,
});

const isInt = (value: unknown): value is number => Number.isSafeInteger(value);

const fromWire = (wire: unknown): SlipPayload | undefined => {
  if (wire === null || typeof wire !== 'object') return undefined;
  const w = wire as Partial<Wire>;
  const ymd = /^\d{8}$/;
  if (typeof w.t !== 'string' || !isInt(w.i) || !isInt(w.x)) return undefined;
  if (typeof w.s !== 'string' || !ymd.test(w.s) || typeof w.e !== 'string' || !ymd.test(w.e))
    return undefined;
  if (w.p === null || typeof w.p !== 'object' || !Object.values(w.p).every(isInt)) return undefined;
  if (w.h !== undefined && !(Array.isArray(w.h) && w.h.length === 2 && w.h.every(isInt))) return undefined;
  if (w.o !== undefined && !(Array.isArray(w.o) && w.o.every(isInt))) return undefined;
  if (w.d !== undefined && typeof w.d !== 'string') return undefined;
  if (w.r !== undefined && w.r !== 'soft' && w.r !== 'off') return undefined;
  return {
    tenant: w.t,
    itemId: w.i,
    start: w.s,
    end: w.e,
    ...(w.h ? { startTime: w.h[0], endTime: w.h[1] } : {}),
    params: { ...w.p },
    ...(w.d ? { discountCode: w.d } : {}),
    ...(w.o ? { optIn: [...w.o] } : {}),
    ...(w.r ? { rules: w.r } : {}),
    expiresAt: w.x,
  };
};

/**
 * Encodes a SLIP as `s1.<key id>.<payload>.<signature>`, all in `[A-Za-z0-9._-]` so it can be pasted
 * into a URL as is: the payload is base64url JSON, the signature HMAC-SHA256 over everything before it.
 */
export function encodeSlip(payload: SlipPayload, key: SlipKey): string {
  const body = Buffer.from(JSON.stringify(toWire(payload))).toString('base64url');
  const signed = `${VERSION}.${keyId(key)}.${body}`;
  return `${signed}.${sign(key, signed).toString('base64url')}`;
}

/**
 * Verifies a SLIP: its version, its key (any of `keys`, for rotation), its HMAC-SHA256 signature in
 * constant time, its tenant and its expiry. Throws `SlipError` with the reason.
 */
export function verifySlip(
  slip: string,
  options: { keys: readonly SlipKey[]; tenant: string; now: number },
): SlipPayload {
  if (typeof slip !== 'string' || !/^[A-Za-z0-9._-]+$/.test(slip)) {
    throw new SlipError('malformed', 'A SLIP is a string of letters, digits, ".", "-" and "_"');
  }
  const parts = slip.split('.');
  if (parts[0] !== VERSION) {
    if (parts.length >= 4 && /^s\d+$/.test(parts[0] ?? '')) {
      throw new SlipError('unsupported_version', `SLIP version ${parts[0]} is not supported`);
    }
    throw new SlipError(parts.length < 4 ? 'truncated' : 'malformed', 'Not a SLIP of this service');
  }
  if (parts.length < 4) throw new SlipError('truncated', 'The SLIP is incomplete');
  if (parts.length > 4) throw new SlipError('malformed', 'The SLIP has extra parts');
  const [version, kid, body, signature] = parts as [string, string, string, string];
  const key = options.keys.find((candidate) => keyId(candidate) === kid);
  if (!key) throw new SlipError('foreign', 'The SLIP was not signed by this service');
  const presented = Buffer.from(signature, 'base64url');
  if (presented.length < SIGNATURE_BYTES)
    throw new SlipError('truncated', 'The SLIP signature is incomplete');
  const expected = sign(key, `${version}.${kid}.${body}`);
  if (
    presented.length !== SIGNATURE_BYTES ||
    presented.toString('base64url') !== signature ||
    !timingSafeEqual(presented, expected)
  ) {
    throw new SlipError('tampered', 'The SLIP signature does not match');
  }
  let payload: SlipPayload | undefined;
  try {
    payload = fromWire(JSON.parse(Buffer.from(body, 'base64url').toString('utf8')));
  } catch {
    payload = undefined;
  }
  if (!payload) throw new SlipError('malformed', 'The SLIP content is not readable');
  if (payload.tenant !== options.tenant)
    throw new SlipError('foreign', 'The SLIP belongs to another business');
  if (payload.expiresAt <= unixSeconds(options.now))
    throw new SlipError('expired', 'These prices have expired; search again');
  return payload;
}
