import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { EndpointSecrets } from './secret-store.ts';

/** A new endpoint secret in the Standard Webhooks form: `whsec_` and 32 random bytes in base64. */
export const generateWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** The secrets that sign now: the current one, and the previous one while its grace period lasts. */
const signingSecrets = (secrets: EndpointSecrets, now: number): string[] =>
  secrets.previous && (secrets.previous_until ?? 0) > now
    ? [secrets.current, secrets.previous]
    : [secrets.current];

/**
 * The Standard Webhooks headers of a message: its id (the event's, the same on every retry and replay),
 * the attempt's time, and one `v1,` signature per signing secret, separated by spaces.
 */
export function signedHeaders(options: {
  messageId: string;
  body: string;
  secrets: EndpointSecrets;
  now: number;
}): Record<string, string> {
  const timestamp = new Date(options.now);
  return {
    'webhook-id': options.messageId,
    'webhook-timestamp': String(Math.floor(options.now / 1000)),
    'webhook-signature': signingSecrets(options.secrets, options.now)
      .map((secret) => new Webhook(secret).sign(options.messageId, timestamp, options.body))
      .join(' '),
  };
}
