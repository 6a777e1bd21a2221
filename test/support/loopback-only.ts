import { lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction, Socket } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

const LOOPBACK = new Set(['127.0.0.1', '::1']);
const realConnect = Socket.prototype.connect;
const blocked = (target: string) =>
  Object.assign(new Error(`the test tried to connect to ${target}`), { code: 'ETESTBLOCKED' });

/**
 * Lets the file's sockets connect to the loopback only, from its first test to its last.
 *
 * A safety net under the sender's own guard: if the guard regresses, a test fails instead of the
 * connection leaving this machine. It checks IP literals at once and wraps the lookup for hostnames.
 */
export function allowLoopbackOnly(): void {
  beforeAll(() => {
    Socket.prototype.connect = function (this: Socket, ...args: any[]) {
      const options = Array.isArray(args[0]) ? args[0][0] : args[0];
      if (options && typeof options === 'object' && options.port !== undefined && !options.path) {
        const host: string = options.host ?? 'localhost';
        if (isIP(host) !== 0 && !LOOPBACK.has(host)) throw blocked(host);
        const lookup: LookupFunction = options.lookup ?? dnsLookup;
        options.lookup = ((hostname, lookupOptions, callback) =>
          lookup(hostname, lookupOptions, (error, address, family) => {
            const answers = Array.isArray(address) ? address.map((entry) => entry.address) : [address];
            const outside = answers.find((answer) => !LOOPBACK.has(answer));
            if (!error && outside !== undefined) callback(blocked(outside), '', 0);
            else callback(error, address, family);
          })) satisfies LookupFunction;
      }
      return realConnect.apply(this, args as Parameters<typeof realConnect>);
    } as typeof realConnect;
  });

  afterAll(() => {
    Socket.prototype.connect = realConnect;
  });
}

/** A lookup that answers every hostname with the given addresses and remembers what it was asked. */
export const resolvesTo = (...addresses: string[]) => {
  const asked: string[] = [];
  const lookup: LookupFunction = (hostname, _options, callback) => {
    asked.push(hostname);
    callback(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };
  return { lookup, asked };
};
