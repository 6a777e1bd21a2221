/** Where the tenant files are, from the repository root: `<name>.json` each, and the schema. */
export const TENANTS_DIR = 'infra/tenants';

/** The template metadata key that names the tenant file a stack was built from (the fleet reads it). */
export const TENANT_FILE_METADATA = 'booking:tenant-file';

/** The CloudFormation stack of a tenant on a stage: the name its alarms and topic are named after too. */
export const tenantStackName = (tenantId: string, stage: string): string => `Booking-${tenantId}-${stage}`;
