import { describe, expect, it } from 'vitest';
import { DEMO_PAGE_CSP, DEMO_SNIPPET, demoPage, renderDemoPage } from '#infra/local/demo-page.ts';
import { makeTenant, makeTenantJson } from '#test/support/tenant.ts';

const HOSTILE = `<script>alert("x")</script> & 'Co'`;

describe('the demo page of npm start', () => {
  it('embeds the widget with the snippet a business pastes, on its own origin', () => {
    expect(DEMO_SNIPPET).toBe(
      '<script type="module" src="/widget/booking-widget.js"></script>\n' +
        '<booking-widget api="/api/3.0"></booking-widget>',
    );
    expect(renderDemoPage(makeTenant())).toContain(DEMO_SNIPPET);
  });

  it('escapes every tenant value it shows', () => {
    const html = renderDemoPage(
      makeTenant(
        makeTenantJson({
          company: {
            account_id: 77,
            host_id: 'test.example.com',
            name: HOSTILE,
            email: 'hello@test.example.com',
            address: HOSTILE,
            city: HOSTILE,
            region: HOSTILE,
            postal_zip: '"><b>',
            phone: `+1 "555" <0142>`,
            country_id: 'CA',
            timezone: 'America/Toronto',
          },
        }),
      ),
    );
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('"><b>');
    expect(html).not.toContain('<0142>');
    expect(html).toContain('&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; &#39;Co&#39;');
    // The only scripts are the widget's.
    expect(html.match(/<script/g)).toHaveLength(1);
  });

  it('takes its language from the tenant locale and fits a phone screen', () => {
    const html = renderDemoPage(
      makeTenant(
        makeTenantJson({ locale: { id: 'fr_CA', lang: 'fr', currency: 'CAD', currency_symbol: '$' } }),
      ),
    );
    expect(html).toContain('<html lang="fr">');
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
  });

  it('allows scripts and connections to its own origin only, images from anywhere', () => {
    const { headers } = demoPage(makeTenant());
    expect(headers['content-type']).toBe('text/html; charset=utf-8');
    expect(headers['content-security-policy']).toBe(DEMO_PAGE_CSP);
    const directives = Object.fromEntries(
      DEMO_PAGE_CSP.split('; ').map((directive) => [directive.split(' ')[0], directive.split(' ').slice(1)]),
    );
    expect(directives).toMatchObject({
      'default-src': ["'self'"],
      'script-src': ["'self'"],
      'connect-src': ["'self'"],
      'img-src': ['*', 'data:'],
      'style-src': ["'self'", "'unsafe-inline'"],
    });
  });
});
