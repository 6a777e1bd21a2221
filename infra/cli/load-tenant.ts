import {
  connectForCli,
  readTenantFile,
  TenantFileError,
  webhookSecretsForCli,
} from '#infra/local/settings.ts';
import { writeTenant } from '#lib/housekeeping/index.ts';
import { ensureEndpointSecrets } from '#lib/webhooks/index.ts';

// Usage: npm run tenant:load -- [file]   (default TENANT_FILE, else infra/tenants/demo.json)
// Validates the file (every problem listed by path) and writes it into the table idempotently.
async function main(): Promise<void> {
  const file = process.argv[2] ?? process.env.TENANT_FILE ?? 'infra/tenants/demo.json';
  const tenant = readTenantFile(file);
  const db = connectForCli();
  const summary = await writeTenant(db, tenant, Date.now());
  // Every endpoint gets its signing secret on its first load; an existing one is never replaced.
  const created = await ensureEndpointSecrets(
    webhookSecretsForCli(),
    tenant.webhooks.map((webhook) => webhook.id),
  );
  const lines = [
    `loaded ${file} into ${db.tableName}: ${summary.items} items, ${summary.categories} categories, ${summary.accounts} accounts`,
    `disabled: items [${summary.disabledItems.join(', ')}], categories [${summary.disabledCategories.join(', ')}], accounts [${summary.disabledAccounts.join(', ')}]`,
    `gift certificates: created [${summary.giftcertsCreated.join(', ')}], balance kept [${summary.giftcertsKept.join(', ')}]`,
    `stock counters given their span-index keys: ${summary.countersIndexed}`,
    `webhooks: ${summary.webhooks} endpoints, retired [${summary.retiredWebhooks.join(', ')}], secrets created [${created.join(', ')}] (${process.env.WEBHOOK_SECRETS_ARN ? 'Secrets Manager' : 'DATA_DIR'})`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof TenantFileError ? error.message : (error as Error).message}\n`);
  process.exit(1);
});
