// The config context's public entry: what other contexts, the functions and the CLIs use of it.
export type { Alerts } from './alerts-schema.ts';
export type { CancellationPolicy } from './cancellation-schema.ts';
export type { Deployment, Domain, Edge, Tier } from './deployment-schema.ts';
export { certificateRegion, EDGE_REGION, wantsDashboard } from './deployment-schema.ts';
export { DEFAULT_CONFIG_CACHE_MS, DEFAULT_PAYMENT } from './limits.ts';
export type { StoredConfig, StoredItem } from './model.ts';
export type { PaymentSettings } from './payment-schema.ts';
export type { PolicyLength } from './policy-length.ts';
export { nominalHours } from './policy-length.ts';

export type { ItemLoader } from './repository.ts';
export {
  createItemLoader,
  getAccount,
  getConfig,
  getItemsById,
  itemsWithParts,
  listAccounts,
  listCategories,
  listItems,
  listItemsWithLoad,
  recordAccountLogin,
} from './repository.ts';
export type { AccountGrant, Tenant, TenantChannel, TenantItem, TenantWebhook } from './tenant-schema.ts';
export { parseTenant, tenantJsonSchema, tenantSchema } from './tenant-schema.ts';
