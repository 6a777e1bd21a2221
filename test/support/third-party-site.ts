import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A page of another site, served on its own port (another origin than the API's). */
export interface ThirdPartySite {
  server: Server;
  port: number;
  /** The page's address, on `localhost` (the API is on 127.0.0.1: another site, not only another origin). */
  url: string;
  origin: string;
  /** Sets the HTML the page answers with. */
  setHtml: (html: string) => void;
}

/** Starts a tiny web server on 127.0.0.1 that answers every GET with one HTML page. */
export async function startThirdPartySite(): Promise<ThirdPartySite> {
  let html = '<!doctype html><title>empty</title>';
  const server = createServer((request, response) => {
    if (request.url === '/favicon.ico') {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    response.end(html);
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    port,
    url: `http://localhost:${port}/`,
    origin: `http://localhost:${port}`,
    setHtml: (next) => {
      html = next;
    },
  };
}

/** Stops a third-party site's server. */
export async function stopThirdPartySite(site: ThirdPartySite | undefined): Promise<void> {
  if (!site) return;
  site.server.closeAllConnections();
  await new Promise<void>((done) => site.server.close(() => done()));
}

/** A partner's page holding exactly the two-line embedding snippet, with absolute URLs. */
export function embeddingPage(serviceOrigin: string, title = 'Partner site'): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${title}</title></head>`,
    `<body><main><h1>${title}</h1>`,
    `<script type="module" src="${serviceOrigin}/widget/booking-widget.js"></script>`,
    `<booking-widget api="${serviceOrigin}/api/3.0"></booking-widget>`,
    '</main></body>',
    '</html>',
  ].join('\n');
}
