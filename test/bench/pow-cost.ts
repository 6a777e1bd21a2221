import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Challenge } from 'altcha-lib';
import { build } from 'esbuild';
import { DEFAULT_POW } from '#lib/config/limits.ts';
import { issueChallenge, verifyChallenge } from '#lib/sessions/pow.ts';
import { launchChromium } from '#test/support/chromium.ts';

// What the proof-of-work gate costs a guest (issue 27): the widget's own solver (widget/src/pow.ts, ALTCHA's
// solver with WebCrypto PBKDF2), bundled for the browser and run in Debian's Chromium on this machine, on
// challenges issued as the API issues them at the default settings (or POW_COST / POW_MAX_COUNTER).
//
//   npm run bench:pow              20 challenges
//   POW_RUNS=50 npm run bench:pow

const RUNS = Number(process.env.POW_RUNS ?? 20);
const settings = {
  ...DEFAULT_POW,
  cost: Number(process.env.POW_COST ?? DEFAULT_POW.cost),
  max_counter: Number(process.env.POW_MAX_COUNTER ?? DEFAULT_POW.max_counter),
};
const say = (line: string) => process.stdout.write(`${line}\n`);
const KEYS = [{ secret: 'pow-cost-measurement-key-0123456789abcdef' }];
const binding = { session: '', client: '203.0.113.1' };

async function main() {
  const bundle = await build({
    stdin: {
      contents: `import { solveAltcha } from './pow.ts'; globalThis.solveAltcha = solveAltcha;`,
      resolveDir: fileURLToPath(new URL('../../widget/src/', import.meta.url)),
      loader: 'ts',
    },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: ['es2022'],
    minify: true,
    write: false,
  });
  const script = bundle.outputFiles[0]?.text ?? '';
  // WebCrypto needs a secure context: a page of 127.0.0.1 is one, as the guest's HTTPS page is.
  const server = createServer((_, response) => {
    response.setHeader('content-type', 'text/html; charset=utf-8');
    response.end(`<!doctype html><title>pow</title><script>${script}</script>`);
  }).listen(0, '127.0.0.1');
  await new Promise((ready) => server.once('listening', ready));
  const browser = await launchChromium();
  const times: number[] = [];
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    for (let run = 0; run < RUNS; run += 1) {
      const challenge = await issueChallenge({
        keys: KEYS,
        settings,
        binding,
        counters: ['3|20270705'],
        now: Date.now(),
      });
      const solved = await page.evaluate(async (sent: Challenge) => {
        const started = performance.now();
        const payload = await (globalThis as any).solveAltcha(sent);
        return { payload: payload as string | undefined, ms: performance.now() - started };
      }, challenge);
      if (!solved.payload) throw new Error('the widget solver found no solution');
      const verified = await verifyChallenge({
        keys: KEYS,
        payload: solved.payload,
        binding,
        now: Date.now(),
      });
      if ('refused' in verified) throw new Error(`the server refused the solution: ${verified.refused}`);
      times.push(solved.ms);
    }
  } finally {
    await browser.close();
    server.close();
  }
  const sorted = [...times].sort((a, b) => a - b);
  const at = (share: number) => sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0;
  const mean = times.reduce((sum, ms) => sum + ms, 0) / times.length;
  const ms = (value: number) => `${Math.round(value)} ms`;
  say(
    `PoW cost in Chromium (${RUNS} challenges, PBKDF2/SHA-256 cost ${settings.cost}, answer in [${Math.floor(settings.max_counter / 2)}, ${settings.max_counter}]): ` +
      `mean ${ms(mean)}, median ${ms(at(0.5))}, p90 ${ms(at(0.9))}, max ${ms(sorted.at(-1) ?? 0)}; every solution verified by the server`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`pow cost failed: ${(error as Error).stack}\n`);
  process.exit(1);
});
