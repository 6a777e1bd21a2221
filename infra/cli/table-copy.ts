import { parseArgs } from 'node:util';
import { localSettings } from '#infra/local/settings.ts';
import { createDb } from '#lib/kernel/storage/database.ts';
import { copyTable } from '../restore/copy-table.ts';

// Usage: npm run table:copy -- --from <restored table> --to <the stack's new table>
// Copies every item of a restored backup into the stack's new, empty table (docs/deploy.md, "Restoring a lost
// table"). AWS by default (AWS_REGION, the usual credentials); DYNAMODB_ENDPOINT for a local one.
const USAGE = 'usage: npm run table:copy -- --from <restored table> --to <new table>';

async function main(): Promise<number> {
  let values: { from?: string; to?: string };
  try {
    ({ values } = parseArgs({ options: { from: { type: 'string' }, to: { type: 'string' } } }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (!values.from || !values.to) {
    process.stderr.write(`both --from and --to are needed\n${USAGE}\n`);
    return 2;
  }
  const { dynamoEndpoint } = localSettings();
  const connect = (tableName: string) =>
    createDb({ tableName, endpoint: dynamoEndpoint, region: process.env.AWS_REGION });
  const report = await copyTable(connect(values.from), connect(values.to), {
    progress: ({ read }) => process.stderr.write(`\r${read} items copied`),
  });
  process.stdout.write(
    `\ncopied ${report.written} of ${report.read} items from ${values.from} to ${values.to}\n`,
  );
  return report.written === report.read ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`\ntable:copy failed: ${(error as Error).message}\n`);
    process.exit(1);
  },
);
