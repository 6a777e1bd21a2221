import { parseArgs } from 'node:util';
import { presentWebhook } from '#functions/admin/webhooks.ts';
import { readTimeFilter } from '#functions/bookings/list.ts';
import { connectForCli, webhookSecretsForCli } from '#infra/local/settings.ts';
import { getConfig } from '#lib/config/index.ts';
import { DomainError } from '#lib/kernel/errors.ts';
import {
  enableWebhook,
  findWebhook,
  listWebhookDeliveries,
  listWebhooks,
  replayWebhook,
  rotateEndpointSecret,
} from '#lib/webhooks/index.ts';

const USAGE = `usage: npm run webhooks -- <command>
  list                                  every endpoint: state, last success, consecutive failures
  deliveries <id> [--limit n] [--page n] recent deliveries of an endpoint with their attempts
  replay <id> <since>                   re-send what happened since a date (YYYYMMDD, YYYY-MM-DD, today) or Unix time, same event ids
  enable <id>                           resume deliveries (what was missed while disabled takes a replay)
  secret <id>                           print the endpoint's signing secret(s) (whsec_...)
  rotate <id> [--grace-hours h]         new secret; the old one keeps signing beside it for h hours (default 24)
The table: the running \`npm start\` (DATA_DIR), or TABLE_NAME (+ DYNAMODB_ENDPOINT for a local one).
The secrets: DATA_DIR/webhook-secrets.json, or the tenant stack's secret when WEBHOOK_SECRETS_ARN is set.`;

const say = (line: string) => process.stdout.write(`${line}\n`);
const iso = (seconds: number) => (seconds ? new Date(seconds * 1000).toISOString() : 'never');

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      limit: { type: 'string', default: '20' },
      page: { type: 'string', default: '1' },
      'grace-hours': { type: 'string', default: '24' },
      help: { type: 'boolean', default: false },
    },
  });
  const [command, id = '', since] = positionals;
  if (values.help || !command) {
    say(USAGE);
    return command || values.help ? 0 : 2;
  }
  const now = Date.now();
  switch (command) {
    case 'list': {
      for (const endpoint of (await listWebhooks(connectForCli())).map(presentWebhook)) {
        say(
          `${endpoint.id}  ${endpoint.state}${endpoint.disabled_reason ? ` (${endpoint.disabled_reason})` : ''}  ${endpoint.format}  ${endpoint.url}  events ${endpoint.events.join(',')}  last success ${iso(endpoint.last_success_at)}  failures in a row ${endpoint.consecutive_failures}`,
        );
      }
      return 0;
    }
    case 'deliveries': {
      const { rows, total } = await listWebhookDeliveries(connectForCli(), {
        endpointId: id,
        limit: Math.min(250, Math.max(1, Number(values.limit) || 20)),
        page: Math.max(1, Number(values.page) || 1),
      });
      for (const delivery of rows) {
        const attempts = delivery.attempts
          .map(
            (attempt) =>
              `${new Date(attempt.at).toISOString()} ${attempt.status || attempt.error || attempt.outcome}`,
          )
          .join(', ');
        say(
          `${delivery.event_id}  ${delivery.event_type}  booking ${delivery.booking_id}  ${delivery.status}  attempts [${attempts}]`,
        );
      }
      say(`${rows.length} of ${total}`);
      return 0;
    }
    case 'replay': {
      const db = connectForCli();
      const config = await getConfig(db);
      if (!config) throw new Error('No tenant is loaded into the table');
      const range = since ? readTimeFilter(since, config, now) : undefined;
      if (!range || range.from < 0) {
        say('replay <id> <since>: since is a date (YYYYMMDD) or Unix time');
        return 2;
      }
      const replay = await replayWebhook(db, {
        endpointId: id,
        since: range.from * 1000,
        now,
        retentionDays: config.settings.webhooks.retention_days,
      });
      say(
        `${replay.events} events queued again for ${id}${replay.truncated ? ' (more remain: replay again from the last one)' : ''}`,
      );
      return 0;
    }
    case 'enable': {
      const endpoint = await enableWebhook(connectForCli(), { endpointId: id, now });
      say(`${endpoint.id} enabled`);
      return 0;
    }
    case 'secret': {
      await findWebhook(connectForCli(), id);
      const secrets = (await webhookSecretsForCli().read())[id];
      if (!secrets)
        throw new Error(`No secret for ${id} yet: load the tenant file (npm start or npm run tenant:load)`);
      say(secrets.current);
      if (secrets.previous && (secrets.previous_until ?? 0) > now) {
        say(
          `${secrets.previous} (previous, signs until ${new Date(secrets.previous_until ?? 0).toISOString()})`,
        );
      }
      return 0;
    }
    case 'rotate': {
      await findWebhook(connectForCli(), id);
      const hours = Number(values['grace-hours']);
      if (!Number.isFinite(hours) || hours < 0 || hours > 720) {
        say('--grace-hours is 0 to 720');
        return 2;
      }
      const next = await rotateEndpointSecret(webhookSecretsForCli(), {
        endpointId: id,
        graceMs: hours * 3_600_000,
        now,
      });
      say(next.current);
      return 0;
    }
    default:
      say(USAGE);
      return 2;
  }
}

main()
  .then((code) => process.exit(code))
  .catch((error: unknown) => {
    process.stderr.write(`${error instanceof DomainError ? error.message : (error as Error).message}\n`);
    process.exit(1);
  });
