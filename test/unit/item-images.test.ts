import { describe, expect, it } from 'vitest';
import { presentItem } from '#functions/items/present.ts';
import type { StoredConfig } from '#lib/config/model.ts';
import { makeTenant } from '#test/support/tenant.ts';

// Issue 32: an item picture is a URL, or a path on this service answered as a URL on its public address.

const tenant = makeTenant();
const configOf = (serviceUrl?: string): StoredConfig => ({
  ...tenant,
  updated_at: 0,
  ...(serviceUrl ? { service_url: serviceUrl } : {}),
});
const item = {
  ...tenant.items[0],
  images: [
    {
      src: '/widget/demo-cabin.webp',
      src2x: '/widget/demo-cabin-2x.webp',
      title: 'Cabin',
      width: 480,
      height: 360,
    },
    { src: 'https://cdn.example.com/a.jpg' },
    { src: '//cdn.example.com/b.jpg' },
  ],
} as (typeof tenant.items)[number];

/** The pictures of the item as the wire has them, keyed "1", "2"… */
const picturesOf = (serviceUrl?: string) =>
  presentItem(item, configOf(serviceUrl)).image as Record<string, Record<string, unknown>>;

describe('item pictures on the wire', () => {
  it('answers a path on this service as a URL under its public address, with its size', () => {
    const image = picturesOf('https://lodge.example.com');
    expect(image['1']).toMatchObject({
      src: 'https://lodge.example.com/widget/demo-cabin.webp',
      'src@2x': 'https://lodge.example.com/widget/demo-cabin-2x.webp',
      url: 'https://lodge.example.com/widget/demo-cabin.webp',
      title: 'Cabin',
      width: 480,
      height: 360,
    });
  });

  it('leaves a URL as the tenant gave it, without a size it was not given', () => {
    const image = picturesOf('https://lodge.example.com');
    expect(image['2']).toMatchObject({
      src: 'https://cdn.example.com/a.jpg',
      'src@2x': 'https://cdn.example.com/a.jpg',
    });
    expect(image['2']).not.toHaveProperty('width');
    expect(image['3']?.src).toBe('//cdn.example.com/b.jpg');
  });

  it('leaves a path alone where no public address is known (a job that read the table itself)', () => {
    const image = picturesOf();
    expect(image['1']?.src).toBe('/widget/demo-cabin.webp');
  });
});
