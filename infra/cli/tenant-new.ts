import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseTenant, tenantSchema } from '#lib/config/index.ts';

const USAGE = `usage: npm run tenant:new -- <name> [--company "Name"] [--currency CAD] [--dir <dir>]
  <name>      the tenant id: lower case letters, digits and -, starting with a letter (2 to 40 characters)
  --company   the business's name (default: the template's)
  --currency  an ISO 4217 code such as CAD or EUR; sets the symbol and decimals too (default USD)
  --dir       where to write <name>.json (default infra/tenants, where \`cdk deploy -c tenant=<name>\` reads it)
Writes a small valid tenant file from infra/tenants/template.json; never overwrites a file.`;

const TENANTS = fileURLToPath(new URL('../tenants/', import.meta.url));
const TEMPLATE = join(TENANTS, 'template.json');
const SCHEMA = join(TENANTS, 'tenant.schema.json');
const LINE_WIDTH = 110;

/** The fields of the template this CLI sets; the rest is copied as it is. */
interface TemplateTenant {
  $schema: string;
  tenant: string;
  company: { name: string };
  locale: Record<string, unknown>;
  settings: { booking_code_prefix: string };
}

/** A CLI problem: printed as it is, with a non-zero exit. */
class TenantNewError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'TenantNewError';
  }
}

/** The locale fields of a currency: its code, narrow symbol and usual decimals, as Intl knows them. */
function currencyLocale(code: string): { currency: string; currency_symbol: string; decimals: number } {
  if (!/^[A-Z]{3}$/.test(code) || !Intl.supportedValuesOf('currency').includes(code)) {
    throw new TenantNewError(`--currency ${code}: not an ISO 4217 currency code such as CAD, EUR or USD`, 2);
  }
  const format = new Intl.NumberFormat('en', {
    style: 'currency',
    currency: code,
    currencyDisplay: 'narrowSymbol',
  });
  const symbol = format.formatToParts(0).find((part) => part.type === 'currency')?.value ?? code;
  return {
    currency: code,
    currency_symbol: symbol,
    decimals: format.resolvedOptions().maximumFractionDigits ?? 2,
  };
}

/** A booking code prefix from the tenant id: its first letters, upper case (2 to 6 of them). */
const codePrefix = (name: string): string => {
  const letters = name
    .replace(/[^a-z]/g, '')
    .slice(0, 4)
    .toUpperCase();
  return letters.length >= 2 ? letters : 'BOOK';
};

/**
 * JSON as the repository's formatter (Biome) leaves it: objects one key a line, lists of plain values on
 * one line when they fit, so a new tenant file passes `npm run lint` as written.
 */
function formatJson(value: unknown, indent = '', column = 0): string {
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    if (value.every((entry) => entry === null || typeof entry !== 'object')) {
      const flat = `[${value.map((entry) => JSON.stringify(entry)).join(', ')}]`;
      if (column + flat.length + 1 <= LINE_WIDTH) return flat;
    }
    return `[\n${value.map((entry) => inner + formatJson(entry, inner, inner.length)).join(',\n')}\n${indent}]`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    const lines = entries.map(([key, entry]) => {
      const head = `${inner}${JSON.stringify(key)}: `;
      return head + formatJson(entry, inner, head.length);
    });
    return `{\n${lines.join(',\n')}\n${indent}}`;
  }
  return JSON.stringify(value);
}

const readArgs = (args: string[]) => {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: {
        company: { type: 'string' },
        currency: { type: 'string' },
        dir: { type: 'string', default: TENANTS },
        help: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    throw new TenantNewError(`${(error as Error).message}\n${USAGE}`, 2);
  }
};

/** Where the CLI writes: the process's streams, or a test's. */
export interface TenantNewOutput {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

function scaffold(args: string[], out: TenantNewOutput): void {
  const { positionals, values } = readArgs(args);
  if (values.help) {
    out.stdout(`${USAGE}\n`);
    return;
  }
  const [name, ...extra] = positionals;
  if (!name || extra.length) throw new TenantNewError(USAGE, 2);
  // The tenant schema's own rule for the id, so the two never disagree.
  const id = tenantSchema.shape.tenant.safeParse(name);
  if (!id.success) {
    throw new TenantNewError(
      `"${name}" is not a tenant name: lower case letters, digits and -, starting with a letter (2 to 40 characters)`,
      2,
    );
  }
  const dir = resolve(values.dir);
  const file = join(dir, `${name}.json`);
  const shown = relative(process.cwd(), file) || file;
  if (existsSync(file)) throw new TenantNewError(`${shown} already exists; it is left as it is`);

  const tenant = JSON.parse(readFileSync(TEMPLATE, 'utf8')) as TemplateTenant;
  const schema = relative(dir, SCHEMA);
  tenant.$schema = schema.startsWith('.') ? schema : `./${schema}`;
  tenant.tenant = name;
  tenant.settings.booking_code_prefix = codePrefix(name);
  if (values.company !== undefined) tenant.company.name = values.company;
  if (values.currency !== undefined) Object.assign(tenant.locale, currencyLocale(values.currency));

  const checked = parseTenant(tenant);
  if (!checked.ok) {
    const problems = checked.problems.map((problem) => `  ${problem.path}: ${problem.message}`).join('\n');
    throw new TenantNewError(`the new tenant file would not be valid, so it is not written:\n${problems}`);
  }
  mkdirSync(dir, { recursive: true });
  // `wx`: never overwrite, even a file created since the check above.
  try {
    writeFileSync(file, `${formatJson(tenant)}\n`, { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    throw new TenantNewError(`${shown} already exists; it is left as it is`);
  }
  const whereCdkReads =
    dir === resolve(TENANTS) ? '' : `   (cdk reads infra/tenants/${name}.json: move it there first)`;
  out.stdout(
    [
      `wrote ${shown} (tenant ${name}, booking codes ${tenant.settings.booking_code_prefix}-…)`,
      'next:',
      '  1. edit it: company, locale, items and rates, form, staff accounts, settings.cors_origins (the sites',
      '     that embed the booking widget) and settings.alerts.email (where the alarms go); your editor',
      '     checks it against tenant.schema.json',
      `  2. try it: TENANT_FILE=${shown} npm start`,
      `  3. deploy it: npx cdk deploy -c tenant=${name}${whereCdkReads}`,
      '',
    ].join('\n'),
  );
}

/** `npm run tenant:new -- <args>`: writes the file and says what next; the exit code (0, 1 refused, 2 usage). */
export function runTenantNew(args: string[], out: TenantNewOutput): number {
  try {
    scaffold(args, out);
    return 0;
  } catch (error) {
    if (!(error instanceof TenantNewError)) throw error;
    out.stderr(`${error.message}\n`);
    return error.exitCode;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = runTenantNew(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  });
}
