import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { setUpWidgetSuite } from '#test/support/widget-suite.ts';

// Issue 32, "pictures that load (demo pictures shipped with the project)": `npm start` on a fresh checkout
// serves every picture the demo tenant's items name (the API answers them as URLs on this service). Found
// in review: start.ts built the widget into a folder aside and moved only booking-widget.js into
// widget/dist, so the pictures copied beside it were deleted with that folder and every
// /widget/demo-*.webp was a 404 (the results hid the broken pictures, so a guest saw none). On a machine
// whose widget/dist still holds pictures from `npm run widget:build` it would pass anyway; CI's fresh clone
// has none.
const suite = setUpWidgetSuite({ tenantFile: 'infra/tenants/demo.json', name: 'demo-pictures' });

describe('the demo pictures under npm start', () => {
  it('serves every picture the demo items name, at 1x and 2x', async () => {
    const listing: any = await (await fetch(`${suite.apiBase}/item`)).json();
    const urls = Object.values(listing.items as Record<string, any>).flatMap((item) =>
      Object.values(item.image ?? {}).flatMap((image: any) => [image.src, image['src@2x']]),
    );
    expect(urls.length, 'the demo items name pictures').toBeGreaterThan(0);
    const answers: string[] = [];
    for (const url of urls) {
      const response = await fetch(url);
      const body = Buffer.from(await response.arrayBuffer());
      answers.push(`${new URL(url).pathname} ${response.status} ${response.headers.get('content-type')}`);
      if (response.status === 200) {
        const shipped = readFileSync(`widget/images/${new URL(url).pathname.split('/').pop()}`);
        expect(body.equals(shipped), `${url} is the shipped picture`).toBe(true);
      }
    }
    expect(answers).toEqual(urls.map((url) => `${new URL(url).pathname} 200 image/webp`));
  }, 60_000);
});
