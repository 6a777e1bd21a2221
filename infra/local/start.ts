import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { createChannelSync } from '#functions/channels/round-job.ts';
import { createAllHandlers } from '#functions/index.ts';
import { createSweeper } from '#functions/sweeper/job.ts';
import { createDispatcher } from '#functions/webhooks/job.ts';
import {
  CredentialAdminError,
  createCredential,
  ensureCredential,
  getCredential,
} from '#lib/access/index.ts';

import { fetchFeed } from '#lib/channels/index.ts';
import type { Tenant } from '#lib/config/index.ts';
import { writeTenant } from '#lib/housekeeping/index.ts';
import { CORS_ALLOW_HEADERS, CORS_EXPOSE_HEADERS } from '#lib/http/cors.ts';
import { DEFAULT_PUBLIC_URL, parsePublicUrl } from '#lib/http/public-url.ts';
import { createDb, type Db } from '#lib/kernel/storage/database.ts';
import { ensureTable } from '#lib/kernel/storage/table-admin.ts';
import { generateSlipSecret, parseSlipKeys } from '#lib/slip/index.ts';
import { createFileSecretStore, ensureEndpointSecrets } from '#lib/webhooks/index.ts';

import { buildWidget } from '#widget/build.ts';
import { WIDGET_DIST, WIDGET_FILE, WIDGET_MAX_GZIP_BYTES } from '#widget/files.ts';
import { acquireDataDirLock, type DataDirLock, DataDirLockedError } from './data-dir-lock.ts';
import { demoPage } from './demo-page.ts';
import { hasJava, JAVA_MISSING, type LocalDynamo, startLocalDynamo } from './dynamodb.ts';
import { createGateway } from './gateway.ts';
import { type LocalPayments, localPayments } from './payments.ts';
import { listNodeAncestors, watchProcesses } from './processes.ts';
import {
  connectionFile,
  defaultTableName,
  localSettings,
  readTenantFile,
  TenantFileError,
  webhookSecretsFile,
} from './settings.ts';
import { recordUsage } from './usage-file.ts';

const say = (line: string) => process.stdout.write(`${line}\n`);

/**
 * The staff credential of `npm start`: from ADMIN_API_KEY/SECRET, or generated once and kept in DATA_DIR.
 * A revoked key stays revoked: a configured one is left out (the service still starts), a generated one
 * is replaced by a new one as on a first start.
 */
