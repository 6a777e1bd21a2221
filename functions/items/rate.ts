import { toLocalDate } from '#lib/core/dates.ts';
import type { Db } from '#lib/db/client.ts';
import type { StoredItem } from '#lib/db/tenant-repository.ts';
import { type RateItemsOptions, rateItems } from '#lib/domain/catalog.ts';
import { slipPayloadFor } from '#lib/domain/slip-contents.ts';
import type { RatedItem } from '#lib/rating/rate-item.ts';
import { encodeSlip, type SlipKey } from '#lib/slip/codec.ts';
import { presentRated } from './present.ts';
import type { ItemQuery } from './query.ts';

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
    const payload = slipPayloadFor({
      item,
      rated,
      request: options.request,
      config: options.config,
      now: options.now,
    });
    const slip = payload ? encodeSlip(payload, key) : undefined;
    return {
      item,
      rated,
      wire: presentRated(item, rated, { config: options.config, ...(slip ? { slip } : {}) }),
    };
  });
}
