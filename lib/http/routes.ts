/** The Lambda function (endpoint group) that serves a route. */
export type Group = 'items' | 'session' | 'bookings' | 'admin' | 'meta' | 'channels' | 'payments';

/**
 * Who may call a route: `public` (the widget surface; `settings.public_api = false` makes it need
 * credentials), `staff` (staff credentials only), `token` (staff, or anyone holding the booking's token),
 * or `feed` (a calendar feed: whoever holds its feed token, which the route checks itself, answering a
 * wrong one as it answers an unknown item; calendar apps send no credentials).
 */
export type Access = 'public' | 'staff' | 'token' | 'feed';

/** The HTTP methods the API answers (HEAD only for a page or a file, as link checkers ask). */
export type Method = 'GET' | 'POST' | 'HEAD';

/**
 * How a route is answered: `api` through the whole pipeline into the envelope; `page`, a guest's page read
 * from the tenant's configuration (HTML, no credentials, no envelope); `file`, a static file of the widget;
 * `hook`, a provider's webhook under the API prefix, handed the request as it came (its exact bytes, which
 * its signature covers), with no credentials, limits or input parsing of the API's.
 */
export type Kind = 'api' | 'page' | 'file' | 'hook';

/** Every API route answers under this prefix; a page or a file is served from the site's root. */
export const API_PREFIX = '/api/3.0';

/** A route as its group declares it: its row of the route table, on one method or several. */
export interface RouteRowDeclaration {
  /** Stable name: metrics, logs and the documentation know a route by it. */
  name: string;
  group: Group;
  methods: readonly Method[];
  /** Path below the API prefix (or below the site's root for a page or a file), with `{param}` segments. */
  path: string;
  access: Access;
  /** The envelope's `request.resource`. */
  resource: string;
  /** The envelope's `request.id` when the path has no id of its own. */
  id: string;
  /**
   * Whether a customer's call counts against the per-client write limit: `true` always, or a list of
   * parameters whose presence makes it a write (a session read is not a change).
   */
  writes?: true | readonly string[];
  /** `api` unless said. */
  kind?: Kind;
}

/** One row of the route table: one method of one route, served by one group. */
export interface Route extends Omit<RouteRowDeclaration, 'methods'> {
  method: Method;
}

/** The rows of routes, one a method, in their order. */
export const rowsOf = (routes: readonly RouteRowDeclaration[]): Route[] =>
  routes.flatMap(({ methods, ...route }) => methods.map((method) => ({ ...route, method })));

/** The full path of a route as API Gateway and the routers see it. */
export const fullPath = (route: Pick<Route, 'path' | 'kind'>): string =>
  route.kind === 'page' || route.kind === 'file' ? `/${route.path}` : `${API_PREFIX}/${route.path}`;
