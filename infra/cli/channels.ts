import { parseArgs } from 'node:util';
import { createChannelSync } from '#functions/channels/round-job.ts';
import { cliIsLocal, connectForCli } from '#infra/local/settings.ts';
import type { FeedScope } from '#lib/channels/index.ts';
import {
  fetchFeed,
  listChannels,
  listFeedTokens,
  maskFeedAddress,
  rotateFeedToken,
} from '#lib/channels/index.ts';

import { getConfig } from '#lib/config/index.ts';
import { API_PREFIX } from '#lib/http/routes.ts';

const USAGE = `usage: npm run channels -- <command>
  token <item_id> [--channel <id>]   a new feed token for the item's export (shown once; the previous one stops
                                     working). With --channel, the feed given to that channel: it leaves out
                                     that channel's own blocks, so its sales are not echoed back to it
  token bookings                     a new token for the staff calendar feed (booking/ical)
  tokens                             every feed that has a token, without the tokens
  sync [--channel <id>]              fetch and apply every enabled channel's feed now (or one channel's)
  status                             each channel: its feed's host (the path masked), last fetch, last success,
                                     dates blocked, conflicts, last error
The table: the running \`npm start\` (DATA_DIR), or TABLE_NAME (+ DYNAMODB_ENDPOINT for a local one).
Feed links are printed on PUBLIC_URL when it is set (the stack's API endpoint), as paths otherwise.`;

const say = (line: string) => process.stdout.write(`${line}\n`);
const iso = (ms: number | undefined) => (ms ? new Date(ms).toISOString() : 'never');

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { channel: { type: 'string' }, help: { type: 'boolean', default: false } },
  });
  const [command, target] = positionals;
  if (values.help || !command) {
    say(USAGE);
    return command || values.help ? 0 : 2;
  }
  const db = connectForCli();
  const config = await getConfig(db);
  if (!config) throw new Error('No tenant is loaded in this table (npm run tenant:load)');
  const base = `${(process.env.PUBLIC_URL ?? '').replace(/\/+$/, '')}${API_PREFIX}`;
  switch (command) {
    case 'token': {
      let scope: FeedScope;
      let path: string;
      if (target === 'bookings') {
        scope = { kind: 'bookings' };
        path = 'booking/ical';
      } else {
        const itemId = Number(target);
        if (!Number.isInteger(itemId) || itemId <= 0) {
          say('token <item_id> [--channel <id>] | token bookings');
          return 2;
        }
        if (
          values.channel !== undefined &&
          !config.channels.some((channel) => channel.id === values.channel)
        ) {
          say(`no channel ${values.channel} in the tenant file`);
          return 2;
        }
        scope = {
          kind: 'item',
          itemId,
          ...(values.channel === undefined ? {} : { channelId: values.channel }),
        };
        path = `item/${itemId}/ical`;
      }
      const token = await rotateFeedToken(db, { scope, now: Date.now() });
      say(`${base}/${path}?token=${token}`);
      say('(the token is not stored and will not be shown again; the previous one no longer works)');
      return 0;
    }
    case 'tokens': {
      for (const entry of await listFeedTokens(db)) say(`${entry.scope}  created ${iso(entry.created_at)}`);
      return 0;
    }
    case 'sync': {
      const round = await createChannelSync({
        db,
        fetchFeed,
        policy: cliIsLocal() ? 'local' : 'deployed',
        ...(values.channel ? { only: values.channel } : {}),
      })();
      if (!round) {
        say('no channel in the tenant file');
        return 0;
      }
      for (const result of round.channels) {
        say(
          `${result.channel_id}: ${result.outcome}${result.error ? ` (${result.error})` : ''}, listed ${result.listed}, ` +
            `taken ${result.taken}, released ${result.released}, conflicts +${result.conflicts_opened} -${result.conflicts_closed}, ` +
            `blocked ${result.blocked}, open conflicts ${result.conflicts}, ${result.duration_ms} ms`,
        );
      }
      for (const id of round.retired) say(`${id}: removed from the tenant file, its blocks released`);
      return round.channels.some((result) => result.outcome === 'failed') ? 1 : 0;
    }
    case 'status': {
      if (config.channels.length === 0) say('no channel in the tenant file');
      for (const { channel, state, conflicts, blocked } of await listChannels(db, config)) {
        say(
          `${channel.id} (item ${channel.item_id}, ${maskFeedAddress(channel.url)}${channel.enabled ? '' : ', disabled'}): last fetch ${iso(state?.last_fetch_at)}, ` +
            `last success ${iso(state?.last_success_at)}, blocked ${blocked}, conflicts ${conflicts.length}` +
            `${state?.last_error ? `, last error: ${state.last_error}` : ''}`,
        );
        for (const conflict of conflicts)
          say(
            `  conflict ${conflict.slot}: ${conflict.units} unit(s), bookings ${conflict.bookings.join(' ') || 'none'}`,
          );
      }
      return 0;
    }
    default:
      say(USAGE);
      return 2;
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`channels failed: ${(error as Error).message}\n`);
    process.exit(1);
  },
);
