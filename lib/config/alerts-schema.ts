import { z } from 'zod';
import { DEFAULT_ALERTS } from './limits.ts';

const perFiveMinutes = (fallback: number, what: string) =>
  z
    .number()
    .int()
    .positive()
    .max(100_000)
    .default(fallback)
    .describe(`Alarm when ${what} in five minutes reach this many (default ${fallback}).`);

const milliseconds = (fallback: number, what: string) =>
  z
    .number()
    .int()
    .positive()
    .max(60_000)
    .default(fallback)
    .describe(
      `Alarm when the p99 time to answer ${what} is over this many milliseconds in two of three ` +
        `five-minute periods (default ${fallback}).`,
    );

/** Where the tenant stack's alarms go and when they fire (`settings.alerts` of the tenant file). */
export const alertsSchema = z
  .strictObject({
    email: z
      .email()
      .optional()
      .describe(
        'Subscribed to the alarm topic when present (AWS mails a confirmation link first). Without it, ' +
          'subscribe to the AlertsTopicArn output by other means.',
      ),
    api_5xx_percent: z
      .number()
      .positive()
      .max(100)
      .default(DEFAULT_ALERTS.api_5xx_percent)
      .describe(
        'Alarm when more than this percentage of API requests in five minutes answer 5xx ' +
          `(default ${DEFAULT_ALERTS.api_5xx_percent}).`,
      ),
    rated_list_p99_ms: milliseconds(DEFAULT_ALERTS.rated_list_p99_ms, 'a rated item list'),
    booking_create_p99_ms: milliseconds(DEFAULT_ALERTS.booking_create_p99_ms, 'booking/create'),
    busy_per_5_minutes: perFiveMinutes(DEFAULT_ALERTS.busy_per_5_minutes, '503 busy answers'),
    function_errors_per_5_minutes: perFiveMinutes(
      DEFAULT_ALERTS.function_errors_per_5_minutes,
      "one function's errors (crashes and timeouts, not error answers)",
    ),
    function_throttles_per_5_minutes: perFiveMinutes(
      DEFAULT_ALERTS.function_throttles_per_5_minutes,
      "one function's throttled invocations",
    ),
    dynamodb_throttles_per_5_minutes: perFiveMinutes(
      DEFAULT_ALERTS.dynamodb_throttles_per_5_minutes,
      "the table's throttled requests",
    ),
    dynamodb_system_errors_per_5_minutes: perFiveMinutes(
      DEFAULT_ALERTS.dynamodb_system_errors_per_5_minutes,
      "the table's system errors (HTTP 500 from DynamoDB)",
    ),
    sweeper_lag_seconds: z
      .number()
      .int()
      .min(60)
      .max(86_400)
      .default(DEFAULT_ALERTS.sweeper_lag_seconds)
      .describe(
        'Alarm when an expired session has held stock for more than this many seconds when a sweeper ' +
          `run starts (default ${DEFAULT_ALERTS.sweeper_lag_seconds}).`,
      ),
  })
  .describe('Where the stack sends its CloudWatch alarms, and their thresholds. Every field has a default.');

/** The alarm settings of a tenant, with every default filled in. */
export type Alerts = z.infer<typeof alertsSchema>;
