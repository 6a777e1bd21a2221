import { describe, expect, it } from 'vitest';
import { type ByRoute, matchRoute, ROUTES, type RouteName } from '#functions/routes.ts';
import { resolveGroup } from '#infra/local/gateway.ts';
import { fullPath } from '#lib/http/routes.ts';

describe('the route table', () => {
  it.each([
    ['GET', 'item'],
    ['GET', 'item/{item_id}'],
    ['GET', 'item/{item_id}/cal'],
    ['GET', 'item/cal'],
    ['POST', 'booking/session'],
    ['GET', 'booking/session'],
    ['POST', 'booking/session/clear'],
    ['POST', 'booking/session/end'],
    ['GET', 'booking/form'],
    ['POST', 'booking/create'],
    ['GET', 'booking/{booking_id}'],
    ['GET', 'booking/{booking_id}/invoice'],
    ['POST', 'booking/{booking_id}/checkin'],
    ['POST', 'booking/{booking_id}/checkout'],
    ['POST', 'booking/{booking_id}/update'],
    ['POST', 'booking/{booking_id}/bookmark'],
    ['POST', 'booking/{booking_id}/note'],
    ['GET', 'company'],
    ['GET', 'account'],
    ['GET', 'ping'],
    ['GET', 'booking'],
    ['GET', 'booking/index'],
    ['GET', 'customer'],
    ['GET', 'customer/{customer_id}'],
    ['GET', 'category'],
  ])('holds %s %s', (method, path) => {
    expect(ROUTES.some((route) => route.method === method && route.path === path)).toBe(true);
  });

  it('accepts GET for every action a client library may send without a body', () => {
    for (const path of [
      'booking/session/clear',
      'booking/session/end',
      'booking/{booking_id}/checkin',
      'booking/{booking_id}/checkout',
    ]) {
      expect(
        ROUTES.filter((route) => route.path === path)
          .map((route) => route.method)
          .sort(),
      ).toEqual(['GET', 'POST']);
    }
  });

  it('has no duplicate method and path', () => {
    const keys = ROUTES.map((route) => `${route.method} ${route.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('makes staff-only every booking record route and customers and accounts', () => {
    const staff = ROUTES.filter((route) => route.access === 'staff').map((route) => route.path);
    expect(staff).toEqual(
      expect.arrayContaining([
        'booking',
        'booking/index',
        'booking/{booking_id}',
        'customer',
        'customer/{customer_id}',
        'account',
      ]),
    );
    expect(ROUTES.find((route) => route.path === 'booking/{booking_id}/invoice')?.access).toBe('token');
  });
});

describe('matchRoute', () => {
  it('prefers a static segment over a parameter', () => {
    const match = matchRoute('GET', '/api/3.0/booking/index');
    expect(match.kind === 'route' && match.route.name).toBe('booking.index');
    const cal = matchRoute('GET', '/api/3.0/item/cal');
    expect(cal.kind === 'route' && cal.route.name).toBe('item.cal');
  });

  it('extracts and decodes path parameters', () => {
    const match = matchRoute('GET', '/api/3.0/booking/LOON-2903%2017/invoice');
    expect(match).toMatchObject({ kind: 'route', params: { booking_id: 'LOON-2903 17' } });
  });

  it('accepts one trailing slash', () => {
    expect(matchRoute('GET', '/api/3.0/item/')).toMatchObject({
      kind: 'route',
      route: { name: 'item.list' },
    });
    expect(matchRoute('GET', '/api/3.0/item/18/cal/')).toMatchObject({
      kind: 'route',
      params: { item_id: '18' },
    });
  });

  it('tells a wrong method from an unknown path', () => {
    expect(matchRoute('DELETE', '/api/3.0/ping')).toEqual({ kind: 'method_not_allowed', allowed: ['GET'] });
    expect(matchRoute('POST', '/api/3.0/booking/form')).toEqual({
      kind: 'method_not_allowed',
      allowed: ['GET'],
    });
    expect(matchRoute('GET', '/api/3.0/nothing')).toEqual({ kind: 'not_found' });
    expect(matchRoute('GET', '/api/2.0/ping')).toEqual({ kind: 'not_found' });
    expect(matchRoute('GET', '/api/3.0/item//cal')).toEqual({ kind: 'not_found' });
  });
});

describe('the local gateway', () => {
  it('sends every row to its group with the route key the CDK API declares', () => {
    for (const route of ROUTES) {
      const path = fullPath(route).replace(/\{[^}]+\}/g, 'X-1');
      for (const variant of [path, `${path}/`]) {
        expect(resolveGroup(route.method, variant), `${route.method} ${variant}`).toEqual({
          group: route.group,
          routeKey: `${route.method} ${fullPath(route)}`,
          ...(route.path.includes('{') ? { pathParameters: expect.any(Object) } : {}),
        });
      }
    }
  });

  it('sends unknown paths and methods to the meta group as $default', () => {
    expect(resolveGroup('GET', '/api/3.0/nowhere')).toEqual({ group: 'meta', routeKey: '$default' });
    expect(resolveGroup('PUT', '/api/3.0/item')).toEqual({ group: 'meta', routeKey: '$default' });
  });
});

describe('response schemas', () => {
  it('describe every route of the route table where it is declared: a JSON body, or its media types', async () => {
    const { docsOf } = await import('#functions/route-docs.ts');
    for (const name of new Set(ROUTES.map((route) => route.name))) {
      const docs = docsOf(name);
      expect(docs.summary, name).not.toBe('');
      expect(Boolean(docs.response) !== Boolean(docs.raw), name).toBe(true);
    }
  });
});

describe('route names', () => {
  it('are a closed set: a misspelt name in any map keyed by route fails the type check', () => {
    // Each line below is a type error, and `npm run typecheck` fails if one stops being one (for example
    // if RouteName widened to string): a misspelt route cannot reach run time as a 501.
    // @ts-expect-error: no route is named 'booking.chekin'
    const misspelt: RouteName = 'booking.chekin';
    const counts: Partial<ByRoute<number>> = {
      'booking.create': 1,
      // @ts-expect-error: a map keyed by route takes only the table's names
      'booking.crate': 1,
    };
    expect(ROUTES.map((route) => route.name)).not.toContain(misspelt);
    expect(Object.keys(counts)).toHaveLength(2);
  });
});
