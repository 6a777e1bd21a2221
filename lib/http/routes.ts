/** The Lambda function (endpoint group) that serves a route. */
export type Group = 'items' | 'session' | 'bookings' | 'meta' | 'channels';

/**
 * Who may call a route: `public` (the widget surface; `settings.public_api = false` makes it need
 * credentials), `staff` (staff credentials only), `token` (staff, or anyone holding the booking's token),
 * or `feed` (a calendar feed: whoever holds its feed token, which the route checks itself, answering a
 * wrong one as it answers an unknown item; calendar apps send no credentials).
 */
export type Access = 'public' | 'staff' | 'token' | 'feed';

/** The HTTP methods the API answers. */
export type Method = 'GET' | 'POST';

/** One row of the route table as it is written. */
interface RouteRow {
  /** Stable name: every map keyed by route (implementations, schemas, errors) is keyed by it. */
  name: string;
  method: Method;
  /** Path below the API prefix, with `{param}` segments. */
  path: string;
  group: Group;
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
}

/** Every path answers under this prefix. */
export const API_PREFIX = '/api/3.0';

/** An action answered on GET and POST alike, the name kept as a literal so `RouteName` lists it. */
const both = <const R extends Omit<RouteRow, 'method'>>(route: R) =>
  [
    { ...route, method: 'GET' },
    { ...route, method: 'POST' },
  ] as const;

/** A staff action on one booking (`booking/{booking_id}/<action>`). */
const bookingAction = <const A extends string>(action: A) =>
  both({
    name: `booking.${action}`,
    path: `booking/{booking_id}/${action}`,
    group: 'bookings',
    access: 'staff',
    resource: 'booking',
    id: '',
  });

/**
 * The one route table: the routers inside each Lambda, the CDK HTTP API routes and the local gateway
 * are all built from it. Actions accept GET too, because client libraries send an empty POST as a GET.
 */
