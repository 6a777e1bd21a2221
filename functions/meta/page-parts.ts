import type { StoredConfig } from '#lib/config/index.ts';
import { escapeHtml } from '#lib/kernel/text.ts';

// The parts the tenant's pages share (the booking page, the page a guest returns to from paying, and
// `npm start`'s demo site): their look, their first lines, the banner, the contact block and the footer.

/** The look the booking page and `npm start`'s demo site share: colours, type, the skip link, links. */
export const PAGE_STYLE = `
:root { color-scheme: light; --ink: #1d2a24; --muted: #4a5a52; --accent: #1f6f54; --paper: #f7f5ef; }
* { box-sizing: border-box; }
body { margin: 0; font: 1rem/1.6 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink);
  background: var(--paper); }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: 1rem; padding: .5rem 1rem; background: #fff; color: var(--accent); z-index: 1; }
a { color: var(--accent); }
a:focus-visible { outline: 3px solid #f2b632; outline-offset: 2px; }
`;

/** The booking page's look (the return page's too): its banner, main column, policy and contact, footer. */
export const BOOK_STYLE = `${PAGE_STYLE}
.wrap { max-width: 64rem; margin: 0 auto; padding: 0 1rem; }
header { background: #fff; border-bottom: 1px solid #dcd8cc; }
header .wrap { display: flex; flex-wrap: wrap; align-items: baseline; justify-content: space-between;
  gap: .25rem 1rem; padding-block: .75rem; }
.brand { margin: 0; font-size: 1.25rem; }
.place { margin: 0; color: var(--muted); }
main { padding-block: 1.5rem 2.5rem; }
h1 { margin: 0 0 .25rem; font-size: clamp(1.5rem, 5vw, 2.25rem); line-height: 1.2; }
.lead { margin: 0 0 1.25rem; color: var(--muted); }
.problem { border-left: 4px solid #b3261e; background: #fff; padding: .5rem 1rem; }
booking-widget { display: block; }
booking-widget:not(:defined) { min-height: 64rem; }
@media (min-width: 50rem) { booking-widget:not(:defined) { min-height: 51rem; } }
.about { display: grid; gap: 1.5rem; margin-top: 2rem; }
@media (min-width: 48rem) { .about { grid-template-columns: 2fr 1fr; } }
.about h2 { margin: 0 0 .5rem; font-size: 1.125rem; }
address { font-style: normal; }
footer { border-top: 1px solid #dcd8cc; padding-block: 1rem; color: var(--muted); font-size: .875rem; }
`;

/** The non-blank parts of a line, comma separated ("Huntsville, Ontario"). */
export const joinParts = (...parts: string[]): string =>
  parts.filter((part) => part.trim() !== '').join(', ');

/** The first lines of a page up to its title (which is HTML already escaped), for a language. */
export const pageStart = (lang: string, title: string): string[] => [
  '<!doctype html>',
  `<html lang="${escapeHtml(lang)}">`,
  '<head>',
  '<meta charset="utf-8">',
  '<meta name="viewport" content="width=device-width, initial-scale=1">',
  `<title>${title}</title>`,
];

/** A country's name in the tenant's language ("Canada" for CA in en_CA), or its code when Intl has none. */
const countryName = (code: string, localeId: string): string => {
  try {
    return new Intl.DisplayNames([localeId.replace('_', '-')], { type: 'region' }).of(code) ?? code;
  } catch {
    return code;
  }
};

/** A business's address, phone and email as lines of HTML (the phone and email as links). */
export const contactLines = (company: StoredConfig['company'], localeId: string): string[] =>
  [
    escapeHtml(company.address),
    escapeHtml(joinParts(company.city, company.region, company.postal_zip)),
    escapeHtml(countryName(company.country_id, localeId)),
    company.phone
      ? `<a href="tel:${escapeHtml(company.phone.replace(/[^\d+]/g, ''))}">${escapeHtml(company.phone)}</a>`
      : '',
    `<a href="mailto:${escapeHtml(company.email)}">${escapeHtml(company.email)}</a>`,
  ].filter((part) => part.trim() !== '');

/** An https/http URL safe to link to, or ''. */
export const linkable = (value: string | undefined): string => {
  try {
    const url = new URL(value ?? '');
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : '';
  } catch {
    return '';
  }
};

/** The banner of the tenant's pages: a skip link to the main part, the business's name and place. */
export function banner(config: StoredConfig, skip: { target: string; words: string }): string[] {
  const place = escapeHtml(joinParts(config.company.city, config.company.region));
  return [
    // Inside the banner, so every part of the page is in a landmark (axe "region", at every step).
    `<header><a class="skip" href="#${skip.target}">${skip.words}</a><div class="wrap">`,
    `<p class="brand"><strong>${escapeHtml(config.company.name)}</strong></p>`,
    place ? `<p class="place">${place}</p>` : '',
    '</div></header>',
  ];
}

/** The business's contact block: its address, phone, email and website. */
export function contactSection(config: StoredConfig): string[] {
  const { company, locale } = config;
  const website = linkable(company.url);
  const contact = [
    ...contactLines(company, locale.id),
    website ? `<a href="${escapeHtml(website)}">${escapeHtml(new URL(website).host)}</a>` : '',
  ].filter((part) => part !== '');
  return [
    '<section aria-labelledby="contact-title">',
    '<h2 id="contact-title">Contact</h2>',
    `<address><strong>${escapeHtml(company.name)}</strong><br>${contact.join('<br>')}</address>`,
    '</section>',
  ];
}

/** The footer of the tenant's pages. */
export const footer = (config: StoredConfig): string =>
  `<footer><div class="wrap">Bookings for ${escapeHtml(config.company.name)} are made through this page and held for you while you book.</div></footer>`;
