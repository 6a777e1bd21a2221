import type * as z from 'zod';
import type * as zm from 'zod/mini';
import type { ErrorId } from '#lib/http/errors.ts';
import type { RouteRowDeclaration } from '#lib/http/routes.ts';

/** What an operation needs beyond its examples before it can succeed, which its description says. */
export type Need =
  | 'slip'
  | 'cart'
  | 'booking'
  | 'booking-token'
  | 'guest-token'
  | 'cancellation-policy'
  | 'cancel-quote'
  | 'change-dates'
  | 'change-quote'
  | 'payment'
  | 'payment-authorised'
  | 'customer'
  | 'feed-token'
  | 'channel'
  | 'webhook';

/** Media types of an answer that is not JSON, each with its schema. */
export type RawContent = Record<string, { schema: Record<string, unknown> }>;

/**
 * A route's documentation: what it does in a line, the schema its input is read with, what it answers
 * (the JSON body's schema, or the media types of a page, a file or a feed), the error ids its rules and
 * writes can refuse with beyond the common ones, and what it needs first.
 */
export interface RouteDocs {
  summary: string;
  /** The schema the input is read with (every API route has one; a page or a file reads none). */
  request?: zm.ZodMiniType;
  response?: z.ZodType;
  raw?: RawContent;
  errors?: ErrorId[];
  needs?: Need[];
}

const registry = new Map<string, RouteDocs>();

/**
 * Documents a route where it is declared. Each call stands in a statement labelled `DOCS`, which the functions'
 * bundles drop (esbuild's `dropLabels`): the schemas of answers and the words of the document never weigh on
 * a cold start, while the OpenAPI generator and the tests, which import the declarations, read them all.
 */
export function describeRoute(route: Pick<RouteRowDeclaration, 'name'>, docs: RouteDocs): void {
  if (registry.has(route.name)) throw new Error(`Route ${route.name} is documented twice`);
  registry.set(route.name, docs);
}

/** A route's documentation; a route declared without any is an error of the declaration. */
export function docsOf(name: string): RouteDocs {
  const docs = registry.get(name);
  if (!docs) throw new Error(`Route ${name} has no documentation`);
  return docs;
}
