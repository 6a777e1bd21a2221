import { createServer } from 'node:http';
import { addDays, todayIn } from '#lib/kernel/dates.ts';
import { channelFeed } from '#test/support/channel-world.ts';
import type { Random } from './traffic.ts';

/**
 * The channels' side of the soak: a local server publishing each channel's feed, a few stays over the
 * soak's weeks, which `change` moves about (seeded) while the traffic runs, as guests book on Airbnb.
 */
export async function startChannelFeeds(random: Random) {
  const stays = new Map<string, [string, string][]>();
  const today = todayIn('America/Toronto', Date.now());
  const change = () => {
    for (const name of ['airbnb', 'booking']) {
      const listed: [string, string][] = [];
      for (let index = 0; index < 3; index += 1) {
        const first = addDays(today, 7 + random.int(21));
        listed.push([first, addDays(first, 1 + random.int(3))]);
      }
      stays.set(name, listed);
    }
  };
  change();
  const server = createServer((request, response) => {
    const name = (request.url ?? '').replace(/^\//, '').replace(/\.ics$/, '');
    const listed = stays.get(name);
    if (!listed) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/calendar; charset=utf-8' });
    response.end(channelFeed(listed, `${name}.example`));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    base: `http://127.0.0.1:${port}`,
    change,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
