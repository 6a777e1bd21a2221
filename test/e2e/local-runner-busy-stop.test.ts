import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { groupAlive, startService, stopService } from '#test/support/local-runner.ts';

// Found by the soak (issue 31): SIGTERM under steady keep-alive traffic. The runner's shutdown waited for
// every connection to end before closing them, and clients that keep sending on their open connections
// never let it: the soak's restart of a busy runner took 27 s. It now lets requests in flight finish for a
// moment and then closes every connection, whatever the clients keep doing.

describe('npm start under traffic', () => {
  it('stops on SIGTERM while clients keep sending on kept-alive connections', {
    timeout: 120_000,
  }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'busy-stop-'));
    const service = await startService({
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
      TABLE_NAME: `busy-stop-${randomUUID()}`,
    });
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    let sending = true;
    const client = async () => {
      while (sending) {
        await new Promise<void>((done) => {
          const request = get(`${service.base}/ping`, { agent }, (response) => {
            response.resume();
            response.on('end', () => done());
          });
          request.on('error', () => done());
        });
        await new Promise((wake) => setTimeout(wake, 20));
      }
    };
    const clients = Array.from({ length: 4 }, client);
    await new Promise((wake) => setTimeout(wake, 1_000));
    const pid = service.child.pid as number;
    // Stopped by its own shutdown within the bound, with the clients still sending: not killed.
    const stopped = await stopService(service, 15_000);
    sending = false;
    await Promise.all(clients);
    agent.destroy();
    expect(stopped).toBe(true);
    expect(groupAlive(pid)).toBe(false);
    rmSync(dataDir, { recursive: true, force: true });
  });
});
