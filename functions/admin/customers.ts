import * as z from 'zod/mini';
import { findCustomer } from '#lib/bookings/index.ts';
import type { RouteHandler } from '#lib/http/group-handler.ts';
import { noParameters, parseInput } from '#lib/http/validate.ts';
import { DomainError } from '#lib/kernel/errors.ts';
import type { Db } from '#lib/kernel/storage/database.ts';
import { presentCustomer } from '../bookings/present.ts';

export const customerQuery = z.strictObject({ customer_email: z.string().check(z.maxLength(254)) });

/** GET customer?customer_email=: the customer with that email (exact, any case), with bookings. */
export const createFindCustomer =
  (deps: { db: Db }): RouteHandler =>
  async ({ input, caller }) => {
    const query = parseInput(customerQuery, input);
    const found = await findCustomer(deps.db, { caller, email: query.customer_email.trim() });
    return {
      body: {
        customers: found ? { [String(found.customer.customer_id)]: presentCustomer(found) } : {},
      },
      request: { records: found ? 1 : 0 },
    };
  };

/** GET customer/{id}: one customer by numeric id or code (C-000123), with bookings. */
export const createGetCustomer =
  (deps: { db: Db }): RouteHandler =>
  async ({ input, params, caller }) => {
    parseInput(noParameters, input);
    const raw = params.customer_id ?? '';
    const match = /^(?:C-)?(\d{1,10})$/i.exec(raw);
    const found = await findCustomer(deps.db, { caller, customerId: match ? Number(match[1]) : undefined });
    if (!found) {
      throw new DomainError('not_found', `Customer ${raw.slice(0, 64)} not found`, {
        customer_id: raw.slice(0, 64),
      });
    }
    return {
      body: { customer: presentCustomer(found) },
      request: { id: found.customer.code, records: 1 },
    };
  };
