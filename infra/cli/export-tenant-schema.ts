import { writeFileSync } from 'node:fs';
import { tenantJsonSchema } from '#lib/config/index.ts';

// Writes the tenant file's JSON Schema beside the tenant files (editors validate against it).
const file = 'infra/tenants/tenant.schema.json';
writeFileSync(file, `${JSON.stringify(tenantJsonSchema(), null, 2)}\n`);
process.stdout.write(`wrote ${file}\n`);
