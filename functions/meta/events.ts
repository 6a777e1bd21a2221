import * as z from 'zod/mini';
import { rateEvents } from '#lib/catalog/index.ts';
import { listItems } from '#lib/config/index.ts';
import { validationError } from '#lib/http/errors.ts';
import type { RouteHandler } from '#lib/http/group-handler.ts';
import { noParameters, parseInput } from '#lib/http/validate.ts';
import { todayIn } from '#lib/kernel/dates.ts';
import { DomainError } from '#lib/kernel/errors.ts';
import type { Db } from '#lib/kernel/storage/database.ts';

const LIMITS = { default: 100, max: 250 } as const;
const text = z.optional(z.string().check(z.maxLength(12)));
export const eventListSchema = z.strictObject({ limit: text, page: text });

const whole = (value: string | undefined, fallback: number, max: number): number | undefined => {
  if (value === undefined) return fallback;
  return /^\d{1,10}$/.test(value) && Number(value) >= 1 && Number(value) <= max ? Number(value) : undefined;
};

/** GET event (staff): the tenant's rate events keyed by id, paged with `limit` and `page`. */
export const createListEvents =
  (db: Db): RouteHandler =>
  async ({ input, config, now }) => {
    const query = parseInput(eventListSchema, input);
    const limit = whole(query.limit, LIMITS.default, LIMITS.max);
    const page = whole(query.page, 1, 2_147_483_647);
    if (!limit || !page) {
      throw validationError({
        ...(!limit ? { limit: `a whole number from 1 to ${LIMITS.max}` } : {}),
        ...(!page ? { page: 'a positive whole number' } : {}),
      });
    }
    const events = rateEvents(config, await listItems(db), todayIn(config.company.timezone, now));
    const shown = events.slice((page - 1) * limit, page * limit);
    return {
      body: { events: Object.fromEntries(shown.map((event) => [String(event.event_id), event])) },
      request: {
        records: shown.length,
        limit,
        page,
        pages: Math.max(1, Math.ceil(events.length / limit)),
        total_records: events.length,
      },
    };
  };

/** GET event/{id} (staff): one rate event under `event`. */
export const createGetEvent =
  (db: Db): RouteHandler =>
  async ({ input, params, config, now }) => {
    parseInput(noParameters, input);
    const raw = params.event_id ?? '';
    const events = rateEvents(config, await listItems(db), todayIn(config.company.timezone, now));
    const event = /^\d{1,6}$/.test(raw) ? events.find((entry) => entry.event_id === Number(raw)) : undefined;
    if (!event)
      throw new DomainError('not_found', `Event ${raw.slice(0, 32)} not found`, {
        event_id: raw.slice(0, 32),
      });
    return { body: { event }, request: { id: String(event.event_id), records: 1 } };
  };
