import { fileURLToPath } from 'node:url';

// Constants only: functions/ imports this file, and must never pull esbuild (widget/build.ts) into a
// Lambda bundle.

/** The one file a business's page loads (`<script type="module" src=".../widget/booking-widget.js">`). */
export const WIDGET_FILE = 'booking-widget.js';

/** Where `npm start` and the tests find the built widget. */
export const WIDGET_DIST = fileURLToPath(new URL('./dist/', import.meta.url));

/** The size budget of the issue: the whole widget, gzipped. */
export const WIDGET_MAX_GZIP_BYTES = 50 * 1024;

/** Every file the service serves under `/widget/`, with its media type: the only names it ever reads. */
export const WIDGET_FILES: Readonly<Record<string, string>> = {
  [WIDGET_FILE]: 'text/javascript; charset=utf-8',
};
