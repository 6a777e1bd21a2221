import { beforeAll, describe, expect, it } from 'vitest';
import snapshot from '#infra/constructs/cloudfront-origin-facing.json' with { type: 'json' };
import { EDGE_TOKEN_HEADER, edgeOrigin } from '#lib/http/edge-origin.ts';
import { invoke } from '#test/support/events.ts';
import { demoTenantJson } from '#test/support/tenant.ts';
import { loadTenant, type TenantTable } from '#test/support/tenant-table.ts';

// Issue 34, the protected edge: with `deployment.edge` the functions answer only what came through the
// tenant's CloudFront distribution (which adds the stack's origin token). Before, a script that called API
// Gateway's regional custom domain straight was answered, around the WAF's rate rule and rule groups.

const TOKEN = 'e'.repeat(64);
const CLOUDFRONT = '130.176.0.10';
let world: TenantTable;

beforeAll(async () => {
  const edge = edgeOrigin({ ranges: [...snapshot.ipv4, ...snapshot.ipv6], token: TOKEN });
  world = await loadTenant('edge-refusal', demoTenantJson(), { deps: { edge } });
});

describe('an API behind the edge', () => {
  it('answers what came through the distribution, counted by its viewer', async () => {
    const response = await invoke(world.handlers.items, {
      path: 'item',
      sourceIp: CLOUDFRONT,
      headers: { [EDGE_TOKEN_HEADER]: TOKEN, 'x-forwarded-for': `203.0.113.5, ${CLOUDFRONT}` },
    });
    expect(response.status).toBe(200);
  });

  it('refuses a request straight to API Gateway with a 403 in the envelope, on every group', async () => {
    const calls = [
      { handler: world.handlers.items, path: 'item' },
      { handler: world.handlers.meta, path: 'company' },
      { handler: world.handlers.session, path: 'booking/session' },
    ];
    for (const { handler, path } of calls) {
      const response = await invoke(handler, {
        path,
        sourceIp: '198.51.100.9',
        headers: { 'x-forwarded-for': '203.0.113.5' },
      });
      expect(response.status).toBe(403);
      expect(response.json.request.error).toMatchObject({ id: 'forbidden' });
      expect(response.json.request.error.details).toMatch(/through its own domain only/);
    }
  });
});
