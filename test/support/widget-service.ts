import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningService, startService } from './local-runner.ts';

// The `npm start` the widget tests run against, and the calls they make to its API themselves: as staff,
// or as another guest holding stock.

/** The staff credential the widget tests start `npm start` with. */
export const STAFF = { key: 'widget-e2e-key-0001', secret: 'widget-e2e-secret-0001-long-enough' };

/** A running `npm start` of the widget tests, with where it keeps its data and its table. */
export type WidgetService = RunningService & { dataDir: string; tableName: string };

/**
 * Starts `npm start` on a free port with its own table, the test staff credential and a tenant file, and
 * `env` beside (the tests of payments clear the shell's Stripe keys, so the local stand-in is used).
 */
export async function startWidgetService(options: {
  dynamoEndpoint: string;
  tenantFile: string;
  name: string;
  env?: Record<string, string>;
}): Promise<WidgetService> {
  const dataDir = mkdtempSync(join(tmpdir(), `widget-${options.name}-data-`));
  const tableName = `widget-${options.name}-${randomUUID()}`;
  const service = await startService({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DYNAMODB_ENDPOINT: options.dynamoEndpoint,
    TABLE_NAME: tableName,
    ADMIN_API_KEY: STAFF.key,
    ADMIN_API_SECRET: STAFF.secret,
    TENANT_FILE: options.tenantFile,
    SWEEP_INTERVAL_MS: '1000',
    ...options.env,
  });
  return { ...service, dataDir, tableName };
}

/** A call to the API with the test staff credential. */
export async function staffGet(apiBase: string, path: string): Promise<any> {
  const response = await fetch(`${apiBase}/${path}`, {
    headers: { Authorization: `Basic ${Buffer.from(`${STAFF.key}:${STAFF.secret}`).toString('base64')}` },
  });
  return response.json();
}

/** Adds an item to a cart through the API (another guest holding stock), returning the session id. */
export async function holdThroughApi(apiBase: string, itemId: number, start: string, end: string) {
  const rated: any = await (
    await fetch(`${apiBase}/item/${itemId}?start_date=${start}&end_date=${end}`)
  ).json();
  const slip = rated?.item?.rate?.slip;
  if (!slip)
    throw new Error(`item ${itemId} is not bookable ${start}..${end}: ${JSON.stringify(rated?.item?.rate)}`);
  const response = await fetch(`${apiBase}/booking/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ 'slip[]': slip }).toString(),
  });
  const json: any = await response.json();
  if (response.status !== 200) throw new Error(`holding item ${itemId} failed: ${JSON.stringify(json)}`);
  return json.booking.session.id as string;
}
