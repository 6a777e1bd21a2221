import * as z from 'zod/mini';
import { unixSeconds } from '#lib/core/time.ts';
import { countInPartitions, pageInPartitions, type StoredNote } from '#lib/db/booking-repository.ts';
import type { Db } from '#lib/db/client.ts';
import { firstIdAt } from '#lib/db/id-counter-repository.ts';
import { monthsBetween, noteMonthPartition } from '#lib/db/keys.ts';
import type { RouteHandler } from '#lib/http/api.ts';
import { validationError } from '#lib/http/errors.ts';
import { parseInput } from '#lib/http/validate.ts';
import { LIST_LIMITS, readTimeFilter } from './list.ts';

const text = z.optional(z.string().check(z.maxLength(40)));
const notesSchema = z.strictObject({ date: text, limit: text, page: text });

/** How far back `booking/notes` reads when no date is given. */
const DEFAULT_DAYS = 30;

const pageNumber = (value: string | undefined, max: number): number | undefined =>
  value !== undefined && /^\d{1,10}$/.test(value) && Number(value) >= 1 && Number(value) <= max
    ? Number(value)
    : undefined;

/**
 * GET booking/notes (staff): notes across bookings, newest first, from the notes-by-month index; `date`
 * takes the booking lists' forms (a day, Unix seconds, `<` before, `>` after; default the last 30
 * days); paged with `limit` and `page`. A partner's credential sees only the notes of its bookings.
 */
export const createListNotes =
  (deps: { db: Db }): RouteHandler =>
  async ({ input, config, caller, now }) => {
    const query = parseInput(notesSchema, input);
    const problems: Record<string, string> = {};
    const limit = query.limit === undefined ? LIST_LIMITS.default : pageNumber(query.limit, LIST_LIMITS.max);
    if (limit === undefined) problems.limit = `a whole number from 1 to ${LIST_LIMITS.max}`;
    const page = query.page === undefined ? 1 : pageNumber(query.page, 2_147_483_647);
    if (page === undefined) problems.page = 'a positive whole number';
    const nowSeconds = unixSeconds(now);
    const range =
      query.date === undefined
        ? { from: nowSeconds - DEFAULT_DAYS * 86_400, to: nowSeconds + 1 }
        : readTimeFilter(query.date, config, now);
    if (!range) problems.date = 'a date (YYYYMMDD) or Unix time, optionally after < or >';
    if (Object.keys(problems).length || !range || !limit || !page) throw validationError(problems);

    const first = await firstIdAt(deps.db, 'booking');
    const from = Math.max(range.from, (first ?? nowSeconds) - 86_400);
    const to = Math.min(range.to, nowSeconds + 86_400);
    const partitions = from < to ? monthsBetween(from, to).map(noteMonthPartition) : [];
    const partner = caller.kind === 'staff' && caller.partnerOnly ? caller.partnerId : undefined;
    const filter = {
      expression: `#at >= :from AND #at < :to${partner !== undefined ? ' AND partner_id = :partner' : ''}`,
      names: { '#at': 'at' },
      values: { ':from': from, ':to': to, ...(partner !== undefined ? { ':partner': partner } : {}) },
    };
    const [total, notes] = await Promise.all([
      countInPartitions(deps.db, { index: 'gsi3', partitions, filter }),
      pageInPartitions<StoredNote & { booking_code: string }>(deps.db, {
        index: 'gsi3',
        partitions,
        filter,
        skip: (page - 1) * limit,
        take: limit,
      }),
    ]);
    return {
      body: {
        notes: notes.map((note) => ({
          note_id: note.note_id,
          account_id: note.account_id,
          date: note.date,
          body: note.body,
          private: note.private,
          booking_id: note.booking_code,
        })),
      },
      request: {
        id: 'notes',
        records: notes.length,
        limit,
        page,
        pages: Math.max(1, Math.ceil(total / limit)),
        total_records: total,
      },
    };
  };
