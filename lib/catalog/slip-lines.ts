import type { StoredConfig, StoredItem } from '../config/index.ts';
import { unixSeconds } from '../kernel/time.ts';
import type { SlipPayload } from '../slip/index.ts';
import type { RatedItem, RateRequest } from './rate-item.ts';

/** When a SLIP made at `now` (ms) stops being valid, in Unix seconds. */
export const slipExpiresAt = (config: StoredConfig, now: number): number =>
  unixSeconds(now) + config.settings.slip_minutes * 60;

/** What a SLIP says but when it stops being valid: one line, whenever it is signed. */
export type SlipLine = Omit<SlipPayload, 'expiresAt'>;

/**
 * What the SLIP of a rated item says: everything the session needs to hold and book exactly this line,
 * or nothing when the item cannot be booked. Its expiry (`slipExpiresAt`) counts from the request that
 * signs it. `requestOf` reads it back.
 */
export function slipLineFor(options: {
  item: StoredItem;
  rated: RatedItem;
  request: RateRequest;
  config: StoredConfig;
}): SlipLine | undefined {
  const { rated, request } = options;
  if (rated.status !== 'AVAILABLE' || !rated.span) return undefined;
  return {
    tenant: options.config.tenant,
    itemId: options.item.item_id,
    start: rated.span.start,
    end: rated.span.end,
    ...(options.item.unit === 'H' && request.startTime !== undefined && request.endTime !== undefined
      ? { startTime: request.startTime, endTime: request.endTime }
      : {}),
    params: rated.quantities,
    ...(rated.discountCode ? { discountCode: rated.discountCode } : {}),
    ...(request.optIn?.length ? { optIn: request.optIn } : {}),
    ...(request.rules !== 'on' ? { rules: request.rules } : {}),
  };
}

/** The rating request a SLIP stands for: the reverse of `slipLineFor`. */
export const requestOf = (payload: SlipPayload): RateRequest => ({
  start: payload.start,
  end: payload.end,
  ...(payload.startTime !== undefined && payload.endTime !== undefined
    ? { startTime: payload.startTime, endTime: payload.endTime }
    : {}),
  params: payload.params,
  rules: payload.rules ?? 'on',
  ...(payload.discountCode ? { discountCode: payload.discountCode } : {}),
  ...(payload.optIn ? { optIn: payload.optIn } : {}),
});
