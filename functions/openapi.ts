import { z } from 'zod';
import { ERRORS, type ErrorId } from '#lib/http/errors.ts';
import { API_PREFIX, type Route } from '#lib/http/routes.ts';
import { DOCS_ASSETS } from './meta/docs.ts';
import {
  commonHeaders,
  errorIdsOf,
  HEADERS,
  NOT_IN_BODY_EXAMPLES,
  needWords,
  SECURITY,
  TAGS,
} from './openapi-parts.ts';
import { authErrorSchema, errorEnvelopeSchema, SHARED_SCHEMAS } from './responses.ts';
import { docsOf } from './route-docs.ts';
import { ROUTES as TABLE } from './routes.ts';

// The OpenAPI 3.1 description of the API, generated from the route table and each route's documentation,
// the very zod schemas that validate every request and response: `npm run openapi` writes it to functions/meta/openapi.json, which
// the service serves, and a test fails when the file and this generator disagree.

type Json = Record<string, unknown>;

/** The API's routes: the document describes them, not the booking page or the widget's files. */
const ROUTES = TABLE.filter((route) => (route.kind ?? 'api') === 'api');

const schemaName = (routeName: string): string =>
  routeName
    .split(/[.\-_]/)
    .map((part) => `${part.charAt(0).toUpperCase()}${part.slice(1)}`)
    .join('');

const operationId = (route: Route): string => {
  const twin = ROUTES.some((other) => other.name === route.name && other.method !== route.method);
  const base = schemaName(route.name);
  return `${base.charAt(0).toLowerCase()}${base.slice(1)}${twin ? route.method.charAt(0) + route.method.slice(1).toLowerCase() : ''}`;
};

