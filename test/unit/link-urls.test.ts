import { describe, expect, it } from 'vitest';
import { apiUrlOf, parsePublicUrl } from '#lib/http/public-url.ts';
import { linkUrl } from '#widget/src/format.ts';

describe('the public URL of the service (PUBLIC_URL)', () => {
  it('is an http(s) URL without a trailing slash, under which the API lives', () => {
    expect(parsePublicUrl('https://abc123.execute-api.eu-west-1.amazonaws.com')).toBe(
      'https://abc123.execute-api.eu-west-1.amazonaws.com',
    );
    expect(parsePublicUrl(' http://127.0.0.1:3000/ ')).toBe('http://127.0.0.1:3000');
    expect(apiUrlOf(parsePublicUrl('https://book.example.com/lodge/'))).toBe(
      'https://book.example.com/lodge/api/3.0',
    );
  });

  it.each([
    'javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'ftp://files.example.com',
    'https://user:pass@example.com',
    'https://example.com/?next=evil',
    'https://example.com/#frag',
    'example.com',
    '',
  ])('refuses %j, so a bad configuration fails the cold start', (value) => {
    expect(() => parsePublicUrl(value)).toThrow(/PUBLIC_URL/);
  });
});

describe('a link the widget renders', () => {
  it('is an absolute http(s) URL from the answer', () => {
    const url = 'https://api.example.com/api/3.0/booking/TEST-ABC234/invoice?token=t0k';
    expect(linkUrl(url)).toBe(url);
    expect(linkUrl('http://127.0.0.1:3000/api/3.0/booking/X/invoice')).toBe(
      'http://127.0.0.1:3000/api/3.0/booking/X/invoice',
    );
  });

  it.each([
    'javascript:alert(document.cookie)//://api.test/api/3.0/booking/X/invoice',
    'JavaScript:alert(1)',
    ' javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'vbscript:msgbox(1)',
    '//attacker.example/invoice',
    '/api/3.0/booking/X/invoice',
    '',
    undefined,
  ])('is nothing for %j: no link is rendered', (value) => {
    expect(linkUrl(value)).toBe('');
  });
});
