import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';

// Usage: npm run lighthouse -- [--runs N] [--path /book?item=1 | --path /manage]
// Starts `npm start` on a free port with a fresh data folder, then runs Lighthouse (its default mobile
// profile: a mid-range phone, simulated slow 4G and CPU) on the booking page N times (default 3) with
// Debian's Chromium, and prints each run's scores and the median. Writes lighthouse-results.json
// (git-ignored). A measurement, not a test: the scores depend on the machine's load. `--path /manage`
// books a kayak of the demo tenant through the API first and measures the guest's page of that booking (its
// `manage_url`, with the token).

const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;

const argument = (name: string): string | undefined => {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? undefined : process.argv[index + 1];
};

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });

async function startService(port: number): Promise<ChildProcess> {
  const child = spawn('npm', ['start'], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'lighthouse-')),
      ADMIN_API_KEY: 'lighthouse',
      ADMIN_API_SECRET: 'lighthouse-secret-0123456789',
    },
  });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`npm start did not listen:\n${output}`)), 120_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('listening on')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.on('exit', () => reject(new Error(`npm start exited:\n${output}`)));
  });
  return child;
}

/** Books the demo's kayak 40 days ahead as a guest, and answers the path of its guest's page (`/manage?…`). */
async function manageLink(origin: string): Promise<string> {
  const api = `${origin}/api/3.0`;
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const rated = (await (await fetch(`${api}/item/3?start_date=${day(40)}&end_date=${day(41)}`)).json()) as {
    item?: { rate?: { slip?: string } };
  };
  const slip = rated.item?.rate?.slip;
  if (!slip) throw new Error(`the demo kayak is not bookable: ${JSON.stringify(rated)}`);
  const form = (fields: Record<string, string>) => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  const session = (await (await fetch(`${api}/booking/session`, form({ 'slip[]': slip }))).json()) as {
    booking: { session: { id: string } };
  };
  const created = (await (
    await fetch(
      `${api}/booking/create`,
      form({
        session_id: session.booking.session.id,
        'form[customer_name]': 'Lighthouse Guest',
        'form[customer_email]': 'lighthouse@example.com',
      }),
    )
  ).json()) as { booking: { manage_url?: string } };
  if (!created.booking.manage_url) throw new Error(`no manage_url: ${JSON.stringify(created)}`);
  const link = new URL(created.booking.manage_url);
  return `${link.pathname}${link.search}`;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

async function main(): Promise<void> {
  const runs = Number(argument('runs') ?? 3);
  const asked = argument('path') ?? '/book';
  const port = await freePort();
  const service = await startService(port);
  const origin = `http://127.0.0.1:${port}`;
  const path =
    asked === '/manage'
      ? await manageLink(origin).catch((error: unknown) => {
          if (service.pid) process.kill(-service.pid, 'SIGTERM');
          throw error;
        })
      : asked;
  const url = `${origin}${path}`;
  const results: Array<Record<string, number>> = [];
  try {
    for (let run = 1; run <= runs; run += 1) {
      const chrome = await chromeLauncher.launch({
        chromePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
        chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu'],
      });
      try {
        const answer = await lighthouse(url, {
          port: chrome.port,
          output: 'json',
          logLevel: 'error',
          onlyCategories: [...CATEGORIES],
        });
        const lhr = answer?.lhr;
        if (!lhr) throw new Error('Lighthouse gave no result');
        const scores: Record<string, number> = {};
        for (const id of CATEGORIES) scores[id] = Math.round((lhr.categories[id]?.score ?? 0) * 100);
        scores.lcp_ms = Math.round(lhr.audits['largest-contentful-paint']?.numericValue ?? 0);
        scores.cls = Number((lhr.audits['cumulative-layout-shift']?.numericValue ?? 0).toFixed(3));
        scores.tbt_ms = Math.round(lhr.audits['total-blocking-time']?.numericValue ?? 0);
        results.push(scores);
        const failing = Object.values(lhr.audits)
          .filter(
            (audit) => audit.score !== null && audit.score < 1 && audit.scoreDisplayMode !== 'informative',
          )
          .map((audit) => {
            const items = (audit.details as { items?: Array<{ url?: string }> } | undefined)?.items ?? [];
            const origin = new URL(url).origin;
            const urls = items.flatMap((item) => (item.url ? [item.url.replace(origin, '')] : []));
            return `${audit.id} ${audit.score}${urls.length ? ` (${urls.join(' ')})` : ''}`;
          });
        process.stdout.write(`run ${run}: ${JSON.stringify(scores)}\n  below 1: ${failing.join(', ')}\n`);
      } finally {
        chrome.kill();
      }
    }
  } finally {
    if (service.pid) process.kill(-service.pid, 'SIGTERM');
  }
  const summary = Object.fromEntries(
    Object.keys(results[0] ?? {}).map((key) => [key, median(results.map((result) => result[key] ?? 0))]),
  );
  const record = {
    date: new Date().toISOString(),
    // The token is the booking's key: the record names the page only.
    url: path.split('?')[0],
    lighthouse: '12.2.3',
    profile: 'mobile (default: simulated slow 4G, 4x CPU slowdown)',
    runs: results,
    median: summary,
  };
  writeFileSync('lighthouse-results.json', `${JSON.stringify(record, null, 2)}\n`);
  process.stdout.write(`median of ${results.length}: ${JSON.stringify(summary)}\n`);
}

await main();
