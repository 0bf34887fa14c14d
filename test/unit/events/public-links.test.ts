/**
 * Links and images sent with the publishable key stay on the store's hosts (`checkPublicLinks`): a phishing
 * `checkout_url`, a product link or image elsewhere, or a script URL is refused naming the field; the store's own
 * hosts, their subdomains and its link hosts pass; text that is not a URL is left alone.
 */
import { describe, expect, it } from 'vitest';
import { checkPublicLinks, parseLinkHost } from '#shared/domain/events/public-links.ts';

const key = { allowedOrigins: ['https://www.shop.example', 'http://localhost:3000'], linkHosts: ['cdn.shopify.com'] };
const cart = (extra: Record<string, unknown>) => ({
  token: 't-1',
  checkout_url: 'https://www.shop.example/cart/t-1',
  line_items: [{ title: 'Mug', quantity: 1, price: '9.00', product_id: 'p-1' }],
  ...extra,
});

describe('links a publishable key may send', () => {
  it.each([
    ['a checkout page elsewhere', { checkout_url: 'https://evil.example/login' }, 'data.checkout_url'],
    ['a look-alike host', { checkout_url: 'https://shop.example.evil.example/cart' }, 'data.checkout_url'],
    ['a scheme-relative link elsewhere', { checkout_url: '//evil.example/x' }, 'data.checkout_url'],
    [
      'a product image elsewhere',
      { line_items: [{ title: 'Mug', product_id: 'p', product_image_url: 'https://evil.example/a.png' }] },
      'data.line_items[0].product_image_url',
    ],
    ['a script URL', { checkout_url: 'javascript:alert(1)' }, 'data.checkout_url'],
    ['a data URL in an extra field', { note: 'data:text/html,<b>x</b>' }, 'data.note'],
    // Forms the URL standard (browsers, mail clients) follows as links to evil.example, though they do not start `//`.
    ['a link without slashes', { checkout_url: 'https:evil.example/login' }, 'data.checkout_url'],
    ['a link with one slash', { checkout_url: 'https:/evil.example/login' }, 'data.checkout_url'],
    ['a link with backslashes', { checkout_url: 'https:\\\\evil.example/login' }, 'data.checkout_url'],
    ['a scheme-relative link with backslashes', { checkout_url: '\\\\evil.example/login' }, 'data.checkout_url'],
    ['a scheme-relative link slash-backslash', { checkout_url: '/\\evil.example/login' }, 'data.checkout_url'],
    ['a line break inside the scheme', { checkout_url: 'ht\ntps://evil.example/login' }, 'data.checkout_url'],
    ['a leading control character', { checkout_url: '\u0001https://evil.example/login' }, 'data.checkout_url'],
    ['a tab inside a script scheme', { checkout_url: 'java\tscript:alert(1)' }, 'data.checkout_url'],
    // Mail clients make a link inside text clickable: a line title is held to the same hosts.
    [
      'a link inside a line title',
      { line_items: [{ title: 'Account closing, verify now: https://evil.example/login', product_id: 'p' }] },
      'data.line_items[0].title',
    ],
    ['a www. host inside text', { note: 'Verify at www.evil.example today' }, 'data.note'],
  ])('refuses %s, naming the field', (_, extra, field) => {
    expect(() => checkPublicLinks(key, cart(extra))).toThrow(expect.objectContaining({ kind: 'validation' }));
    expect(() => checkPublicLinks(key, cart(extra))).toThrow(field);
  });

  it.each([
    ['the origin itself', { checkout_url: 'https://www.shop.example/cart/t-1' }],
    ['the origin host without www and below it', { checkout_url: 'https://cdn.shop.example/a.png' }],
    ['another allowed origin', { checkout_url: 'http://localhost:3000/cart' }],
    [
      'a link host',
      { line_items: [{ title: 'Mug', product_id: 'p', product_image_url: 'https://cdn.shopify.com/s/a.png' }] },
    ],
    ['text that only mentions a site', { note: 'see evil.example: great deals' }],
    ['text with a colon that is not a link', { note: 'Colour: red\nSize: L' }],
    ['a path on the store itself', { checkout_url: '/cart/t-1' }],
    ['a link to the store inside text', { note: 'Sizes: https://www.shop.example/sizes (or www.shop.example/faq)' }],
  ])('accepts %s', (_, extra) => {
    expect(() => checkPublicLinks(key, cart(extra))).not.toThrow();
  });

  it('says what the store allows, and that nothing is allowed before an origin is set', () => {
    expect(() => checkPublicLinks({ allowedOrigins: [], linkHosts: [] }, cart({}))).toThrow('no origin is allowed yet');
  });

  it('takes link hosts as bare host names', () => {
    expect(parseLinkHost(' CDN.Shopify.com ')).toBe('cdn.shopify.com');
    for (const bad of ['https://cdn.shopify.com', 'cdn.shopify.com/x', 'localhost', '']) {
      expect(() => parseLinkHost(bad), bad).toThrow();
    }
  });
});
