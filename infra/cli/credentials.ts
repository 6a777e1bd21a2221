import { parseArgs } from 'node:util';
import { connectForCli } from '#infra/local/settings.ts';
import {
  CredentialAdminError,
  createCredential,
  issueToken,
  listCredentialSummaries,
  revoke,
  rotate,
} from '#lib/access/index.ts';

const USAGE = `usage: npm run credentials -- <command>
  create --account <id> [--on-behalf] [--label <text>]   new key and secret (the secret is shown once)
  list                                                    every credential, without secrets
  revoke <key>                                            the secret and its tokens stop working
  rotate <key>                                            new secret (shown once); the old one and its tokens stop working
  token <key> [--ttl <seconds>]                           a bearer token (default 3600 s, at most 30 days)
The table: the running \`npm start\` (DATA_DIR), or TABLE_NAME (+ DYNAMODB_ENDPOINT for a local one).`;

const say = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      account: { type: 'string' },
      'on-behalf': { type: 'boolean', default: false },
      label: { type: 'string', default: '' },
      ttl: { type: 'string', default: '3600' },
      help: { type: 'boolean', default: false },
    },
  });
  const [command, key] = positionals;
  if (values.help || !command) {
    say(USAGE);
    return command || values.help ? 0 : 2;
  }
  const db = connectForCli();
  const now = Date.now();
  switch (command) {
    case 'create': {
      const accountId = Number(values.account);
      if (!Number.isInteger(accountId) || accountId <= 0)
        throw new CredentialAdminError('unknown_account', '--account <id> is required');
      const created = await createCredential(db, {
        accountId,
        onBehalf: values['on-behalf'],
        label: values.label,
        now,
      });
      say(
        `key    ${created.key}\nsecret ${created.secret}\n(the secret is not stored and will not be shown again)`,
      );
      return 0;
    }
    case 'list': {
      for (const entry of await listCredentialSummaries(db)) {
        const used = entry.last_used_at ? new Date(entry.last_used_at).toISOString() : 'never';
        say(
          `${entry.key}  account ${entry.account_id}  ${entry.status}${entry.on_behalf ? '  on-behalf' : ''}  created ${new Date(entry.created_at).toISOString()}  last used ${used}${entry.label ? `  ${entry.label}` : ''}`,
        );
      }
      return 0;
    }
    case 'revoke':
    case 'rotate':
    case 'token': {
      if (!key) {
        say(USAGE);
        return 2;
      }
      if (command === 'revoke') {
        await revoke(db, { key, now });
        say(`revoked ${key}`);
      } else if (command === 'rotate') {
        const rotated = await rotate(db, { key, now });
        say(
          `key    ${rotated.key}\nsecret ${rotated.secret}\n(the old secret and the tokens issued under it no longer work)`,
        );
      } else {
        const issued = await issueToken(db, { key, ttlSeconds: Number(values.ttl), now });
        say(`token   ${issued.token}\nexpires ${new Date(issued.expiresAt).toISOString()}`);
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
    process.stderr.write(
      `${error instanceof CredentialAdminError ? error.message : (error as Error).message}\n`,
    );
    process.exit(1);
  },
);
