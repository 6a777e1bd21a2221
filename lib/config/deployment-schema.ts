import { z } from 'zod';

/**
 * How much a tenant's stack watches itself at idle (docs/cost.md): `small` gets the twelve alarms that
 * matter, notifying through one composite alarm, and no dashboard unless asked for; `standard` gets every
 * alarm, each notifying on its own, and the dashboard.
 */
export const TIERS = ['small', 'standard'] as const;

/** A tenant's tier (`deployment.tier`). */
export type Tier = (typeof TIERS)[number];

/** Backups kept beyond point-in-time recovery: the fewest and most days the tenant file may ask for. */
export const BACKUP_RETENTION_DAYS = { min: 7, max: 3650, fallback: 35 } as const;

/**
 * `deployment` of the tenant file: how the tenant's stack is built and operated (read by the CDK app and the
 * fleet command only; no function reads it).
 */
export const deploymentSchema = z
  .strictObject({
    tier: z
      .enum(TIERS)
      .default('small')
      .describe(
        'small: the 12 alarms that matter (stock held or sold twice, the API failing, webhooks cut off, a ' +
          'scheduled job failing or not running), notifying through one composite alarm, and no dashboard ' +
          'unless `dashboard` is true; standard: all 28 alarms (adding latency, 503 bursts, DynamoDB, and ' +
          "every function's errors and throttles), each notifying on its own, and the dashboard. Default small; " +
          'docs/cost.md gives what each costs at idle.',
      ),
    dashboard: z
      .boolean()
      .optional()
      .describe(
        "A CloudWatch dashboard ($3 a month beyond the account's first three): default false for small, " +
          'true for standard.',
      ),
    backup: z
      .strictObject({
        retention_days: z
          .number()
          .int()
          .min(BACKUP_RETENTION_DAYS.min)
          .max(BACKUP_RETENTION_DAYS.max)
          .default(BACKUP_RETENTION_DAYS.fallback)
          .describe(
            `Days each daily backup of the table is kept, beyond the 35 days of point-in-time recovery ` +
              `(${BACKUP_RETENTION_DAYS.min} to ${BACKUP_RETENTION_DAYS.max}, default ` +
              `${BACKUP_RETENTION_DAYS.fallback}). A dev stage takes none.`,
          ),
      })
      .default({ retention_days: BACKUP_RETENTION_DAYS.fallback }),
  })
  .default({ tier: 'small', backup: { retention_days: BACKUP_RETENTION_DAYS.fallback } });

/** `deployment` of a parsed tenant file. */
export type Deployment = z.infer<typeof deploymentSchema>;

/** Whether the tenant's stack gets a dashboard: `deployment.dashboard`, or else its tier's default. */
export const wantsDashboard = (deployment: Pick<Deployment, 'tier' | 'dashboard'>): boolean =>
  deployment.dashboard ?? deployment.tier === 'standard';
