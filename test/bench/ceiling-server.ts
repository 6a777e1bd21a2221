import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { countDbUsage, emptyDbUsage } from '#infra/local/db-usage.ts';
import { createDb } from '#lib/kernel/storage/database.ts';
import { type FloorRequest, floorCalls } from './floor.ts';

// The ratio's ceiling on this machine: a server that answers each request with only the DynamoDB calls
// its floor makes, then the bytes the service answered it with. Whatever the service's own code does
// costs above this: the HTTP exchange and the load generator share the cores with DynamoDB Local here.
// CEILING_FILE names a JSON file: { endpoint, tableName, size, start, end, bodies: { <kind>: string } }.

const setup = JSON.parse(readFileSync(process.env.CEILING_FILE as string, 'utf8'));
// With the runner's instrument (ReturnConsumedCapacity on every call), as the floor has it.
const db = createDb({
  endpoint: setup.endpoint,
  tableName: setup.tableName,
  instrument: countDbUsage(emptyDbUsage()),
});
const { requests } = floorCalls(db, setup);
const bodies = setup.bodies as Record<FloorRequest, string>;

/** Which kind of request a method and URL of the benchmark's scenarios is. */
function kindOf(method: string, url: string): FloorRequest {
  const [path = '', query = ''] = url.split('?');
  if (method === 'POST') return path.endsWith('/booking/create') ? 'create' : 'addSlip';
  if (path.endsWith('/cal')) return 'calendar';
  if (path.endsWith('/ical')) return 'channelFeed';
  if (/\/item\/\d+$/.test(path)) return 'ratedItem';
  return query.includes('start_date') ? 'ratedList' : 'unratedList';
}

const server = createServer((request, response) => {
  request.resume();
  request.on('end', async () => {
    const kind = kindOf(request.method ?? 'GET', request.url ?? '');
    await requests[kind]();
    const type = kind === 'channelFeed' ? 'text/calendar' : 'application/json';
    response.writeHead(200, { 'content-type': `${type}; charset=utf-8` });
    response.end(bodies[kind]);
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`listening on http://127.0.0.1:${port}/api/3.0\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
