import { request } from 'node:http';

// Secrets Manager secrets read through the AWS Parameters and Secrets Lambda Extension on localhost (a layer
// of the functions that need a secret), which AWS recommends over the SDK in a function: each bundle is
// spared the Secrets Manager client. The SLIP keys and the payment provider's keys are read this way.

/** Where the extension listens unless told otherwise. */
export const EXTENSION_DEFAULT_PORT = 2773;

/** What reading a secret needs: the extension's port and the token it checks (the function's session). */
export interface ExtensionSecretOptions {
  secretArn: string;
  port?: number;
  sessionToken?: string;
  /** Milliseconds the extension may take to answer (it calls Secrets Manager on a cache miss). */
  timeoutMs?: number;
}

/** The extension answered other than 200 (`status`), or not in time (no `status`). */
export class ExtensionSecretError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/**
 * GETs the secret's string from the extension (`/secretsmanager/get`), as Secrets Manager's GetSecretValue
 * answers it. node:http rather than fetch: the SDK has loaded it already, and fetch's first use would load
 * undici during a guest's first request.
 */
export const readExtensionSecret = (options: ExtensionSecretOptions): Promise<string> =>
  new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: options.port ?? EXTENSION_DEFAULT_PORT,
        path: `/secretsmanager/get?secretId=${encodeURIComponent(options.secretArn)}`,
        headers: { 'X-Aws-Parameters-Secrets-Token': options.sessionToken ?? '' },
        timeout: options.timeoutMs ?? 5_000,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = response.statusCode ?? 0;
          if (status !== 200) {
            reject(
              new ExtensionSecretError(
                `The secrets extension answered ${status}: ${text.slice(0, 200)}`,
                status,
              ),
            );
            return;
          }
          resolve((JSON.parse(text) as { SecretString?: string }).SecretString ?? '');
        });
        response.on('error', reject);
      },
    );
    req.on('timeout', () =>
      req.destroy(new ExtensionSecretError('The secrets extension did not answer in time')),
    );
    req.on('error', reject);
    req.end();
  });
