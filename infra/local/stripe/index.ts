import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Stripe from 'stripe';
import { StripeApi } from './api.ts';
import { handleControl, StandInControls } from './controls.ts';
import { Ledger } from './ledger.ts';
import { sweepExpired } from './operations.ts';
import { handlePage, PAGE_PATH } from './page.ts';
import { newId, StateStore } from './state.ts';
import { DEFAULT_RETRY, type RetryPolicy, WebhookSender } from './webhooks.ts';

export type { ApiFault } from './api.ts';
export type { RetryPolicy, WebhookFaults } from './webhooks.ts';

/** How to run the stand-in; everything has a default fit for a test. */
export interface StripeStandInOptions {
  host?: string;
  /** 0 (the default) takes a free port. */
  port?: number;
  /** Where guests reach it, the base of each session's `url` (default: its own address). */
  publicUrl?: string;
  /** Keeps the state in `<dataDir>/stripe-stand-in.json` across restarts; without it, state is in memory. */
  dataDir?: string;
  /** The `sk_test_` key callers must send (default: kept in the state, made on first start). */
  secretKey?: string;
  /** The `whsec_` secret every endpoint's deliveries are signed with (default: kept, made on first start). */
  webhookSecret?: string;
  /** Where events are posted. */
  webhookUrls?: string[];
  retry?: Partial<RetryPolicy>;
  /** How often open sessions are checked against their deadline (they are on every read too). */
  expiryIntervalMs?: number;
  /** `api_version` of the events (default: the version the `stripe` SDK pins). */
  apiVersion?: string;
}

/** A running stand-in: where it is, its keys, its test controls, and how to stop it. */
export interface StripeStandIn {
  /** The API base (`STRIPE_API_BASE`): `http://host:port`. */
  url: string;
  secretKey: string;
  webhookSecret: string;
  /** Pay, decline, advance the clock, faults (the same as `/_standin/*` over HTTP). */
  controls: StandInControls;
  stop(): Promise<void>;
}

/** The most a request body may be: Stripe's own limit is far above anything the service sends. */
/** How long an idle kept-alive connection stays open (Node's default is 5 s). */
const KEEP_ALIVE_MS = 65_000;
const MAX_BODY = 1024 * 1024;

type App = { ledger: Ledger; api: StripeApi; controls: StandInControls; secretKey: string };

function route(app: App, request: IncomingMessage, response: ServerResponse, body: string): void {
  const path = new URL(request.url ?? '/', 'http://stand-in').pathname;
  const page = PAGE_PATH.exec(path);
  if (path.startsWith('/v1/')) app.api.handle(request, response, body);
  else if (page?.[1]) handlePage(app.ledger, request, response, body, page[1]);
  else if (path.startsWith('/_standin/')) {
    // The controls answer to the API key: only the service's own tests and soak may drive them.
    if ((request.headers.authorization ?? '') !== `Bearer ${app.secretKey}`) {
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } }),
      );
    } else handleControl(app.controls, request, response, body);
  } else {
    response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    response.end('Not found\n');
  }
}

/** Starts the local stand-in for Stripe on loopback (issue 43's subset; docs/payments-stand-in.md). */
export async function startStripeStandIn(options: StripeStandInOptions = {}): Promise<StripeStandIn> {
  const store = new StateStore(options.dataDir ? join(options.dataDir, 'stripe-stand-in.json') : undefined);
  const keys = store.state;
  keys.secretKey = options.secretKey ?? keys.secretKey ?? newId('sk_test_', 40);
  keys.webhookSecret = options.webhookSecret ?? keys.webhookSecret ?? newId('whsec_', 32);
  const { secretKey, webhookSecret } = keys;

  let app: App | undefined;
  const host = options.host ?? '127.0.0.1';
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    request.on('end', () => {
      if (!app) {
        response.writeHead(503).end();
        return;
      }
      if (size > MAX_BODY) {
        response.writeHead(413, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({ error: { type: 'invalid_request_error', message: 'Request body too large.' } }),
        );
        return;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        route(app, request, response, body);
      } catch (error) {
        // A bug of the stand-in answers as Stripe's own outages do, and never stops the process.
        process.stderr.write(
          `stripe stand-in: ${request.method} ${request.url}: ${(error as Error).stack ?? String(error)}\n`,
        );
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { type: 'api_error', message: 'An unknown error occurred' } }));
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // A client that pauses (a test process busy parsing Stripe's schemas, a person on the page) keeps its
    // connection: after Node's 5 s default the server closed sockets the client had not yet seen close, and
    // its next request on one failed with ECONNRESET. stop() closes every connection itself.
    server.keepAliveTimeout = KEEP_ALIVE_MS;
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  const endpoints = (options.webhookUrls ?? []).map((target) => ({ url: target, secret: webhookSecret }));
  const sender = new WebhookSender(() => ledger, endpoints, { ...DEFAULT_RETRY, ...options.retry });
  const ledger: Ledger = new Ledger({
    store,
    baseUrl: options.publicUrl?.replace(/\/$/, '') ?? url,
    apiVersion: options.apiVersion ?? Stripe.API_VERSION,
    endpointCount: () => sender.endpointCount,
    onEvent: (event) => sender.enqueue(event),
  });
  const api = new StripeApi(ledger, secretKey);
  const controls = new StandInControls(ledger, api, sender);
  app = { ledger, api, controls, secretKey };
  store.save();
  sender.start();
  const sweep = setInterval(() => {
    if (sweepExpired(ledger) > 0) store.save();
  }, options.expiryIntervalMs ?? 1000);
  sweep.unref();

  const stop = async () => {
    clearInterval(sweep);
    await sender.stop();
    // Hanging answers (a fault) hold their sockets open: close them rather than wait for the clients.
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    store.save();
    store.compact();
  };
  return { url, secretKey, webhookSecret, controls, stop };
}
