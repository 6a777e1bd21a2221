import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startStripeStandIn } from '#infra/local/stripe/index.ts';

// The payment provider of the benchmark (issue 43): the local stand-in for Stripe, in a process of its own so
// its CPU is neither the runner's nor the load's, behind a proxy that counts the API calls it is asked (the
// provider's calls per request). `GET /_bench/calls` answers the counts so far; everything else is passed on.
// Keys from BENCH_STRIPE_SECRET_KEY and BENCH_STRIPE_WEBHOOK_SECRET; prints `listening on <proxy>`.

const standIn = await startStripeStandIn({
  secretKey: process.env.BENCH_STRIPE_SECRET_KEY ?? '',
  webhookSecret: process.env.BENCH_STRIPE_WEBHOOK_SECRET ?? '',
  // Its events are posted by the benchmark, signed as Stripe signs them, when it chooses: none by the stand-in.
  webhookUrls: [],
});
const target = new URL(standIn.url);

/** API calls by method and path, each object id in the path written `{id}`. */
const calls: Record<string, number> = {};
const callOf = (method: string, url: string) =>
  `${method} ${new URL(url, 'http://stand-in').pathname.replace(/\/(cs|pi|ch|re|evt)_[^/]+/g, '/{id}')}`;

const proxy = createServer((incoming, outgoing) => {
  const url = incoming.url ?? '/';
  if (url === '/_bench/calls') {
    outgoing.writeHead(200, { 'content-type': 'application/json' });
    outgoing.end(JSON.stringify({ calls }));
    return;
  }
  if (url.startsWith('/v1/')) {
    const call = callOf(incoming.method ?? 'GET', url);
    calls[call] = (calls[call] ?? 0) + 1;
  }
  const forward = request(
    {
      host: target.hostname,
      port: target.port,
      method: incoming.method,
      path: url,
      headers: incoming.headers,
    },
    (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    },
  );
  forward.on('error', (error) => outgoing.destroy(error));
  incoming.pipe(forward);
});
await new Promise<void>((listening) => proxy.listen(0, '127.0.0.1', listening));
process.stdout.write(`listening on http://127.0.0.1:${(proxy.address() as AddressInfo).port}\n`);

const stop = async () => {
  proxy.closeAllConnections();
  proxy.close();
  await standIn.stop();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