/** A zod schema as JSON Schema 2020-12, without the `$schema` key OpenAPI does not want inside. */
const jsonSchemaOf = (schema: z.core.$ZodType, io: 'input' | 'output'): Json => {
  const { $schema: _schema, ...rest } = z.toJSONSchema(schema, {
    io,
    target: 'draft-2020-12',
    unrepresentable: 'any',
  }) as Json;
  return rest;
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** A request parameter as clients send it: a bracket object (`param[adults]`) or a list (`slip[]`). */
function parameterShape(name: string, schema: Json): { name: string; schema: Json; style?: Json } {
  const options = (schema.anyOf as Json[] | undefined) ?? [schema];
  const array = options.find((option) => option.type === 'array');
  if (array) {
    return {
      name: `${name}[]`,
      schema: { type: 'array', items: array.items ?? { type: 'string' } },
      style: { style: 'form', explode: true },
    };
  }
  const object = options.find((option) => option.type === 'object');
  if (object && options.length === 1) {
    return { name, schema: object, style: { style: 'deepObject', explode: true } };
  }
  return { name, schema };
}

/**
 * The routes of a session: they take its id as a parameter too (widgets on other sites have no cookie);
 * `booking/form` words its cancellation terms at the cart's dates.
 */
const takesSessionId = (route: Route) =>
  route.group === 'session' || route.name === 'booking.create' || route.name === 'booking.form';

const parametersOf = (route: Route): { properties: Json; required: string[] } => {
  const { request } = docsOf(route.name);
  if (!request) throw new Error(`No request schema for route ${route.name}`);
  const schema = jsonSchemaOf(request, 'input');
  return {
    properties: {
      ...((schema.properties as Json | undefined) ?? {}),
      ...(takesSessionId(route)
        ? { session_id: { type: 'string', maxLength: 64, description: 'The session (cart) id.' } }
        : {}),
    },
    required: (schema.required as string[] | undefined) ?? [],
  };
};

/** The error envelope of one status of a route, its `error.id` limited to what the route may answer. */
const errorResponse = (status: number, ids: ErrorId[]) => ({
  description: ids.map((id) => `\`${id}\`: ${ERRORS[id].title}`).join('; '),
  headers: {
    ...commonHeaders,
    // hold_limit carries it when the client waits out its re-hold cooldown.
    ...(status === 429 || status === 503 || ids.includes('hold_limit')
      ? { 'Retry-After': { $ref: '#/components/headers/Retry-After' } }
      : {}),
  },
  content: {
    'application/json': {
      schema: {
        allOf: [
          ref('ErrorEnvelope'),
          {
            type: 'object',
            properties: {
              request: {
                type: 'object',
                properties: { error: { type: 'object', properties: { id: { enum: ids } } } },
              },
            },
          },
        ],
      },
    },
  },
});

function operationOf(route: Route, examples: Record<string, unknown>): Json {
  const example = (name: string) => (examples[name] !== undefined ? { example: examples[name] } : {});
  const { properties, required } = parametersOf(route);
  // The reference page's files are a fixed set: named, so a generated contract test asks for one that is.
  const assets = Object.keys(DOCS_ASSETS);
  const pathParams = [...route.path.matchAll(/\{([^}]+)\}/g)].map((match) =>
    match[1] === 'asset'
      ? {
          name: 'asset',
          in: 'path',
          required: true,
          schema: { type: 'string', enum: assets },
          example: assets.at(-1),
        }
      : {
          name: match[1],
          in: 'path',
          required: true,
          schema: { type: 'string', maxLength: 64 },
          ...example(match[1] ?? ''),
        },
  );
  const headerParams = [
    { $ref: '#/components/parameters/XOnBehalf' },
    ...(route.name === 'booking.create' ? [{ $ref: '#/components/parameters/IdempotencyKey' }] : []),
    ...(takesSessionId(route) ? [{ $ref: '#/components/parameters/SessionId' }] : []),
  ];
  const shaped = Object.entries(properties).map(([name, schema]) => ({
    ...parameterShape(name, schema as Json),
    required: required.includes(name),
  }));
  const queryParams = shaped
    .filter((entry) => !(route.method === 'POST' && entry.name !== 'token'))
    .map((entry) => ({
      name: entry.name,
      in: 'query',
      required: entry.required,
      schema: entry.schema,
      ...(entry.style ?? {}),
      ...example(entry.name),
    }));
  // The body's example: every parameter of it that has one, so the example runs as it stands.
  const bodyExample = Object.fromEntries(
    shaped
      .filter((entry) => examples[entry.name] !== undefined && !NOT_IN_BODY_EXAMPLES.has(entry.name))
      .map((entry) => [entry.name, examples[entry.name]]),
  );
  const withExample = Object.keys(bodyExample).length ? { example: bodyExample } : {};
  const body =
    route.method === 'POST'
      ? {
          required: required.length > 0,
          content: {
            'application/x-www-form-urlencoded': {
              schema: {
                type: 'object',
                properties: Object.fromEntries(shaped.map((entry) => [entry.name, entry.schema])),
                ...(required.length ? { required } : {}),
              },
              encoding: Object.fromEntries(
                shaped.filter((entry) => entry.style).map((entry) => [entry.name, entry.style]),
              ),
              ...withExample,
            },
            'application/json': {
              schema: {
                type: 'object',
                properties: properties,
                ...(required.length ? { required } : {}),
              },
              ...withExample,
            },
          },
        }
      : undefined;
  const ids = errorIdsOf(route);
  const statuses = [...new Set(ids.map((id) => ERRORS[id].status))].sort((a, b) => a - b);
  const docs = docsOf(route.name);
  const needs = docs.needs ?? [];
  return {
    operationId: operationId(route),
    tags: [route.resource],
    summary: docs.summary,
    // What it takes beyond the examples, in words and as a list a contract test can supply.
    ...(needs.length
      ? { description: needs.map((need) => needWords(need, route)).join(' '), 'x-needs': needs }
      : {}),
    security: SECURITY[route.access],
    parameters: [...pathParams, ...headerParams, ...queryParams],
    ...(body ? { requestBody: body } : {}),
    responses: {
      '200': {
        description: 'OK: the envelope with the resource',
        headers: commonHeaders,
        content: docs.raw ?? { 'application/json': { schema: ref(schemaName(route.name)) } },
      },
      '401': { $ref: '#/components/responses/Unauthorized' },
      '431': { $ref: '#/components/responses/TooLarge' },
      ...Object.fromEntries(
        statuses.map((status) => [
          String(status),
          errorResponse(
            status,
            ids.filter((id) => ERRORS[id].status === status),
          ),
        ]),
      ),
    },
  };
}