async function ensureAdminCredential(db: Db, tenant: Tenant, settings: ReturnType<typeof localSettings>) {
  const account = tenant.accounts.find((entry) => entry.enabled);
  if (!account) throw new Error('The tenant file has no enabled staff account');
  const now = Date.now();
  const isRevoked = (error: unknown) => error instanceof CredentialAdminError && error.code === 'revoked';
  if (settings.adminKey && settings.adminSecret) {
    try {
      await ensureCredential(db, {
        key: settings.adminKey,
        secret: settings.adminSecret,
        accountId: account.account_id,
        onBehalf: true,
        label: 'ADMIN_API_KEY',
        now,
      });
      say(`admin credential: ADMIN_API_KEY ${settings.adminKey} (account ${account.account_id})`);
    } catch (error) {
      // The service still starts: other credentials keep working, and the operator sees why this one does not.
      if (!isRevoked(error)) throw error;
      say(`ADMIN_API_KEY ${settings.adminKey} was revoked and stays revoked; set another key`);
    }
    return;
  }
  const file = join(settings.dataDir, 'admin-credential.json');
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { key: string; secret: string };
    if (await getCredential(db, saved.key)) {
      try {
        await ensureCredential(db, {
          ...saved,
          accountId: account.account_id,
          onBehalf: true,
          label: 'generated admin',
          now,
        });
        say(`admin credential: key ${saved.key}, secret in ${file}`);
        return;
      } catch (error) {
        if (!isRevoked(error)) throw error;
        say(`admin credential ${saved.key} in ${file} was revoked; creating a new one`);
      }
    }
  }
  const created = await createCredential(db, {
    accountId: account.account_id,
    onBehalf: true,
    label: 'generated admin',
    now,
  });
  // writeFileSync's mode applies only to a new file: an existing one (a replaced credential) is chmodded.
  writeFileSync(file, `${JSON.stringify(created, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  say(`admin credential created (kept in ${file}): key ${created.key} secret ${created.secret}`);
}

/** SLIP keys from SLIP_KEYS, or generated once and kept in DATA_DIR (so SLIPs survive a restart). */
function loadLocalSlipKeys(dataDir: string) {
  if (process.env.SLIP_KEYS) return parseSlipKeys(process.env.SLIP_KEYS);
  const file = join(dataDir, 'slip-keys.txt');
  if (!existsSync(file)) writeFileSync(file, `${generateSlipSecret()}\n`, { mode: 0o600 });
  return parseSlipKeys(readFileSync(file, 'utf8'));
}

/**
 * Builds the widget into widget/dist and says how big it is. The file is built aside and renamed into
 * place, so another `npm start` (tests run several) never serves a half-written one. A failed build is
 * reported and the API still starts: only the widget and the demo site need it.
 */
async function buildLocalWidget(): Promise<void> {
  let aside: string | undefined;
  try {
    mkdirSync(WIDGET_DIST, { recursive: true });
    aside = mkdtempSync(join(WIDGET_DIST, '.build-'));
    const built = await buildWidget(aside);
    // Each file replaces its old copy in one step: a page loading meanwhile gets the old or the new one.
    for (const name of built.names) renameSync(join(aside, name), join(WIDGET_DIST, name));
    const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
    const over = built.gzipBytes > WIDGET_MAX_GZIP_BYTES ? ', OVER its budget' : '';
    say(
      `widget built: /widget/${WIDGET_FILE}, ${kb(built.gzipBytes)} gzipped (budget ${kb(WIDGET_MAX_GZIP_BYTES)}${over})`,
    );
  } catch (error) {
    const reason = (error as Error).message.replace(/\s+/g, ' ').slice(0, 500);
    process.stderr.write(
      `widget build failed (the API still serves; the widget and demo site will not): ${reason}\n`,
    );
  } finally {
    if (aside) rmSync(aside, { recursive: true, force: true });
  }
}

/** Runs a job every `ms`, never two runs at once, reporting a failed run and going on. */
function every(ms: number, job: () => Promise<unknown>, name: string): NodeJS.Timeout {
  let running = false;
  return setInterval(() => {
    if (running || stopping) return;
    running = true;
    job()
      .catch((error: unknown) => process.stderr.write(`${name} failed: ${(error as Error).message}\n`))
      .finally(() => {
        running = false;
      });
  }, ms);
}

let dynamo: LocalDynamo | undefined;
let payments: LocalPayments | undefined;
let lock: DataDirLock | undefined;
let stopping = false;
const timers: NodeJS.Timeout[] = [];
const server = { current: undefined as ReturnType<typeof createGateway> | undefined };
const publicUrl = { current: DEFAULT_PUBLIC_URL };

/** The runner's own base URL; a wildcard listening address is reached as the loopback one. */
const ownUrl = (host: string, port: number): string => {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
};

/** How long requests in flight may take to finish once the runner is told to stop. */
const SHUTDOWN_GRACE_MS = 2_000;

/** Stops serving, the sweeper and DynamoDB Local (no Java process is left behind), then exits. */
async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  for (const timer of timers) clearInterval(timer);
  const closed = new Promise<void>((done) =>
    server.current?.listening ? server.current.close(() => done()) : done(),
  );
  // Clients that keep sending on kept-alive connections would hold close() open for as long as they
  // send (the soak saw a busy runner take minutes to stop): idle ones go now, and requests in flight get a
  // moment to finish before every connection is closed.
  server.current?.closeIdleConnections();
  const grace = setTimeout(() => server.current?.closeAllConnections(), SHUTDOWN_GRACE_MS);
  await closed;
  clearTimeout(grace);
  server.current?.closeAllConnections();
  await payments?.stop();
  await dynamo?.stop();
  // Only the holder of DATA_DIR's lock owns its files: a start refused for want of it touches nothing.
  if (lock) rmSync(connectionFile(localSettings().dataDir), { force: true });
  lock?.release();
  process.exit(code);
}

/**
 * Takes DATA_DIR's lock, or exits saying which `npm start` holds it, before anything reads or writes the
 * data (two DynamoDB Locals on one directory corrupt it, and the credential and keys live there too).
 */
function lockDataDir(dataDir: string): DataDirLock {
  try {
    const taken = acquireDataDirLock(dataDir);
    // An exit that skips shutdown (process.exit elsewhere, an uncaught error) still lets go of it.
    process.once('exit', () => taken.release());
    const stale = taken.takenOver;
    if (stale && 'pid' in stale) {
      say(
        `took over the stale lock ${taken.file} of npm start pid ${stale.pid} (started ${stale.started_at}), which no longer runs`,
      );
    } else if (stale) say(`took over the unreadable lock ${taken.file}`);
    return taken;
  } catch (error) {
    if (!(error instanceof DataDirLockedError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}

async function main(): Promise<void> {
  const settings = localSettings();
  let tenant: Tenant;
  try {
    tenant = readTenantFile(settings.tenantFile);
  } catch (error) {
    if (error instanceof TenantFileError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  if (!settings.dynamoEndpoint && !hasJava()) {
    process.stderr.write(`${JAVA_MISSING}\n`);
    process.exit(1);
  }
  mkdirSync(settings.dataDir, { recursive: true });
  lock = lockDataDir(settings.dataDir);
  // Built while DynamoDB Local starts; awaited before listening.
  const widgetBuilt = buildLocalWidget();

  // `on`, not `once`: a signal sent to the whole group (Ctrl-C, the tests' SIGTERM) reaches tsx's launcher
  // too, which sends it again when it missed this process's acknowledgement, and a process no longer
  // listening for it is then ended in the middle of its shutdown (lock and connection file left behind).
  // shutdown() runs only once.
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
  process.on('SIGHUP', () => void shutdown(0));
  // npm start runs as npm → tsx → this process. A SIGKILL of npm or tsx would leave this one serving,
  // orphaned, with its Java and the lock: stop as soon as one of them is gone.
  timers.push(
    watchProcesses(listNodeAncestors(), (pid) => {
      process.stderr.write(`the process npm start runs under (pid ${pid}) is gone; stopping\n`);
      void shutdown(1);
    }),
  );

  if (!settings.dynamoEndpoint) {
    dynamo = await startLocalDynamo({ dataDir: join(settings.dataDir, 'dynamodb') });
    dynamo.process.once('exit', (code) => {
      if (!stopping) {
        process.stderr.write(`DynamoDB Local stopped unexpectedly (code ${code})\n`);
        void shutdown(1);
      }
    });
  }
  const endpoint = settings.dynamoEndpoint ?? (dynamo as LocalDynamo).endpoint;
  const tableName = settings.tableName ?? defaultTableName(tenant.tenant);
  const db = createDb({ endpoint, tableName });
  await ensureTable(db);
  const summary = await writeTenant(db, tenant, Date.now());
  say(
    `tenant ${tenant.tenant} loaded into ${tableName}: ${summary.items} items, ${summary.accounts} accounts`,
  );
  const webhookSecrets = createFileSecretStore(webhookSecretsFile(settings.dataDir));
  const created = await ensureEndpointSecrets(
    webhookSecrets,
    tenant.webhooks.map((webhook) => webhook.id),
  );
  if (created.length)
    say(`webhook secrets created for ${created.join(', ')} (npm run webhooks -- secret <id>)`);
  await ensureAdminCredential(db, tenant, settings);
  writeFileSync(connectionFile(settings.dataDir), `${JSON.stringify({ endpoint, tableName })}\n`);

  const slipKeys = loadLocalSlipKeys(settings.dataDir);
  // A bad PUBLIC_URL stops the start here, before anything listens.
  const configuredUrl = settings.publicUrl ? parsePublicUrl(settings.publicUrl) : undefined;
  // Only the handlers' calls are counted: the sweeper and the webhook dispatcher are not the request path.
  const usage = settings.usageFile ? recordUsage(settings.usageFile) : undefined;
  payments = localPayments({ tenant, dataDir: settings.dataDir });
  const handlers = createAllHandlers({
    payments: payments.payments,
    db: usage ? createDb({ endpoint, tableName, instrument: usage.instrument }) : db,
    provider: 'local',
    // Feeds may be local files served over http here (a second runner, a test server).
    feedPolicy: 'local',
    ...(settings.channelReadBudgetMs ? { feedReadBudgetMs: settings.channelReadBudgetMs } : {}),
    slipKeys: async () => slipKeys,
    trustedProxies: settings.trustedProxies,
    // Links (the invoice URL) are built on the runner's own address, known once it listens, never on
    // the Host or X-Forwarded-* headers a client sends.
    publicUrl: () => publicUrl.current,
  });
  server.current = createGateway({
    handlers: usage ? usage.count(handlers) : handlers,
    cors: {
      origins: tenant.settings.cors_origins,
      headers: CORS_ALLOW_HEADERS,
      exposeHeaders: CORS_EXPOSE_HEADERS,
      methods: ['GET', 'POST', 'OPTIONS'],
      maxAgeSeconds: 600,
    },
    // The demo site is local only: a tenant stack deploys the widget, never a sample site.
    pages: { '/': demoPage(tenant) },
  });
  timers.push(every(settings.sweepIntervalMs, createSweeper({ db, payments: payments.payments }), 'sweep'));
  timers.push(
    every(
      settings.channelSyncIntervalMs,
      createChannelSync({
        db,
        fetchFeed,
        policy: 'local',
        ...(settings.channelReadBudgetMs ? { readBudgetMs: settings.channelReadBudgetMs } : {}),
      }),
      'channel sync',
    ),
  );
  timers.push(
    every(
      settings.webhookIntervalMs,
      createDispatcher({ db, secrets: webhookSecrets, policy: 'local' }),
      'webhook dispatch',
    ),
  );
  await widgetBuilt;
  await new Promise<void>((done) => server.current?.listen(settings.port, settings.host, done));
  // PORT=0 picks a free port: say the one the system chose.
  const address = server.current?.address();
  const port = typeof address === 'object' && address ? address.port : settings.port;
  publicUrl.current = configuredUrl ?? ownUrl(settings.host, port);
  // The stand-in posts its events to this runner, on its own address (not PUBLIC_URL, which may be a proxy's).
  const started = await payments.start(`${ownUrl(settings.host, port)}/api/3.0/payment/stripe/webhook`);
  if (started) say(started);
  say(`listening on http://${settings.host}:${port}/api/3.0`);
  say(`demo site: http://${settings.host}:${port}/`);
}

main().catch((error: unknown) => {
  process.stderr.write(`npm start failed: ${(error as Error).message}\n`);
  void shutdown(1);
});
