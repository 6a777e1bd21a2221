import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';

/** An endpoint's signing secrets: the current one and, during a rotation's grace period, the one before. */
export interface EndpointSecrets {
  current: string;
  previous?: string;
  /** Milliseconds since the epoch until which the previous secret still signs. */
  previous_until?: number;
}

/** Where the endpoints' secrets are kept, outside the tenant file: one JSON document by endpoint id. */
export interface WebhookSecretStore {
  read(): Promise<Record<string, EndpointSecrets>>;
  write(secrets: Record<string, EndpointSecrets>): Promise<void>;
}

/** A secret store in a local file, readable by its owner only (`npm start`'s DATA_DIR). */
export function createFileSecretStore(file: string): WebhookSecretStore {
  return {
    read: async () =>
      existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, EndpointSecrets>) : {},
    write: async (secrets) => {
      writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
      // The mode of writeFileSync applies only to a new file.
      chmodSync(file, 0o600);
    },
  };
}

/**
 * A secret store in one Secrets Manager secret (the tenant stack's), read at most every `cacheMs` by the
 * dispatcher so a rotation is picked up without a deploy.
 */
export function createSecretsManagerStore(options: {
  secretArn: string;
  region?: string | undefined;
  cacheMs?: number;
  client?: Pick<SecretsManagerClient, 'send'>;
}): WebhookSecretStore {
  const client = options.client ?? new SecretsManagerClient({ region: options.region });
  const cacheMs = options.cacheMs ?? 60_000;
  let cached: { secrets: Record<string, EndpointSecrets>; until: number } | undefined;
  return {
    read: async () => {
      const now = Date.now();
      if (cached && cached.until > now) return cached.secrets;
      const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: options.secretArn }));
      const parsed = SecretString ? (JSON.parse(SecretString) as unknown) : {};
      const secrets =
        parsed && typeof parsed === 'object' && !Array.isArray(parsed)
          ? (parsed as Record<string, EndpointSecrets>)
          : {};
      cached = { secrets, until: now + cacheMs };
      return secrets;
    },
    write: async (secrets) => {
      await client.send(
        new PutSecretValueCommand({ SecretId: options.secretArn, SecretString: JSON.stringify(secrets) }),
      );
      cached = undefined;
    },
  };
}
