import { API_PREFIX, type Method, ROUTES, type Route } from './routes.ts';

/** What a method and path resolve to in the route table. */
export type RouteMatch =
  | { kind: 'route'; route: Route; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allowed: Method[] }
  | { kind: 'not_found' };

const compiled = ROUTES.map((route) => {
  const segments = route.path.split('/');
  return { route, segments, isStatic: !route.path.includes('{') };
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

/**
 * Resolves a request path (with or without one trailing slash) against the route table; static
 * segments win over parameters, as in API Gateway.
 */
export function matchRoute(method: string, rawPath: string): RouteMatch {
  const prefix = `${API_PREFIX}/`;
  if (!rawPath.startsWith(prefix)) return { kind: 'not_found' };
  let rest = rawPath.slice(prefix.length);
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  const actual = rest.split('/').map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      return segment;
    }
  });

  const candidates = compiled
    .map((entry) => ({ entry, params: matchSegments(entry.segments, actual) }))
    .filter((candidate) => candidate.params !== undefined);
  if (candidates.length === 0) return { kind: 'not_found' };

  const staticHits = candidates.filter((candidate) => candidate.entry.isStatic);
  const pool = staticHits.length > 0 ? staticHits : candidates;
  const hit = pool.find((candidate) => candidate.entry.route.method === method.toUpperCase());
  if (hit?.params) return { kind: 'route', route: hit.entry.route, params: hit.params };
  const allowed = [...new Set(pool.map((candidate) => candidate.entry.route.method))];
  return { kind: 'method_not_allowed', allowed };
}
