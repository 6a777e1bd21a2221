import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '#functions/openapi.ts';
import { errorIdsOf, examplesFrom } from '#functions/openapi-parts.ts';
import { docsOf } from '#functions/route-docs.ts';
import { ROUTES as TABLE } from '#functions/routes.ts';
import { readTenantFile } from '#infra/local/settings.ts';

const served = JSON.parse(readFileSync('functions/meta/openapi.json', 'utf8')) as {
  openapi: string;
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
};

/** The API's routes: the document leaves out the booking page and the widget's files. */
const ROUTES = TABLE.filter((route) => (route.kind ?? 'api') === 'api');

describe('the OpenAPI document', () => {
  it('is the one the generator makes from the route table and the schemas (npm run openapi)', () => {
    expect(served).toEqual(buildOpenApiDocument(examplesFrom(readTenantFile('infra/tenants/demo.json'))));
  });

  it('has every route of the route table, each with its own operation id', () => {
    expect(served.openapi).toBe('3.1.0');
    for (const route of ROUTES) {
      const operation = served.paths[`/${route.path}`]?.[route.method.toLowerCase()] as
        | { summary?: string }
        | undefined;
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      // A summary of its own, not the path said again.
      expect(operation?.summary).not.toBe(`${route.method} ${route.path}`);
    }
    const ids = Object.values(served.paths).flatMap((item) =>
      Object.values(item).map((op) => op.operationId),
    );
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(ROUTES.length);
  });

  it('describes each route with the request schema it validates with, and every error it may answer', () => {
    for (const route of ROUTES) {
      expect(docsOf(route.name).request, route.name).toBeDefined();
      const responses = served.paths[`/${route.path}`]?.[route.method.toLowerCase()]?.responses ?? {};
      expect(Object.keys(responses)).toContain('200');
      expect(Object.keys(responses)).toContain('401');
      for (const id of errorIdsOf(route)) expect(JSON.stringify(responses)).toContain(`"${id}"`);
    }
  });

  it('describes bracket parameters as the form encoding they are', () => {
    const session = served.paths['/booking/session']?.post as unknown as {
      requestBody: { content: Record<string, { encoding: Record<string, { style: string }> }> };
    };
    const form = session.requestBody.content['application/x-www-form-urlencoded'];
    expect(form?.encoding['slip[]']?.style).toBe('form');
    expect(form?.encoding.alter?.style).toBe('deepObject');
    const items = served.paths['/item']?.get as unknown as { parameters: { name: string; style?: string }[] };
    expect(items.parameters.find((parameter) => parameter.name === 'param')?.style).toBe('deepObject');
  });
});
