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

/** The region CloudFront reads its certificate and web ACL from, whatever region the stack is in. */
export const EDGE_REGION = 'us-east-1';

const ACM_ARN = /^arn:aws[a-z-]*:acm:([a-z]{2}(?:-[a-z]+)+-\d):\d{12}:certificate\/[0-9a-f-]{36}$/;

/** The region of an ACM certificate's ARN, or undefined when the text is no such ARN. */
export const certificateRegion = (arn: string): string | undefined => ACM_ARN.exec(arn)?.[1];

const certificateArn = z
  .string()
  .regex(ACM_ARN, 'an ACM certificate ARN (arn:aws:acm:<region>:<account>:certificate/<id>)');

// A host name as DNS writes it: lower case labels of letters, digits and inner hyphens, at least two.
const hostName = z
  .string()
  .max(253)
  .regex(
    /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/,
    'a lower case host name such as "book.example.com" (no scheme, path, port or wildcard)',
  );

/** `deployment.domain`: the tenant's own host name for the API, the widget's files and the booking page. */
export const domainSchema = z
  .strictObject({
    name: hostName.describe('The host name guests and widgets use, such as "book.example.com".'),
    certificate_arn: certificateArn.describe(
      "ACM certificate for `name` in the stack's own region: API Gateway's custom domain name presents it.",
    ),
  })
  .describe(
    'Serve the API, the widget and the booking page at https://<name>. Without `edge`, the operator points ' +
      "<name> at the stack's DomainTarget output (API Gateway's regional name); the execute-api address keeps working.",
  );

/** `deployment.edge`: CloudFront with AWS WAF in front of the API (docs/edge.md). */
export const edgeSchema = z
  .strictObject({
    web_acl_arn: z
      .string()
      .regex(
        /^arn:aws[a-z-]*:wafv2:us-east-1:\d{12}:global\/webacl\/[\w-]{1,128}\/[0-9a-f-]{36}$/,
        'the ARN of a CLOUDFRONT-scope web ACL (arn:aws:wafv2:us-east-1:<account>:global/webacl/<name>/<id>)',
      )
      .describe("The account's shared edge web ACL (the Booking-edge stack's WebAclArn output)."),
    certificate_arn: certificateArn
      .refine(
        (arn) => certificateRegion(arn) === EDGE_REGION,
        `a certificate in ${EDGE_REGION}, where CloudFront reads it`,
      )
      .describe(`ACM certificate for \`domain.name\` in ${EDGE_REGION}: CloudFront presents it to browsers.`),
    token_generation: z
      .number()
      .int()
      .min(1)
      .max(999)
      .default(1)
      .describe(
        'Raise by one to rotate the origin token CloudFront adds (a new secret); deploy it with ' +
          '`accept_previous_token` true, then again without (docs/edge.md). Default 1.',
      ),
    refuse_direct: z
      .boolean()
      .default(true)
      .describe(
        'Refuse (403) a request that did not come through CloudFront (around the WAF). Set false while an ' +
          "existing tenant's DNS moves to the distribution, then back to true (docs/edge.md). Default true.",
      ),
    accept_previous_token: z
      .boolean()
      .default(false)
      .describe(
        "During a rotation: the functions also accept the previous generation's token while CloudFront's " +
          'edge locations change over, so no guest is refused. Default false.',
      ),
  })
  .describe(
    'CloudFront with the shared AWS WAF web ACL in front of the API (off by default; $0.40 a month at idle for ' +
      'its origin token, see docs/edge.md). Needs `domain`; turns the execute-api address off, so a widget ' +
      'snippet on it stops working.',
  );

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
          'unless `dashboard` is true; standard: all 29 alarms (adding latency, 503 bursts, DynamoDB, every ' +
          "function's errors and throttles, and dropped scheduled runs), each notifying on its own, and the " +
          'dashboard. Default small; ' +
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
    table_generation: z
      .number()
      .int()
      .min(1)
      .max(999)
      .default(1)
      .describe(
        'Raise by one only to give the stack a new, empty table after the old one was lost, before ' +
          'copying a restored backup into it (docs/deploy.md, "Restoring a lost table"); default 1.',
      ),
    domain: domainSchema.optional(),
    edge: edgeSchema.optional(),
  })
  // CloudFront reaches an API whose execute-api address is off through its custom domain name only.
  .refine((deployment) => !deployment.edge || deployment.domain, {
    message: '`edge` needs `domain`: CloudFront reaches the API through its custom domain name',
    path: ['edge'],
  })
  .default({
    tier: 'small',
    backup: { retention_days: BACKUP_RETENTION_DAYS.fallback },
    table_generation: 1,
  });

/** `deployment` of a parsed tenant file. */
export type Deployment = z.infer<typeof deploymentSchema>;

/** `deployment.domain` of a parsed tenant file. */
export type Domain = z.infer<typeof domainSchema>;

/** `deployment.edge` of a parsed tenant file. */
export type Edge = z.infer<typeof edgeSchema>;

/** Whether the tenant's stack gets a dashboard: `deployment.dashboard`, or else its tier's default. */
export const wantsDashboard = (deployment: Pick<Deployment, 'tier' | 'dashboard'>): boolean =>
  deployment.dashboard ?? deployment.tier === 'standard';
