import { toLocalDate } from '#lib/core/dates.ts';
import { unixSeconds } from '#lib/core/time.ts';
import type { Db } from '#lib/db/client.ts';
import type { StoredConfig, StoredItem } from '#lib/db/tenant-repository.ts';
import { type RateItemsOptions, rateItems } from '#lib/domain/catalog.ts';
import type { RatedItem, RateRequest } from '#lib/rating/rate-item.ts';
import { encodeSlip, type SlipKey } from '#lib/slip/codec.ts';
import { presentRated } from './present.ts';
import type { ItemQuery } from './query.ts';

/** The SLIP of a bookable rated item: what the session needs to hold and book exactly this line. */
function slipFor(options: {
  item: StoredItem;
  rated: RatedItem;
  request: RateRequest;
  config: StoredConfig;
  key: SlipKey;
  now: number;
}): string | undefined {
  const { rated, request } = options;
  if (rated.status !== 'AVAILABLE' || !rated.span) return undefined;
  return encodeSlip(
    {
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
      expiresAt: unixSeconds(options.now) + options.config.settings.slip_minutes * 60,
    },
    options.key,
  );
}

/** The `query` object and `request` echo of a rated response (reference §2.1). */
export function ratedEcho(rated: NonNullable<ItemQuery['rated']>) {
  const end = rated.end ?? rated.start;
  return {
    query: {
      start_date: rated.start,
      end_date: end,
      discount_code: rated.discountCode ?? false,
      giftcert_code: rated.giftcertCode ?? false,
      exclude: false,
      param: rated.requestedParams,
      local_start_date: toLocalDate(rated.start),
      local_end_date: toLocalDate(end),
    },
    request: { start_date: rated.start, end_date: end, param: rated.requestedParams },
  };
}

/** Rates items and presents them for the wire, with a SLIP on each bookable one. */
export async function rateAndPresent(
  db: Db,
  options: RateItemsOptions & { keys: readonly SlipKey[] },
): Promise<{ item: StoredItem; rated: RatedItem; wire: Record<string, unknown> }[]> {
  const [key] = options.keys;
  if (!key) throw new Error('No SLIP signing key configured');
  const results = await rateItems(db, options);
  return results.map(({ item, rated }) => {
    const slip = slipFor({
      item,
      rated,
      request: options.request,
      config: options.config,
      key,
      now: options.now,
    });
    return {
      item,
      rated,
      wire: presentRated(item, rated, { config: options.config, ...(slip ? { slip } : {}) }),
    };
  });
}
