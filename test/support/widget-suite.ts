import { readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, inject } from 'vitest';
import { type RawTenant, writeTenantFile } from '#test/fixtures/widget-tenants.ts';
import { closeContexts, type Guest, openGuest, workerChromium } from './chromium.ts';
import { stopService } from './local-runner.ts';
import { setPageLocale } from './widget-page.ts';
import { startWidgetService, type WidgetService } from './widget-service.ts';

/** What the tests of one widget test file share: the service they book on and the guests' windows. */
export interface WidgetSuite {
  /** The API's base URL (`http://127.0.0.1:<port>/api/3.0`), once the service listens. */
  readonly apiBase: string;
  /** The service's origin (`http://127.0.0.1:<port>`), where it serves the demo page and the widget. */
  readonly origin: string;
  /** The running service: its output, its data folder and its table. */
  readonly service: WidgetService;
  /**
   * Opens a page with the widget (the demo page served at `/` unless `url` says otherwise) in a window of
   * the given width, closed after the file's tests.
   */
  open: (width: number, options?: GuestOptions) => Promise<Guest>;
}

/** How a guest's window opens, beyond its width: see `openGuest`. */
export type GuestOptions = Partial<Omit<Parameters<typeof openGuest>[1], 'apiBase' | 'width'>>;

/**
 * The tenant the service runs with: a tenant written to a file (made as the service starts when it is a
 * function), or a tenant file as it is.
 */
export type WidgetSuiteTenant = { tenant: RawTenant | (() => RawTenant) } | { tenantFile: string };

/**
 * Starts `npm start` with the tenant (its own table), and the worker's chromium, before the tests of the file
 * that calls it; after them, closes every window the file opened and stops the service.
 */
export function setUpWidgetSuite(
  options: { name: string; env?: Record<string, string> } & WidgetSuiteTenant,
): WidgetSuite {
  let service: WidgetService | undefined;
  let browser: Browser | undefined;
  // A tenant file written here is this file's to remove; a tenant file given is not.
  let writtenTenantFile: string | undefined;

  beforeAll(async () => {
    const tenantFile =
      'tenantFile' in options ? options.tenantFile : writeTenantFile(tenantOf(options), options.name);
    if (!('tenantFile' in options)) writtenTenantFile = tenantFile;
    // The worker's chromium (launched by its first browser file) comes up while the service starts: neither
    // needs the other until a guest opens a page.
    const [started, launched] = await Promise.allSettled([
      startWidgetService({
        dynamoEndpoint: inject('dynamoEndpoint'),
        tenantFile,
        name: options.name,
        ...(options.env ? { env: options.env } : {}),
      }),
      workerChromium(),
    ]);
    // Whatever started is kept, so afterAll stops it even when the other failed.
    if (started.status === 'fulfilled') service = started.value;
    if (launched.status === 'fulfilled') browser = launched.value;
    for (const outcome of [started, launched]) if (outcome.status === 'rejected') throw outcome.reason;
  }, 120_000);

  afterAll(async () => {
    // The windows close before the service stops, so no request of theirs is cut off; the browser stays for
    // the worker's next file.
    if (browser) await closeContexts(browser);
    // The service reads its tenant file as it starts; its DATA_DIR is kept when it may still be in use (a
    // stop that had to SIGKILL).
    if (writtenTenantFile) rmSync(dirname(writtenTenantFile), { recursive: true, force: true });
    if (service && (await stopService(service))) rmSync(service.dataDir, { recursive: true, force: true });
  });

  const started = () => {
    if (!service || !browser) throw new Error(`the widget service "${options.name}" has not started`);
    return { service, browser };
  };

  return {
    get apiBase() {
      return started().service.base;
    },
    get origin() {
      return new URL(started().service.base).origin;
    },
    get service() {
      return started().service;
    },
    open: async (width, openOptions = {}) => {
      const { service, browser } = started();
      const apiBase = service.base;
      const guest = await openGuest(browser, {
        url: `${new URL(apiBase).origin}/`,
        apiBase,
        width,
        ...openOptions,
      });
      setPageLocale(guest.page, localeOf(options));
      return guest;
    },
  };
}

const tenantOf = ({ tenant }: { tenant: RawTenant | (() => RawTenant) }): RawTenant =>
  typeof tenant === 'function' ? tenant() : tenant;

/** The tenant's locale id (`en_CA`), which the widget writes its dates in. */
const localeOf = (options: WidgetSuiteTenant): string =>
  'tenantFile' in options
    ? JSON.parse(readFileSync(options.tenantFile, 'utf8')).locale.id
    : tenantOf(options).locale.id;
