import * as z from 'zod/mini';
import { listNotes } from '#lib/bookings/index.ts';
import { validationError } from '#lib/http/errors.ts';
import type { RouteHandler } from '#lib/http/group-handler.ts';
import { parseInput } from '#lib/http/validate.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { unixSeconds } from '#lib/kernel/time.ts';
import { readPaging, readTimeFilter } from './list.ts';

const text = z.optional(z.string().check(z.maxLength(40)));
export const notesSchema = z.strictObject({ date: text, limit: text, page: text });

/** How far back `booking/notes` reads when no date is given. */
const DEFAULT_DAYS = 30;

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
    const { limit, page } = readPaging(query, problems);
    const nowSeconds = unixSeconds(now);
    const range =
      query.date === undefined
        ? { from: nowSeconds - DEFAULT_DAYS * 86_400, to: nowSeconds + 1 }
        : readTimeFilter(query.date, config, now);
    if (!range) problems.date = 'a date (YYYYMMDD) or Unix time, optionally after < or >';
    if (Object.keys(problems).length || !range) throw validationError(problems);

    const { rows: notes, total } = await listNotes(deps.db, { range, caller, limit, page, now });
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
