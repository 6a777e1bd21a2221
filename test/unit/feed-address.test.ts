import { describe, expect, it } from 'vitest';
import { maskFeedAddress } from '#lib/channels/feed-address.ts';

// A channel feed's address as staff see it (issue 41, item 4): the host and a masked path.

describe('maskFeedAddress', () => {
  it.each([
    [
      "Google's private address (the secret in the path)",
      'https://calendar.google.com/calendar/ical/a%40b.com/private-0a1b2c3d/basic.ics',
      'https://calendar.google.com/***/***/***/***/***.ics',
    ],
    [
      "Vrbo's (the secret is the file name)",
      'https://www.vrbo.com/icalendar/0a1b2c3d4e.ics',
      'https://www.vrbo.com/***/***.ics',
    ],
    [
      "Airbnb's (the secret in the query)",
      'https://www.airbnb.com/calendar/ical/123.ics?s=0a1b2c3d',
      'https://www.airbnb.com/***/***/***.ics',
    ],
    [
      "Booking.com's",
      'https://admin.booking.com/hotel/hoteladmin/ical.html?t=0a1b-2c3d',
      'https://admin.booking.com/***/***/***.html',
    ],
    [
      'user info, port and fragment',
      'http://me:pw@127.0.0.1:8080/feed.ics#pw',
      'http://127.0.0.1:8080/***.ics',
    ],
    [
      'an IPv6 host and a trailing slash',
      'https://[2001:db8::1]/feeds/abc/',
      'https://[2001:db8::1]/***/***/',
    ],
    ['no path', 'https://feeds.example.com', 'https://feeds.example.com/'],
    ['an extension too long to be one', 'https://x.example/feed.0a1b2c3d4e5f', 'https://x.example/***'],
    ['an address that cannot be parsed', 'not a url', '***'],
  ])('%s', (_, address, shown) => {
    expect(maskFeedAddress(address)).toBe(shown);
  });
});
