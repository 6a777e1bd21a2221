// The webhooks context's public entry: what other contexts, the functions and the CLIs use of it.
export { enableWebhook, findWebhook, listWebhookDeliveries, listWebhooks, replayWebhook } from './admin.ts';
export type { DispatchReport, RenderWebhook } from './dispatch.ts';
export { DISPATCH_BATCH, dispatchDue } from './dispatch.ts';
export type { StoredEndpoint } from './endpoint-repository.ts';
export { listEndpoints, retireEndpoint, upsertEndpointFromFile } from './endpoint-repository.ts';
export type { StoredDelivery, StoredWebhookEvent } from './outbox.ts';
export { retentionTtl, webhookEventActions } from './outbox.ts';
export type { WebhookSecretStore } from './secret-store.ts';
export { createFileSecretStore, createSecretsManagerStore } from './secret-store.ts';
export { ensureEndpointSecrets, rotateEndpointSecret } from './secrets.ts';
export { postWebhook } from './send.ts';
export { subscribersOf } from './subscriptions.ts';
