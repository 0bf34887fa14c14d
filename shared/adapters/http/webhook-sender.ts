/**
 * Webhook HTTP: the address guard (subscription time) and the sender (delivery time). Both refuse hosts that resolve to
 * loopback, private, link-local, carrier-grade NAT, multicast or reserved addresses, which covers the cloud metadata
 * endpoint (169.254.169.254). The sender checks the addresses it actually connects to, in the socket's DNS lookup, so a
 * name that resolved to a public address at subscription time and to an internal one later (DNS rebinding) is refused.
 * Where private addresses are allowed (the local runtime), both let everything through.
 */
import { promises as dns, type LookupAddress, lookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { RESPONSE_EXCERPT_CHARS } from '#shared/domain/webhooks/delivery.ts';
import type { AddressGuard, PostResult, WebhookSender } from '#shared/domain/webhooks/ports.ts';
import { validationError } from '#shared/errors.ts';

/** IANA's global unicast block, 2000::/3: every other IPv6 address is special-purpose or embeds another address. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * Only globally routable unicast addresses receive webhooks. IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is judged as its IPv4
 * address; any other IPv6 must be global unicast (2000::/3) and not a transition form: the deprecated IPv4-compatible
 * `::a.b.c.d` (`[::127.0.0.1]`, `[::169.254.169.254]`) falls outside 2000::/3, and 6to4 and Teredo, which carry an IPv4
 * address inside, are ranges of their own.
 */
export const isPublicAddress = (address: string): boolean => {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address); // IPv4-mapped IPv6 becomes IPv4
  if (parsed.range() !== 'unicast') return false;
  return parsed.kind() === 'ipv4' || parsed.match(GLOBAL_UNICAST_V6);
};

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

export const addressGuard = (options: { allowPrivate: boolean }): AddressGuard => ({
  async assertPublic(url) {
    if (options.allowPrivate) return;
    const host = hostOf(url);
    let addresses: string[];
    try {
      addresses = ipaddr.isValid(host) ? [host] : (await dns.lookup(host, { all: true })).map((a) => a.address);
    } catch {
      throw validationError('url host does not resolve');
    }
    if (addresses.length === 0 || !addresses.every(isPublicAddress)) {
      throw validationError('url must point to a publicly reachable host');
    }
  },
});

/** `dns.lookup` that fails the connection when any address is not public. */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 4);
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused || addresses.length === 0) {
      const reason = new Error(`refused: ${hostname} resolves to a non-public address`);
      return callback(Object.assign(reason, { code: 'EADDRNOTPUBLIC' }), '', 4);
    }
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    const [first] = addresses;
    return callback(null, first?.address ?? '', first?.family ?? 4);
  });
};

const agents = {
  'http:': new http.Agent({ keepAlive: true }),
  'https:': new https.Agent({ keepAlive: true }),
};

export const httpWebhookSender = (options: { timeoutSeconds: number; allowPrivate: boolean }): WebhookSender => ({
  post: (url, body, headers) =>
    new Promise<PostResult>((resolve) => {
      const target = new URL(url);
      const started = performance.now();
      const latency = () => Math.round(performance.now() - started);
      const client = target.protocol === 'https:' ? https : http;
      const hostIsLiteral = ipaddr.isValid(hostOf(target));
      if (!options.allowPrivate && hostIsLiteral && !isPublicAddress(hostOf(target))) {
        resolve({ latencyMs: 0, outcome: 'error', error: 'refused: the url is a non-public address' });
        return;
      }
      // Set by either bound below: the socket's idle timeout, or the deadline of the attempt as a whole (a receiver
      // that keeps sending a byte now and then never goes idle, and would otherwise hold the worker indefinitely).
      let timedOut = false;
      const expire = () => {
        timedOut = true;
        request.destroy(new Error(`no answer within ${options.timeoutSeconds} s`));
      };
      const request = client.request(
        target,
        {
          method: 'POST',
          headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
          agent: agents[target.protocol as 'http:' | 'https:'],
          timeout: options.timeoutSeconds * 1000,
          ...(options.allowPrivate ? {} : { lookup: publicOnlyLookup }),
        },
        (response) => {
          const statusCode = response.statusCode ?? 0;
          let excerpt = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            if (excerpt.length < RESPONSE_EXCERPT_CHARS)
              excerpt += chunk.slice(0, RESPONSE_EXCERPT_CHARS - excerpt.length);
          });
          response.on('end', () => {
            resolve({
              statusCode,
              latencyMs: latency(),
              outcome: statusCode === 200 ? 'delivered' : 'rejected',
              ...(excerpt ? { responseExcerpt: excerpt } : {}),
            });
          });
          response.on('error', (error) =>
            resolve({
              statusCode,
              latencyMs: latency(),
              outcome: timedOut ? 'timeout' : 'error',
              error: error.message,
            }),
          );
        },
      );
      const deadline = setTimeout(expire, options.timeoutSeconds * 1000);
      request.on('close', () => clearTimeout(deadline));
      request.on('timeout', expire);
      request.on('error', (error: Error & { code?: string }) => {
        resolve({ latencyMs: latency(), outcome: timedOut ? 'timeout' : 'error', error: error.message });
      });
      request.end(body);
    }),
});
