import type { EndpointSecrets, WebhookSecretStore } from './secret-store.ts';
import { generateWebhookSecret } from './sign.ts';

/** Gives every listed endpoint a secret if it has none yet (on a tenant load); returns those created. */
export async function ensureEndpointSecrets(
  store: WebhookSecretStore,
  endpointIds: string[],
): Promise<string[]> {
  const secrets = await store.read();
  const missing = endpointIds.filter((id) => !secrets[id]);
  if (missing.length === 0) return [];
  await store.write({
    ...secrets,
    ...Object.fromEntries(missing.map((id) => [id, { current: generateWebhookSecret() }])),
  });
  return missing;
}

/**
 * Gives an endpoint a new secret; the old one keeps signing beside it for `graceMs`, so the receiver can
 * switch to the new one without missing a message.
 */
export async function rotateEndpointSecret(
  store: WebhookSecretStore,
  options: { endpointId: string; graceMs: number; now: number },
): Promise<EndpointSecrets> {
  const secrets = await store.read();
  const old = secrets[options.endpointId];
  const next: EndpointSecrets = {
    current: generateWebhookSecret(),
    ...(old ? { previous: old.current, previous_until: options.now + options.graceMs } : {}),
  };
  await store.write({ ...secrets, [options.endpointId]: next });
  return next;
}
