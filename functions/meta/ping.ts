import type { RouteHandler } from '#lib/http/group-handler.ts';
import { noParameters, parseInput } from '#lib/http/validate.ts';
import { unixSeconds } from '#lib/kernel/time.ts';

/**
 * GET ping: the caller's address as API Gateway saw the connection (never X-Forwarded-For), the time,
 * the tenant's time zone and where the service runs.
 */
export const createPing =
  (provider: string): RouteHandler =>
  async ({ input, sourceIp, config, now }) => {
    parseInput(noParameters, input);
    return {
      body: {
        pong: { remote_addr: sourceIp, time: unixSeconds(now), timezone: config.company.timezone, provider },
      },
      request: { records: 1 },
    };
  };
