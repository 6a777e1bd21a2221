import { randomInt } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { auditMoney } from './audit-money.ts';
import { auditWebhooks } from './audit-webhooks.ts';
import {
  type AuditResult,
  auditAnswers,
  auditBookings,
  auditLeaks,
  auditUnits,
  type FaultWindow,
  scanEntities,
} from './audits.ts';
import { startChannelFeeds } from './channel-feeds.ts';
import { controlVerdict, plant } from './control.ts';
import { summariseChanges } from './manage-traffic.ts';
import { apiFails, apiRecovers, drainDeliveries, readProviderMoney, webhookFaults } from './provider.ts';
import { readRecordedEvents } from './read-recorded-events.ts';
import { startSoakReceiver } from './receiver.ts';
import { soakTenant } from './tenant.ts';
import { call, emptyLedger, guest, type Ledger, seeded, staff } from './traffic.ts';
import { type SoakWorld, startWorld } from './world.ts';

// npm run soak: mixed traffic against the local runner for --minutes (10 by default; --quick about 90 s),
// guests paying deposits on its stand-in for Stripe, channel feeds that change as it runs, with faults on a
// schedule (the runner and DynamoDB Local killed and restarted, the webhook receiver down then hanging, the
// sweeper stopped past a hold, a burst over the client limits; the provider's webhooks delayed, duplicated and
// reordered, its API answering 500 then hanging), then a drain and the audits of the committed data. --control plants one failure of each kind the audits look for, and the run
// passes only if every audit names its plant. --seed replays a run's traffic. Writes soak-results.json.

const { values } = parseArgs({
  options: {
    minutes: { type: 'string' },
    quick: { type: 'boolean', default: false },
    control: { type: 'boolean', default: false },
    seed: { type: 'string' },
    concurrency: { type: 'string', default: '6' },
    // Traffic and audits alone: the control test's short run, where only the plants matter.
    'no-faults': { type: 'boolean', default: false },
  },
});
const QUICK = values.quick;
const SECONDS = values.minutes ? Number(values.minutes) * 60 : QUICK ? 90 : 600;
const SEED = values.seed ? Number(values.seed) : randomInt(1, 2 ** 31);
const CONCURRENCY = Number(values.concurrency);
// A hold lasts 15 s in a quick run, a minute otherwise: long enough to book, short enough to expire often.
const HOLD_MINUTES = QUICK ? 0.25 : 1;
const say = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((wake) => setTimeout(wake, ms));

/** The carts that hold stock now (expired or not); DynamoDB Local down counts as one, to wait for it. */
async function holdingCarts(world: SoakWorld): Promise<number> {
  try {
    const sessions = await scanEntities(world.db, ['session']);
    return sessions.filter(
      (session) => session.status === 'open' && Object.keys((session.holds ?? {}) as object).length > 0,
    ).length;
  } catch {
    return 1;
  }
}

/** Waits until a staff read (which reads the table) answers 200, and answers when it did. */
async function firstGoodAnswer(world: SoakWorld, ledger: Ledger): Promise<number> {
  for (;;) {
    const answer = await call(ledger, {
      base: world.base,
      route: 'probe',
      path: 'booking?limit=1',
      headers: {
        authorization: `Basic ${Buffer.from('soak-admin:soak-admin-secret-0123456789').toString('base64')}`,
      },
      patienceMs: 0,
    });
    if (answer.status === 200) return Date.now();
    await sleep(200);
  }
}

