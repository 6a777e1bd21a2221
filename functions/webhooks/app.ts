import type { Db } from '#lib/db/client.ts';
import { getConfig } from '#lib/db/tenant-repository.ts';
import type { WebhookSecretStore } from '#lib/db/webhook-secret-store.ts';
import { type DispatchReport, dispatchDue } from '#lib/domain/webhook-dispatch.ts';
import { logger } from '#lib/http/logger.ts';
import type { DeliveryPolicy } from '#lib/webhooks/address-guard.ts';
import { postWebhook } from '#lib/webhooks/send.ts';
import { renderWebhook } from './render.ts';

/**
 * The webhook dispatcher: one run sends what is due (first attempts, retries, replays). In AWS it runs on
 * every new delivery (the table's stream) and every minute (retries); locally on a short timer. Each
 * attempt is logged with its status and at most 1 KB of the answer, never a secret or a signature.
 */
export const createDispatcher =
  (options: {
    db: Db;
    secrets: WebhookSecretStore;
    policy: DeliveryPolicy;
    clock?: () => number;
    random?: () => number;
  }) =>
  (): Promise<DispatchReport> =>
    dispatchDue({
      db: options.db,
      secrets: options.secrets,
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.random ? { random: options.random } : {}),
      config: async () => {
        const config = await getConfig(options.db);
        if (!config) throw new Error('No tenant is loaded into the table');
        return config;
      },
      render: renderWebhook,
      send: (request) => postWebhook({ ...request, policy: options.policy }),
      onAttempt: ({ delivery, response }) =>
        logger.info('webhook attempt', {
          endpoint_id: delivery.endpoint_id,
          event_id: delivery.event_id,
          event_type: delivery.event_type,
          outcome: response.outcome,
          status: response.status ?? 0,
          duration_ms: response.durationMs,
          ...(response.error ? { error: response.error } : {}),
          ...(response.body ? { body: response.body } : {}),
        }),
    });
