import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { setUpService } from '#test/support/local-runner.ts';

// Review of issue 41, item 5 ("nosniff on every answer the local gateway writes itself"). Found: two
// answers Node writes itself without passing through the gateway's `clientError` handler still lack
// `X-Content-Type-Options: nosniff`: the 400 to an HTTP/1.1 request without a Host header (Node's
// `requireHostHeader`) and the 417 to an `Expect` other than 100-continue. docs/limits-and-abuse.md says
// every answer carries it, the 400s of a request Node cannot parse included.
const service = setUpService('review-node-answers');

/** Sends `text` as is on a new connection and answers what came back until the server closed it. */
const exchange = (text: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const { port } = new URL(service.base);
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      answer += chunk;
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.setTimeout(5_000, () => {
      socket.destroy();
      resolve(answer);
    });
    socket.write(text, 'latin1');
  });

const headOf = (answer: string) => answer.split('\r\n\r\n')[0] ?? '';

describe('review 41: answers Node writes for the local gateway', () => {
  it('carries nosniff on the 400 to a request without Host', async () => {
    const head = headOf(await exchange('GET /api/3.0/ping HTTP/1.1\r\nConnection: close\r\n\r\n'));
    expect(head).toMatch(/^HTTP\/1\.1 400/);
    expect(head).toMatch(/^x-content-type-options: nosniff$/im);
  });

  it('carries nosniff on the 417 to an unknown expectation', async () => {
    const head = headOf(
      await exchange('GET /api/3.0/ping HTTP/1.1\r\nHost: x\r\nExpect: bogus\r\nConnection: close\r\n\r\n'),
    );
    expect(head).toMatch(/^HTTP\/1\.1 417/);
    expect(head).toMatch(/^x-content-type-options: nosniff$/im);
  });
});
