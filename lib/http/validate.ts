import * as z from 'zod/mini';
import type { $ZodIssue } from 'zod/v4/core';
import { validationError } from './errors.ts';
import { namesAsSent, reportIgnored } from './ignored.ts';

/** Parameters any endpoint tolerates and ignores: jQuery's cache buster and the session id widgets attach. */
const IGNORED_PARAMETERS = ['_', 'session_id'] as const;

const describe = (issue: $ZodIssue): string => {
  switch (issue.code) {
    case 'unrecognized_keys':
      return 'unknown parameter';
    case 'invalid_type':
      return issue.input === undefined ? 'required' : `expected ${issue.expected}`;
    default:
      return issue.message;
  }
};

const fieldName = (path: readonly PropertyKey[]): string =>
  path.reduce<string>((out, key, index) => (index === 0 ? String(key) : `${out}[${String(key)}]`), '');

/** The parameter names an object schema knows, or undefined for a schema of another shape. */
const knownNames = (schema: z.ZodMiniType): Set<string> | undefined => {
  const shape = (schema._zod.def as { shape?: Record<string, unknown> }).shape;
  return shape ? new Set(Object.keys(shape)) : undefined;
};

/**
 * Validates request input against a zod schema; every problem becomes one entry of a 400
 * `validation_error`'s data, keyed by the parameter as the client wrote it (`param[adults]`). Parameters
 * the schema does not know are ignored, as the API 3.0 service does, and reported in `request.ignored`.
 */
export function parseInput<T extends z.ZodMiniType>(schema: T, input: Record<string, unknown>): z.infer<T> {
  const known = knownNames(schema);
  const cleaned: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(input)) {
    if ((IGNORED_PARAMETERS as readonly string[]).includes(name)) continue;
    if (known && !known.has(name)) reportIgnored(input, namesAsSent(name, value));
    else cleaned[name] = value;
  }
  const result = schema.safeParse(cleaned);
  if (result.success) return result.data;
  const fields: Record<string, string> = {};
  for (const issue of result.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) fields[fieldName([...issue.path, key])] = describe(issue);
    } else {
      fields[fieldName(issue.path) || 'input'] = describe(issue);
    }
  }
  throw validationError(fields);
}

/** The schema of an endpoint that takes no parameters. */
export const noParameters = z.strictObject({});

/** A boolean parameter as clients send it: 1/0 or true/false in any letter case, read as a boolean. */
export const booleanParam = z.pipe(
  z.string().check(z.regex(/^(1|0|true|false)$/i, '1, 0, true or false')),
  z.transform((value: string) => value === '1' || value.toLowerCase() === 'true'),
);
