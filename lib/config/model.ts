import type { Tenant, TenantAccount, TenantCategory, TenantItem } from './tenant-schema.ts';

// The configuration as the service keeps it: what a tenant load stores of the tenant file, read by every
// context through lib/config.

/** The tenant-wide configuration as stored: everything of the tenant file but the collections. */
export type StoredConfig = Pick<
  Tenant,
  | 'tenant'
  | 'company'
  | 'locale'
  | 'settings'
  | 'params'
  | 'statuses'
  | 'form'
  | 'policy'
  | 'taxes'
  | 'discounts'
  | 'webhooks'
  | 'channels'
> & {
  updated_at: number;
  /**
   * The index layout every stock counter carries (`month`), set by the tenant load once it indexed them:
   * lists then read every item's counters by month. Absent (or an earlier layout): lists read by item.
   */
  stock_index?: string;
  /**
   * The items whose tenant file sets their own cancellation policy (issue 44), written by the tenant load
   * beside the configuration: a booking of other items reads no item for its policy. Absent before it existed.
   */
  items_with_cancellation?: number[];
  /**
   * The service's public URL (`PUBLIC_URL`), added by the function that read the configuration, never
   * stored: an item image given as a path on this service is answered as a URL under it.
   */
  service_url?: string;
};

/** An item as stored (with its category's name, so listing needs one query); removed items stay, disabled. */
export type StoredItem = TenantItem & { category_name?: string };

/** A category as stored; categories removed from the tenant file stay, disabled. */
export type StoredCategory = TenantCategory & { enabled: boolean };

/** A staff account as stored, with what the service records about its use. */
export type StoredAccount = TenantAccount & {
  date_created: number;
  date_last_login: number;
  ip_last_login: string;
};
