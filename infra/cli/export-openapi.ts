import { writeFileSync } from 'node:fs';
import { buildOpenApiDocument } from '#functions/openapi.ts';
import { examplesFrom } from '#functions/openapi-parts.ts';
import { readTenantFile } from '#infra/local/settings.ts';

// Writes the OpenAPI description the service serves (GET openapi.json); a test keeps it in step with the
// route table and the schemas. Parameter examples come from the demo tenant.
const file = 'functions/meta/openapi.json';
const demo = readTenantFile('infra/tenants/demo.json');
writeFileSync(file, `${JSON.stringify(buildOpenApiDocument(examplesFrom(demo)), null, 2)}\n`);
process.stdout.write(`wrote ${file}\n`);
