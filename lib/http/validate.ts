import * as z from 'zod/mini';
import type { $ZodIssue } from 'zod/v4/core';
import { validationError } from './errors.ts';

/** Parameters any endpoint tolerates and ignores: jQuery's cache buster and the session id widgets attach. */
export const IGNORED_PARAMETERS = ['_', 'session_id'] as const;

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

/**
 * Validates request input against a zod schema; every problem becomes one entry of a 400
 * `validation_error`'s data, keyed by the parameter as the client wrote it (`param[adults]`).
 */
export function parseInput<T extends z.ZodMiniType>(schema: T, input: Record<string, unknown>): z.infer<T> {
  const cleaned = Object.fromEntries(
    Object.entries(input).filter(([name]) => !(IGNORED_PARAMETERS as readonly string[]).includes(name)),
  );
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
