import { fileURLToPath } from 'node:url';

// Constants only: functions/ imports this file, and must never pull esbuild (widget/build.ts) into a
// Lambda bundle.

/** The one file a business's page loads (`<script type="module" src=".../widget/booking-widget.js">`). */
export const WIDGET_FILE = 'booking-widget.js';

/**
 * The script of the guest's page of a booking (`/manage`, issue 44): a plain module of its own, so the
 * widget a business embeds carries none of it and the page loads no Lit.
 */
export const MANAGE_FILE = 'manage-page.js';

/**
 * The guest's page script's budget, gzipped: a page a guest opens on a phone from an email (2.3 KB on 29
 * November; 3.8 KB with the change of dates and party, issue 44 item 6).
 */
export const MANAGE_MAX_GZIP_BYTES = 4 * 1024;

/** Where `npm start` and the tests find the built widget. */
export const WIDGET_DIST = fileURLToPath(new URL('./dist/', import.meta.url));

/** The size budget of the issue: the whole widget, gzipped. */
export const WIDGET_MAX_GZIP_BYTES = 50 * 1024;

/** The demo tenant's pictures, drawn by tools/demo-images.ts, shipped in widget/images/. */
export const DEMO_IMAGES_SOURCE = fileURLToPath(new URL('./images/', import.meta.url));

/** The size of every demo picture at 1× (the 2× file is twice each side): 4:3. */
export const DEMO_IMAGE_SIZE = { width: 480, height: 360 } as const;

const demoImage = (name: string) => ({
  name,
  file: `demo-${name}.webp`,
  file2x: `demo-${name}-2x.webp`,
});

/** One picture per demo item (infra/tenants/demo.json names them as `/widget/demo-<name>.webp`). */
export const DEMO_IMAGES = [
  'cabin',
  'loft',
  'kayak',
  'bike',
  'paddleboard',
  'canoe',
  'hamper',
  'getaway',
  'slip',
].map(demoImage);

/** Every file the service serves under `/widget/`, with its media type: the only names it ever reads. */
export const WIDGET_FILES: Readonly<Record<string, string>> = {
  [WIDGET_FILE]: 'text/javascript; charset=utf-8',
  [MANAGE_FILE]: 'text/javascript; charset=utf-8',
  ...Object.fromEntries(
    DEMO_IMAGES.flatMap(({ file, file2x }) => [
      [file, 'image/webp'],
      [file2x, 'image/webp'],
    ]),
  ),
};
