/**
 * The service's own metrics (CloudWatch embedded metric format, through Powertools Metrics): the names the
 * functions emit and the tenant stack's alarms and dashboard read. One namespace for the service; every
 * metric carries the dimensions `service` and `tenant`.
 */
export const METRICS_NAMESPACE = 'BookingService';

/** The `service` dimension (Powertools' service name) of every metric. */
export const METRICS_SERVICE = 'booking-api';

/** The dimensions every metric of a tenant carries, in the order alarms name them. */
export const metricDimensions = (tenant: string) => ({ service: METRICS_SERVICE, tenant });

/**
 * Every metric the functions emit, by what it counts or measures. Each is emitted only when there is
 * something to say (a count is never zero): a custom metric is billed for every hour it receives a value.
 * Whether a scheduled function runs is read from its AWS/Lambda `Invocations`, which AWS publishes for free.
 */
export const METRIC = {
  /** SLIPs added to a cart (stock held), one per line held. */
  holdsMade: 'HoldsMade',
  /** Holds refused because the stock was gone (409 `unavailable`). */
  holdsRefusedUnavailable: 'HoldsRefusedUnavailable',
  /** Holds refused by the per-client hold budget (409 `hold_limit`). */
  holdsRefusedHoldLimit: 'HoldsRefusedHoldLimit',
  /** Answers 503 `busy` (a contended write gave up). */
  busy: 'Busy',
  /** Answers 429 `rate_limited` by the service's own limits. */
  throttled: 'Throttled',
  /** Bookings created. */
  bookingsCreated: 'BookingsCreated',
  /** Booking status changes (update, check-in, check-out, cancel). */
  statusChanges: 'BookingStatusChanges',
  /** Milliseconds to answer a rated item list (`GET item` with dates). */
  ratedListLatency: 'RatedListLatency',
  /** Milliseconds to answer `booking/create`. */
  bookingCreateLatency: 'BookingCreateLatency',
  /** Expired sessions whose holds a sweeper run released. */
  sweeperReleases: 'SweeperReleases',
  /** Seconds since the oldest expired session still holding stock expired, at the start of a run. */
  sweeperLagSeconds: 'SweeperLagSeconds',
  /** Webhook deliveries the receiver accepted. */
  webhookSucceeded: 'WebhookDeliveriesSucceeded',
  /** Webhook delivery attempts that failed (to be retried, or given up). */
  webhookFailed: 'WebhookDeliveriesFailed',
  /** Webhook deliveries due when a dispatcher run started. */
  webhookPending: 'WebhookDeliveriesPending',
  /** Webhook endpoints disabled (a 410, or the retry schedule spent). */
  webhookEndpointsDisabled: 'WebhookEndpointsDisabled',
  /** Channel dates this service had already sold when the channel listed them (`channel.conflict`). */
  channelConflicts: 'ChannelConflicts',
  /** Channels whose feed has failed for more than an hour, at the end of a round. */
  channelsFailing: 'ChannelsFailing',
  /** Channel feeds that could not be fetched or read in a round. */
  channelFetchFailures: 'ChannelFetchFailures',
} as const;

/** The name of one of the service's metrics. */
export type MetricName = (typeof METRIC)[keyof typeof METRIC];
