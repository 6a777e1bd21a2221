import { type Access, fullPath, type Group, type Kind, type Method, type Route } from './routes.ts';

/** What a method and path resolve to in a route table. */
export type RouteMatch =
  | { kind: 'route'; route: Route; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allowed: Method[] }
  | { kind: 'not_found' };

/** A method and a path a route table holds, for the 404 and 405 of a router that serves none of them. */
export type KnownRoute = Pick<Route, 'method' | 'path' | 'kind' | 'group' | 'access' | 'resource'>;

/**
 * Known routes as a bundle carries them (the meta function's `ROUTE_TABLE`): a row a line of its fields
 * apart by spaces (method, path, group, access, resource, and the kind unless the API's), lines apart by `;`.
 */
export const packRoutes = (routes: readonly KnownRoute[]): string =>
  routes
    .map(({ method, path, group, access, resource, kind }) =>
      [method, path, group, access, resource, ...(kind ? [kind] : [])].join(' '),
    )
    .join(';');

/** Known routes read back from `packRoutes`. */
export const unpackRoutes = (packed: string): KnownRoute[] =>
  packed.split(';').map((line) => {
    const [method, path, group, access, resource, kind] = line.split(' ');
    return {
      method: method as Method,
      path: path as string,
      group: group as Group,
      access: access as Access,
      resource: resource as string,
      ...(kind ? { kind: kind as Kind } : {}),
    };
  });

const matchSegments = (pattern: string[], actual: string[]): Record<string, string> | undefined => {
  if (pattern.length !== actual.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, part] of pattern.entries()) {
    const value = actual[index] ?? '';
    if (part.startsWith('{')) {
      if (value === '') return undefined;
      params[part.slice(1, -1)] = value;
    } else if (part !== value) {
      return undefined;
    }
  }
  return params;
};

/** A path's segments as sent (one trailing slash aside), each decoded where it decodes. */
const segmentsOf = (rawPath: string): string[] => {
  const rest = rawPath.endsWith('/') && rawPath.length > 1 ? rawPath.slice(0, -1) : rawPath;
  return rest
    .slice(1)
    .split('/')
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    });
};

/**
 * The matcher of a route table: resolves a request path (with or without one trailing slash) against its
 * rows, static segments winning over parameters, as in API Gateway. `known` adds rows served elsewhere:
 * they never match, but a path of theirs asked with another method is a 405, not a 404.
 */
export function createMatcher(routes: readonly Route[], known: readonly KnownRoute[] = []) {
  const compiled = [...routes, ...known].map((route) => {
    const full = fullPath(route);
    return {
      route: routes.includes(route as Route) ? (route as Route) : undefined,
      method: route.method,
      segments: full.slice(1).split('/'),
      isStatic: !full.includes('{'),
    };
  });
  return (method: string, rawPath: string): RouteMatch => {
    const actual = segmentsOf(rawPath);
    const candidates = compiled
      .map((entry) => ({ entry, params: matchSegments(entry.segments, actual) }))
      .filter((candidate) => candidate.params !== undefined);
    if (candidates.length === 0) return { kind: 'not_found' };
    const staticHits = candidates.filter((candidate) => candidate.entry.isStatic);
    const pool = staticHits.length > 0 ? staticHits : candidates;
    const hit = pool.find((candidate) => candidate.entry.method === method.toUpperCase());
    if (hit?.entry.route && hit.params) return { kind: 'route', route: hit.entry.route, params: hit.params };
    if (hit) return { kind: 'not_found' };
    const allowed = [...new Set(pool.map((candidate) => candidate.entry.method))];
    return { kind: 'method_not_allowed', allowed };
  };
}