export const ROUTES = [
  {
    name: 'item.list',
    method: 'GET',
    path: 'item',
    group: 'items',
    access: 'public',
    resource: 'item',
    id: '',
  },
  {
    name: 'item.cal',
    method: 'GET',
    path: 'item/cal',
    group: 'items',
    access: 'public',
    resource: 'item',
    id: 'cal',
  },
  {
    name: 'item.get',
    method: 'GET',
    path: 'item/{item_id}',
    group: 'items',
    access: 'public',
    resource: 'item',
    id: '',
  },
  {
    name: 'item.ical',
    method: 'GET',
    path: 'item/{item_id}/ical',
    group: 'channels',
    access: 'feed',
    resource: 'item',
    id: 'ical',
  },
  {
    name: 'item.itemCal',
    method: 'GET',
    path: 'item/{item_id}/cal',
    group: 'items',
    access: 'public',
    resource: 'item',
    id: 'cal',
  },
  ...both({
    name: 'session.write',
    path: 'booking/session',
    group: 'session',
    access: 'public',
    resource: 'booking',
    id: 'session',
    writes: ['slip', 'alter'],
  }),
  ...both({
    name: 'session.clear',
    writes: true,
    path: 'booking/session/clear',
    group: 'session',
    access: 'public',
    resource: 'booking',
    id: 'session',
  }),
  ...both({
    name: 'session.end',
    writes: true,
    path: 'booking/session/end',
    group: 'session',
    access: 'public',
    resource: 'booking',
    id: 'session',
  }),
  {
    name: 'booking.form',
    method: 'GET',
    path: 'booking/form',
    group: 'bookings',
    access: 'public',
    resource: 'booking',
    id: 'form',
  },
  {
    name: 'booking.create',
    writes: true,
    method: 'POST',
    path: 'booking/create',
    group: 'bookings',
    access: 'public',
    resource: 'booking',
    id: 'create',
  },
  {
    name: 'booking.list',
    method: 'GET',
    path: 'booking',
    group: 'bookings',
    access: 'staff',
    resource: 'booking',
    id: 'index',
  },
  {
    name: 'booking.index',
    method: 'GET',
    path: 'booking/index',
    group: 'bookings',
    access: 'staff',
    resource: 'booking',
    id: 'index',
  },
  {
    name: 'booking.get',
    method: 'GET',
    path: 'booking/{booking_id}',
    group: 'bookings',
    access: 'staff',
    resource: 'booking',
    id: '',
  },
  {
    name: 'booking.invoice',
    method: 'GET',
    path: 'booking/{booking_id}/invoice',
    group: 'bookings',
    access: 'token',
    resource: 'booking',
    id: '',
  },
  ...bookingAction('checkin'),
  ...bookingAction('checkout'),
  ...bookingAction('update'),
  ...bookingAction('bookmark'),
  ...bookingAction('note'),
  {
    name: 'customer.find',
    method: 'GET',
    path: 'customer',
    group: 'bookings',
    access: 'staff',
    resource: 'customer',
    id: '',
  },
  {
    name: 'customer.get',
    method: 'GET',
    path: 'customer/{customer_id}',
    group: 'bookings',
    access: 'staff',
    resource: 'customer',
    id: '',
  },
  {
    name: 'company',
    method: 'GET',
    path: 'company',
    group: 'meta',
    access: 'public',
    resource: 'company',
    id: '',
  },
  {
    name: 'category',
    method: 'GET',
    path: 'category',
    group: 'meta',
    access: 'public',
    resource: 'category',
    id: '',
  },
  {
    name: 'account',
    method: 'GET',
    path: 'account',
    group: 'meta',
    access: 'staff',
    resource: 'account',
    id: '',
  },
  { name: 'ping', method: 'GET', path: 'ping', group: 'meta', access: 'public', resource: 'ping', id: '' },
  { name: 'help', method: 'GET', path: 'help', group: 'meta', access: 'public', resource: 'help', id: '' },
  {
    name: 'openapi',
    method: 'GET',
    path: 'openapi.json',
    group: 'meta',
    access: 'public',
    resource: 'openapi',
    id: '',
  },
  { name: 'docs', method: 'GET', path: 'docs', group: 'meta', access: 'public', resource: 'docs', id: '' },
  {
    name: 'docs.asset',
    method: 'GET',
    path: 'docs/{asset}',
    group: 'meta',
    access: 'public',
    resource: 'docs',
    id: '',
  },
  {
    name: 'event.list',
    method: 'GET',
    path: 'event',
    group: 'meta',
    access: 'staff',
    resource: 'event',
    id: '',
  },
  {
    name: 'event.get',
    method: 'GET',
    path: 'event/{event_id}',
    group: 'meta',
    access: 'staff',
    resource: 'event',
    id: '',
  },
  {
    name: 'webhook.list',
    method: 'GET',
    path: 'webhook',
    group: 'bookings',
    access: 'staff',
    resource: 'webhook',
    id: '',
  },
  {
    name: 'webhook.deliveries',
    method: 'GET',
    path: 'webhook/{webhook_id}/delivery',
    group: 'bookings',
    access: 'staff',
    resource: 'webhook',
    id: '',
  },
  ...both({
    name: 'webhook.replay',
    path: 'webhook/{webhook_id}/replay',
    group: 'bookings',
    access: 'staff',
    resource: 'webhook',
    id: '',
  }),
  ...both({
    name: 'webhook.enable',
    path: 'webhook/{webhook_id}/enable',
    group: 'bookings',
    access: 'staff',
    resource: 'webhook',
    id: '',
  }),
  {
    name: 'booking.ical',
    method: 'GET',
    path: 'booking/ical',
    group: 'channels',
    access: 'feed',
    resource: 'booking',
    id: 'ical',
  },
  {
    name: 'channel.list',
    method: 'GET',
    path: 'channel',
    group: 'channels',
    access: 'staff',
    resource: 'channel',
    id: '',
  },
  ...both({
    name: 'channel.sync',
    path: 'channel/{channel_id}/sync',
    group: 'channels',
    access: 'staff',
    resource: 'channel',
    id: '',
  }),
  {
    name: 'booking.notes',
    method: 'GET',
    path: 'booking/notes',
    group: 'bookings',
    access: 'staff',
    resource: 'booking',
    id: 'notes',
  },
] as const satisfies readonly RouteRow[];

/** The name of a route of the table: a misspelt name is a type error, not a 501 at run time. */
export type RouteName = (typeof ROUTES)[number]['name'];

/** The names of the routes one endpoint group serves. */
export type RouteNameOf<G extends Group> = Extract<(typeof ROUTES)[number], { group: G }>['name'];

/** One row of the route table. */
export type Route = Omit<RouteRow, 'name'> & { name: RouteName };

/** A map with an entry for every route of the table (schemas, summaries), so none can be left out. */
export type ByRoute<T> = Record<RouteName, T>;

/** The full path of a route as API Gateway and the routers see it. */
export const fullPath = (route: Pick<Route, 'path'>): string => `${API_PREFIX}/${route.path}`;

/** The routes served by one endpoint group. */
export const routesOfGroup = (group: Group): Route[] => ROUTES.filter((route) => route.group === group);
