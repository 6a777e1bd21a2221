import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Review of issue 41, item 5 (the OpenAPI examples: "each operation's example must run against the demo
// tenant, and token- or channel-bound routes say in the document what they need"). Found: POST
// booking/session, the cart's one way to hold anything, has no example body and no `x-needs`: sent with
// its examples alone it adds nothing (200, an empty unsaved cart), so a contract test built from the
// document never exercises adding a SLIP, and the document does not say that the call needs the `slip[]`
// of a rated item (as `x-needs: cart` says it for create, clear and end).
const document = JSON.parse(readFileSync('functions/meta/openapi.json', 'utf8')) as {
  paths: Record<string, Record<string, Record<string, any>>>;
};

describe('review 41: the document’s example of adding to a cart', () => {
  it('adds something, or says what the call needs', () => {
    const operation = document.paths['/booking/session']?.post ?? {};
    const bodies = Object.values(operation.requestBody?.content ?? {}) as { example?: unknown }[];
    const sendsSlip = bodies.some((body) => JSON.stringify(body.example ?? {}).includes('slip'));
    const needs = (operation['x-needs'] ?? []) as string[];
    expect(sendsSlip || needs.length > 0).toBe(true);
  });
});
