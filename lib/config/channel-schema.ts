import { z } from 'zod';
import { positiveId, text } from './schema-parts.ts';

/** The most channels a tenant file may list. */
export const MAX_CHANNELS = 100;

/**
 * One channel feed to import (an Airbnb, Booking.com or Vrbo calendar of one of the tenant's items): the
 * dates it lists are blocked here by `units` of the item's stock, and released when they leave it.
 */
export const channelSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'lower case letters, digits, - and _'),
  item_id: positiveId,
  url: z
    .string()
    .max(2000)
    .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), 'an http(s) URL'),
  name: text(100).min(1),
  units: z.number().int().min(1).max(10_000).default(1),
  enabled: z.boolean().default(true),
});