async function main(): Promise<number> {
  say(`soak: seed ${SEED}, ${SECONDS} s, concurrency ${CONCURRENCY}${values.control ? ', control run' : ''}`);
  const dir = mkdtempSync(join(tmpdir(), 'soak-'));
  const receiver = await startSoakReceiver();
  const feeds = await startChannelFeeds(seeded(SEED - 1));
  const tenant = soakTenant(receiver.url, feeds.base);
  tenant.settings.hold_minutes = HOLD_MINUTES;
  const world = await startWorld({ dir, tenant });
  const ledger = emptyLedger();
  const probes = emptyLedger();
  const windows: FaultWindow[] = [];
  const started = Date.now();
  const endsAt = started + SECONDS * 1000;
  let longestPastExpiry = 0;
  try {
    // The traffic: CONCURRENCY actors, each a guest (most of the time) or staff, from many addresses.
    const actor = async (index: number) => {
      const own = seeded(SEED + index);
      while (Date.now() < endsAt) {
        const address = `203.0.113.${1 + own.int(250)}`;
        if (own.chance(0.85))
          await guest(ledger, { base: world.base, standIn: world.standIn, random: own, address });
        else await staff(ledger, world.base, own);
      }
    };
    // The faults, each at its share of the run.
    const at = (share: number) => started + SECONDS * 1000 * share;
    const until = async (time: number) => {
      const wait = time - Date.now();
      if (wait > 0) await sleep(wait);
    };
    const fault = async (name: string, share: number, inject: () => Promise<void>) => {
      await until(at(share));
      const startedAt = Date.now();
      say(`  fault at ${Math.round((startedAt - started) / 1000)} s: ${name}`);
      await inject();
      const recoveredAt = await firstGoodAnswer(world, probes);
      windows.push({ name, startedAt, recoveredAt });
      say(`    recovered in ${((recoveredAt - startedAt) / 1000).toFixed(1)} s`);
    };
    const receiverDown = QUICK ? 15_000 : 120_000;
    const sweeperStopped = (HOLD_MINUTES * 60 + 20) * 1000;
    const faults = async () => {
      await fault('runner killed (SIGKILL) and restarted', 0.15, async () => {
        world.killRunner();
        await sleep(1_000);
        await world.startRunner();
      });
      await fault('DynamoDB Local killed (SIGKILL) and restarted on its files', 0.3, async () => {
        await world.killDynamo();
        await sleep(2_000);
        await world.startDynamo();
      });
      await until(at(0.42));
      say(
        `  fault at ${Math.round((Date.now() - started) / 1000)} s: webhook receiver answers 503, then hangs`,
      );
      const receiverFrom = Date.now();
      receiver.setMode('unavailable');
      await sleep(receiverDown);
      receiver.setMode('hang');
      await sleep(15_000);
      receiver.setMode('ok');
      windows.push({
        name: 'webhook receiver 503, then hanging',
        startedAt: receiverFrom,
        recoveredAt: receiverFrom,
      });
      await fault('sweeper stopped for longer than a hold, then resumed', 0.6, async () => {
        await world.stopRunner();
        await world.startRunner({ SWEEP_INTERVAL_MS: String(3_600_000) });
      });
      await sleep(sweeperStopped);
      await fault('sweeper resumed (the runner restarted with it)', 0, async () => {
        await world.stopRunner();
        await world.startRunner();
      });
      await until(at(0.85));
      const burstFrom = Date.now();
      say(`  fault at ${Math.round((burstFrom - started) / 1000)} s: a burst over the client limits`);
      const burst = await Promise.all(
        Array.from({ length: 300 }, () =>
          fetch(`${world.base}/item`, { headers: { 'x-forwarded-for': '198.51.100.7' } }).then(
            (response) => response.status,
            () => 0,
          ),
        ),
      );
      const refused = burst.filter((status) => status === 429).length;
      const failed = burst.filter((status) => status === 0 || status >= 500).length;
      say(`    ${refused} of 300 refused with 429, ${failed} 5xx or network errors`);
      // A burst is refused with 429, never a 5xx: its calls go to the answers audit as they are.
      const seenAt = Date.now();
      for (const status of burst) {
        const broken = status === 0 || status >= 500;
        ledger.calls.push({
          route: 'burst',
          startedAt: burstFrom,
          endedAt: seenAt,
          statuses: [status],
          failedAt: broken ? [seenAt] : [],
          ok: !broken,
        });
      }
    };
    // The provider's faults, beside the others (its controls live in the runner: none across a restart).
    const providerDown = QUICK ? 10_000 : 45_000;
    const providerFaults = async () => {
      await until(at(0.02));
      const from = Date.now();
      say(
        `  fault at ${Math.round((from - started) / 1000)} s: provider webhooks delayed, duplicated, reordered`,
      );
      await webhookFaults(probes, world.standIn, { duplicate: true, delay_ms: 1_500, reorder_window: 3 });
      await until(at(0.14));
      await drainDeliveries(probes, world.standIn, 0);
      windows.push({
        name: 'provider webhooks delayed, duplicated, reordered',
        startedAt: from,
        recoveredAt: Date.now(),
        excuses: false,
      });
      for (const mode of ['error', 'hang'] as const) {
        await until(at(0.32) + (mode === 'hang' ? providerDown + 5_000 : 0));
        const startedAt = Date.now();
        const name = mode === 'error' ? 'provider answers 500' : 'provider hangs';
        say(`  fault at ${Math.round((startedAt - started) / 1000)} s: ${name} for ${providerDown / 1000} s`);
        await apiFails(probes, world.standIn, mode);
        await sleep(providerDown);
        await apiRecovers(probes, world.standIn);
        // The service answers through a provider's 500s (the booking awaits its checkout); a call hung at the
        // end of the window waits out the adapter's 8 s timeout, longer than a careful client waits.
        windows.push({
          name,
          startedAt,
          recoveredAt: Date.now() + (mode === 'hang' ? 8_000 : 0),
          excuses: mode === 'hang',
          provider: true,
        });
      }
    };
    // The longest any expired cart kept its stock, sampled every 5 s from the table.
    const sampler = async () => {
      while (Date.now() < endsAt) {
        await sleep(5_000);
        try {
          const now = Math.floor(Date.now() / 1000);
          for (const session of await scanEntities(world.db, ['session']))
            if (session.status === 'open' && Object.keys(session.holds ?? {}).length > 0)
              longestPastExpiry = Math.max(longestPastExpiry, now - Number(session.expires_at));
        } catch {
          // DynamoDB Local is down: a fault window.
        }
      }
    };
    // The channels' feeds change every 10 s; the runner syncs them every 5 s.
    const channels = async () => {
      while (Date.now() < endsAt) {
        await sleep(10_000);
        feeds.change();
      }
    };
    await Promise.all([
      ...Array.from({ length: CONCURRENCY }, (_, index) => actor(index)),
      channels(),
      values['no-faults'] ? Promise.resolve() : faults(),
      values['no-faults'] ? Promise.resolve() : providerFaults(),
      sampler(),
    ]);

    // The drain: carts expire and are swept, deliveries are retried until the receiver has them all. It ends
    // once no cart holds stock (every cart of the traffic expires within a hold and the sweeper gives it
    // back), or after a hold and 30 s when one still does: the holds audit then names it.
    const drainFrom = Date.now();
    const drainUntil = drainFrom + (HOLD_MINUTES * 60 + 30) * 1000;
    while (Date.now() < drainUntil && (await holdingCarts(world)) > 0) await sleep(1_000);
    // The provider's deliveries go out (a reordered group not yet full included) before the service's own.
    const undelivered = await drainDeliveries(probes, world.standIn, 90_000);
    say(
      `  drained in ${Math.round((Date.now() - drainFrom) / 1000)} s${undelivered ? ` (${undelivered} provider deliveries still waiting)` : ''}`,
    );
    let recorded = await readRecordedEvents(world.db);
    for (let waited = 0; waited < 120_000; waited += 2_000) {
      const delivered = new Set(
        receiver.arrivals.filter((arrival) => arrival.answered === 200).map((arrival) => arrival.id),
      );
      if (recorded.every((event) => delivered.has(event.event_id))) break;
      await sleep(2_000);
      recorded = await readRecordedEvents(world.db);
    }

    const changes = summariseChanges(ledger.changes);
    say(`  guests' changes: ${changes.line}`);
    const planted = values.control ? await plant(world, ledger, receiver.arrivals) : [];
    const [bookings, sessions, blocks] = [
      await scanEntities(world.db, ['booking']),
      await scanEntities(world.db, ['session']),
      await scanEntities(world.db, ['channel_block']),
    ];
    const secrets = JSON.parse(readFileSync(join(world.dataDir, 'webhook-secrets.json'), 'utf8')) as Record<
      string,
      { current: string }
    >;
    const webhooks = auditWebhooks({
      recorded: await readRecordedEvents(world.db),
      arrivals: receiver.arrivals,
      secret: secrets.soak?.current ?? '',
    });
    const audits: AuditResult[] = [
      auditBookings(bookings, ledger, tenant),
      await auditUnits(world.db, { bookings, blocks }, tenant),
      auditLeaks(sessions, Date.now()),
      {
        name: 'webhooks: every event delivered, signed, in order',
        ok: webhooks.ok,
        checked: { events: webhooks.events, delivered: webhooks.delivered },
        problems: webhooks.problems,
      },
      auditAnswers(ledger, windows),
      auditMoney(
        {
          bookings,
          attempts: await scanEntities(world.db, ['payment_attempt']),
          payments: await scanEntities(world.db, ['payment']),
          trail: await scanEntities(world.db, ['event']),
        },
        await readProviderMoney(world.standIn),
        Date.now(),
      ),
    ];
    for (const audit of audits) {
      say(`${audit.ok ? 'ok  ' : 'FAIL'} ${audit.name} ${JSON.stringify(audit.checked)}`);
      for (const problem of audit.problems) say(`       ${problem}`);
    }
    const results = {
      date: new Date(started).toISOString(),
      seed: SEED,
      seconds: SECONDS,
      control: values.control,
      machine: { cores: cpus().length, memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version },
      requests: ledger.calls.reduce((sum, entry) => sum + entry.statuses.length, 0),
      calls: ledger.calls.length,
      bookings: bookings.length,
      acknowledged: ledger.acknowledged.length,
      holds: ledger.calls.filter((entry) => entry.route === 'session.add' && entry.ok).length,
      payments: Object.fromEntries(
        [...new Set(ledger.paying.values())].map((choice) => [
          choice,
          [...ledger.paying.values()].filter((other) => other === choice).length,
        ]),
      ),
      changes: changes.counts,
      faults: windows.map((window) => ({
        name: window.name,
        atSeconds: Math.round((window.startedAt - started) / 1000),
        recoverySeconds: Math.round((window.recoveredAt - window.startedAt) / 100) / 10,
      })),
      longestHoldPastExpirySeconds: longestPastExpiry,
      webhookArrivals: receiver.arrivals.length,
      audits,
      planted,
    };
    writeFileSync(
      values.control ? 'soak-control-results.json' : 'soak-results.json',
      `${JSON.stringify(results, null, 2)}\n`,
    );
    if (values.control) return controlVerdict(planted, audits);
    return audits.every((audit) => audit.ok) ? 0 : 1;
  } finally {
    await world.stop();
    await receiver.stop();
    await feeds.stop();
    rmSync(dir, { recursive: true, force: true });
    say(`soak: seed ${SEED} (npm run soak -- --seed ${SEED} replays its traffic)`);
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`soak failed: ${(error as Error).stack}\n`);
    process.exit(1);
  },
);
