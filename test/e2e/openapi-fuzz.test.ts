import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { basic } from '#test/support/events.ts';
import { setUpService } from '#test/support/local-runner.ts';

// Requests made from the OpenAPI document alone, as an API testing tool would: each operation with its
// examples, with every parameter oversized, and with every parameter of the wrong kind, as a customer
// and as staff. None may answer 5xx; every answer is checked against the document by the fetch wrapper
// of the test setup (documented status, body matching its schema, error ids the route may answer).

interface Parameter {
  name?: string;
  in?: string;
  example?: unknown;
  $ref?: string;
}
interface Operation {
  parameters: Parameter[];
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> };
}

const document = JSON.parse(readFileSync('functions/meta/openapi.json', 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
};
const admin = { key: `ck_${randomUUID().replaceAll('-', '')}`, secret: randomUUID() };
const service = setUpService('fuzz', {
  ADMIN_API_KEY: admin.key,
  ADMIN_API_SECRET: admin.secret,
  TRUSTED_PROXIES: '127.0.0.1',
});
let address = 0;

type Variant = 'examples' | 'oversized' | 'wrong kind';

/** A value of a parameter for a variant: its example, a string past every limit but the URL's, or a nested object. */
const valueFor = (example: unknown, variant: Variant): unknown => {
  if (variant === 'oversized') return 'x'.repeat(600);
  if (variant === 'wrong kind') return { nested: ['a', { deeper: 1 }] };
  return example ?? '1';
};

const encode = (name: string, value: unknown): string[] =>
  value !== null && typeof value === 'object'
    ? Object.entries(value).flatMap(([key, inner]) => encode(`${name}[${key}]`, inner))
    : [`${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`];

/** One request built from an operation of the document. */
async function call(path: string, method: string, operation: Operation, variant: Variant, staff: boolean) {
  address += 1;
  let url = path;
  const query: string[] = [];
  const body: Record<string, unknown> = {};
  for (const parameter of operation.parameters) {
    if (!parameter.name) continue;
    const value = valueFor(parameter.example, variant);
    if (parameter.in === 'path') {
      url = url.replace(
        `{${parameter.name}}`,
        encodeURIComponent(String(variant === 'examples' ? value : 'x'.repeat(80))),
      );
    } else if (parameter.in === 'query') {
      query.push(...encode(parameter.name.replace(/\[\]$/, ''), value));
    }
  }
  const properties = operation.requestBody?.content['application/json']?.schema.properties ?? {};
  for (const name of Object.keys(properties)) body[name] = valueFor(undefined, variant);
  const response = await fetch(`${service.base}${url}${query.length ? `?${query.join('&')}` : ''}`, {
    method: method.toUpperCase(),
    headers: {
      'x-forwarded-for': `203.0.113.${(address % 250) + 1}`,
      ...(staff ? { authorization: basic(admin.key, admin.secret) } : {}),
      ...(method === 'post' ? { 'content-type': 'application/json' } : {}),
    },
    ...(method === 'post' ? { body: JSON.stringify(body) } : {}),
  });
  await response.arrayBuffer();
  return response.status;
}

describe('requests generated from the OpenAPI document', () => {
  const operations = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
  );

  it.each(['examples', 'oversized', 'wrong kind'] as const)(
    'never answer 5xx with %s',
    async (variant) => {
      const failures: string[] = [];
      for (const { path, method, operation } of operations) {
        for (const staff of [false, true]) {
          const status = await call(path, method, operation, variant, staff);
          if (status >= 500)
            failures.push(`${method.toUpperCase()} ${path} (${staff ? 'staff' : 'customer'}): ${status}`);
        }
      }
      expect(failures).toEqual([]);
    },
    120_000,
  );
});