/** The OpenAPI 3.1 document of the API, with parameter examples from a tenant (the demo's). */
export function buildOpenApiDocument(examples: Record<string, unknown> = {}): Json {
  const paths: Record<string, Json> = {};
  for (const route of ROUTES) {
    const path = `/${route.path}`;
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operationOf(route, examples) };
  }
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(SHARED_SCHEMAS)) registry.add(schema, { id });
  registry.add(errorEnvelopeSchema, { id: 'ErrorEnvelope' });
  registry.add(authErrorSchema, { id: 'AuthError' });
  for (const name of new Set(ROUTES.map((route) => route.name))) {
    const { response } = docsOf(name);
    if (response) registry.add(response, { id: schemaName(name) });
  }
  // One JSON Schema per registered schema, each shared part written once and referenced.
  const { schemas } = z.toJSONSchema(registry, {
    io: 'output',
    target: 'draft-2020-12',
    unrepresentable: 'any',
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, Json> };
  const componentSchemas = Object.fromEntries(
    Object.entries(schemas).map(([id, { $schema: _schema, $id: _ref, id: _id, ...schema }]) => [id, schema]),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'Booking API 3.0',
      version: '3.0',
      description:
        'Items rated for dates with an opaque SLIP, a session that acts as a cart and holds stock, bookings and their management. Every response is the envelope (`version`, `account_id`, `host_id`, `name`, `locale`, `request`, `query`) with the resource beside it; errors keep the envelope with `request.status` ERROR and `request.error {id, title, details, data}`, except a refused credential (401).',
    },
    servers: [{ url: API_PREFIX, description: 'This service' }],
    tags: [...new Set(ROUTES.map((route) => route.resource))]
      .sort()
      .map((name) => ({ name, description: TAGS[name] ?? name })),
    paths,
    components: {
      schemas: componentSchemas,
      securitySchemes: {
        basicAuth: {
          type: 'http',
          scheme: 'basic',
          description: 'API key as user name, secret as password.',
        },
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'A token issued by `npm run credentials -- token`.',
        },
        accessToken: {
          type: 'apiKey',
          in: 'query',
          name: 'access_token',
          description: 'The bearer token as a parameter (OAuth style).',
        },
        bookingToken: {
          type: 'apiKey',
          in: 'query',
          name: 'token',
          description: "The booking's own token, for its invoice.",
        },
        feedToken: {
          type: 'apiKey',
          in: 'query',
          name: 'token',
          description:
            'A calendar feed token from `npm run channels -- token`; a wrong or missing one answers 404, as an unknown item does.',
        },
      },
      parameters: {
        XOnBehalf: {
          name: 'X-On-Behalf',
          in: 'header',
          required: false,
          description:
            'Act as another staff account (credentials allowed to), or `off` to call as a customer.',
          schema: { type: 'string', maxLength: 20 },
        },
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'Replays the first result of the same request for 24 hours; a different request with the key is 422, one still running 409.',
          schema: { type: 'string', maxLength: 255 },
        },
        SessionId: {
          name: 'session_id',
          in: 'cookie',
          required: false,
          description:
            'The session (cart), set by the service; widgets on other sites send it as the `session_id` parameter instead.',
          schema: { type: 'string', maxLength: 64 },
        },
      },
      headers: HEADERS,
      responses: {
        TooLarge: {
          description:
            'The request line or headers are too large for the server (a query string past about 16 KB); no envelope.',
        },
        Unauthorized: {
          description: 'Missing or refused credentials (no envelope).',
          headers: {
            'WWW-Authenticate': { schema: { type: 'string' } },
            'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
          },
          content: { 'application/json': { schema: ref('AuthError') } },
        },
      },
    },
  };
}
