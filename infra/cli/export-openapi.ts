import { writeFileSync } from 'node:fs';
import { buildOpenApiDocument } from '#functions/openapi.ts';

// Writes the OpenAPI description the service serves (GET openapi.json); a test keeps it in step with the
// route table and the schemas.
const file = 'functions/meta/openapi.json';
writeFileSync(file, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
process.stdout.write(`wrote ${file}\n`);
