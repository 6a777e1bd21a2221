import { contactLines, PAGE_STYLE, pageStart } from '#functions/meta/page-parts.ts';
import { widgetSnippet } from '#functions/meta/widget.ts';
import type { Tenant } from '#lib/config/index.ts';
import { escapeHtml } from '#lib/kernel/text.ts';
import type { GatewayPage } from './gateway.ts';

/**
 * The demo page's policy: scripts and requests only to this origin, images from anywhere (the items'
 * own). It shows the widget's promise of no request to any host but its API and the item images.
 */
export const DEMO_PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "connect-src 'self'",
  'img-src * data:',
  "style-src 'self' 'unsafe-inline'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The two lines a business pastes, here with the widget and the API on the page's own origin. */
export const DEMO_SNIPPET = widgetSnippet('');

const STYLE = `${PAGE_STYLE}
.wrap { max-width: 60rem; margin: 0 auto; padding: 0 1rem; }
header.site { background: #fff; border-bottom: 1px solid #dcd8cc; }
header.site .wrap { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between;
  gap: .5rem; padding-block: .75rem; }
.brand { margin: 0; font-weight: 700; font-size: 1.25rem; color: var(--ink); text-decoration: none; }
nav ul { display: flex; gap: 1.25rem; margin: 0; padding: 0; list-style: none; }
.hero { background: linear-gradient(135deg, #1f6f54, #184a5c); color: #fff; padding: 3rem 0 2.5rem; }
.hero h1 { margin: 0 0 .5rem; font-size: clamp(1.75rem, 6vw, 2.75rem); line-height: 1.15; }
.hero p { margin: 0; max-width: 38rem; font-size: 1.125rem; }
.book { padding: 2rem 1rem 3rem; }
.book h2 { margin-top: 0; }
booking-widget { display: block; }
booking-widget:not(:defined) { min-height: 64rem; }
@media (min-width: 50rem) { booking-widget:not(:defined) { min-height: 51rem; } }
footer { background: #fff; border-top: 1px solid #dcd8cc; padding: 2rem 0; color: var(--muted); }
footer h2 { margin-top: 0; font-size: 1.125rem; color: var(--ink); }
address { font-style: normal; }
.note { font-size: .875rem; }
`;

const line = (...parts: string[]): string => parts.filter((part) => part.trim() !== '').join(', ');

/** The demo site of `npm start`: a small sample page of the loaded tenant with the widget embedded. */
export function renderDemoPage(tenant: Tenant): string {
  const { company, locale } = tenant;
  const name = escapeHtml(company.name);
  const place = escapeHtml(line(company.city, company.region));
  const contact = [`<strong>${name}</strong>`, ...contactLines(company, locale.id)];
  return [
    ...pageStart(locale.lang, `${name}: book online`),
    `<meta name="description" content="Book ${name} online.">`,
    // No favicon request: the page asks its own origin for nothing but the widget and the API.
    '<link rel="icon" href="data:,">',
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    // Inside the banner, so every part of the page is in a landmark (axe "region").
    '<header class="site"><a class="skip" href="#book">Skip to booking</a><div class="wrap">',
    `<a class="brand" href="/">${name}</a>`,
    '<nav aria-label="Site"><ul><li><a href="#book">Book</a></li><li><a href="/book">Booking page</a></li><li><a href="#contact">Contact</a></li></ul></nav>',
    '</div></header>',
    '<main>',
    '<section class="hero" aria-labelledby="welcome"><div class="wrap">',
    `<h1 id="welcome">Welcome to ${name}</h1>`,
    `<p>${place ? `${place}. ` : ''}Pick your dates, see what is available and book online in a minute.</p>`,
    '</div></section>',
    '<section id="book" class="wrap book" aria-labelledby="book-title">',
    '<h2 id="book-title">Book online</h2>',
    DEMO_SNIPPET,
    '</section>',
    '</main>',
    '<footer id="contact"><div class="wrap">',
    '<h2>Contact</h2>',
    `<address>${contact.join('<br>')}</address>`,
    '<p class="note">A sample site of this tenant, served by <code>npm start</code> only.</p>',
    '</div></footer>',
    '</body>',
    '</html>',
  ].join('\n');
}

/** The demo page as the local gateway serves it at `/`. */
export function demoPage(tenant: Tenant): GatewayPage {
  return {
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': DEMO_PAGE_CSP,
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-cache',
    },
    body: renderDemoPage(tenant),
  };
}
