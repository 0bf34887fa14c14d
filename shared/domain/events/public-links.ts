/**
 * What a publishable key may put in an email: links and images on the store's own hosts only. The key sits in every
 * storefront page, so anyone can post with it; a cart whose `checkout_url` is a phishing page would otherwise come
 * back as the store's own abandoned-cart email, from its verified domain. Every string of a publishable-key event
 * that is a web link (`https://…`, `https:…`, `//…`, read as the URL standard reads it: `ht\ntps://…` and `\\…`
 * count) must name a host of the key's allowed origins (the host itself, or
 * below it, `www.` aside: `https://www.shop.example` allows `cdn.shop.example`) or one of the store's link hosts (a
 * CDN, set with the key); `javascript:`, `data:` and `vbscript:` URLs are refused outright. The store key is not
 * checked: a merchant's server says what it likes about its own store.
 */
import { validationError } from '#shared/errors.ts';

/** A host as the operator types it for `linkHosts` (`cdn.shopify.com`): lower case, no scheme, port or path. */
export const parseLinkHost = (raw: string): string => {
  const host = raw.trim().toLowerCase();
  if (!/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/.test(host)) {
    throw new Error(`Not a host name: ${raw} (expected e.g. cdn.shop.example)`);
  }
  return host;
};

const SCRIPTED = /^(?:javascript|data|vbscript):/i;
/**
 * A web link as a browser or mail client reads it: `https://…`, `http:…` with or without slashes (`https:evil.example`
 * is `https://evil.example/` to a client without a base URL), and scheme-relative `//…`, where a backslash counts as a
 * slash (`\\evil.example`, `/\evil.example`).
 */
const WEB = /^(?:https?:|[\\/]{2})/i;

/**
 * The string as the URL standard reads it before anything else: tabs and line breaks anywhere removed, leading control
 * characters and spaces dropped. Otherwise `java\tscript:` or `ht\ntps://evil.example` would pass as plain text and
 * still be followed as a link.
 */
const asLink = (text: string): string => {
  const link = text.replace(/[\t\n\r]/g, '');
  let start = 0;
  while (start < link.length && link.charCodeAt(start) <= 0x20) start++;
  return link.slice(start);
};

/** The hosts a key's links may name: each allowed origin's host without `www.`, and the link hosts. */
const hostsOf = (publishable: { allowedOrigins: readonly string[]; linkHosts: readonly string[] }) => [
  ...publishable.allowedOrigins.map((origin) => new URL(origin).hostname.replace(/^www\./, '')),
  ...publishable.linkHosts,
];

const onHost = (url: string, hosts: readonly string[]): boolean => {
  let host: string;
  try {
    host = new URL(url.trim(), 'https://placeholder.invalid').hostname.toLowerCase();
  } catch {
    return false;
  }
  return hosts.some((allowed) => host === allowed || host.endsWith(`.${allowed}`));
};

/**
 * Links written inside text (`Verify now: https://evil.example/login`, `www.evil.example`): mail clients make them
 * clickable, so a line title is held to the same hosts as a link field.
 */
const EMBEDDED = /(?:https?:\/\/|\bwww\.)[^\s<>"'()]+/gi;
const embedded = (text: string): string[] =>
  [...text.matchAll(EMBEDDED)].map(([url]) => (/^www\./i.test(url) ? `https://${url}` : url));

/** Every string in `value` with its path from `data` (`data.line_items[0].product_url`). */
function* strings(value: unknown, path: string): Generator<readonly [string, string]> {
  if (typeof value === 'string') yield [path, value];
  else if (Array.isArray(value)) for (const [i, item] of value.entries()) yield* strings(item, `${path}[${i}]`);
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) yield* strings(item, `${path}.${key}`);
  }
}

/**
 * Refuses (a validation error naming the field: 412 on the event interfaces) a publishable-key event with a link or
 * image off the store's hosts.
 */
export const checkPublicLinks = (
  publishable: { readonly allowedOrigins: readonly string[]; readonly linkHosts: readonly string[] },
  data: Record<string, unknown>,
): void => {
  const hosts = hostsOf(publishable);
  for (const [path, text] of strings(data, 'data')) {
    const link = asLink(text);
    if (SCRIPTED.test(link)) throw validationError(`${path} must not be a script or data URL`);
    if ((WEB.test(link) && !onHost(link, hosts)) || embedded(link).some((url) => !onHost(url, hosts))) {
      throw validationError(
        `${path} must link to the store's own site (${hosts.join(', ') || 'no origin is allowed yet'}): a publishable key cannot send links elsewhere`,
      );
    }
  }
};
