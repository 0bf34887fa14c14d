/**
 * Webhook URL safety and signing, as units (no runtime): which addresses count as public, the URL rules of
 * subscriptions (spec "Webhook management": publicly reachable HTTPS, at most 500 characters), the address guard, the
 * sender's refusal of non-public addresses before any connection is made, and the signature of spec "Authentication"
 * rule 5.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addressGuard, httpWebhookSender, isPublicAddress } from '#shared/adapters/http/webhook-sender.ts';
import { deliveryHeaders, signature } from '#shared/domain/webhooks/deliver.ts';
import type { Delivery } from '#shared/domain/webhooks/delivery.ts';
import { parseWebhookUrl } from '#shared/domain/webhooks/webhook.ts';
import { AppError } from '#shared/errors.ts';

/** The validation error `run` throws (fails the test when it throws nothing or something else). */
const validationOf = (run: () => unknown): AppError => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).kind).toBe('validation');
    return error as AppError;
  }
  throw new Error('expected a validation error, nothing was thrown');
};

describe('isPublicAddress', () => {
  it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '2001:4860:4860::8888', '::ffff:8.8.8.8'])(
    'accepts the globally routable address %s',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );

  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback (whole 127/8)'],
    ['10.0.0.1', 'private 10/8'],
    ['10.255.255.254', 'private 10/8'],
    ['172.16.0.1', 'private 172.16/12'],
    ['172.31.255.1', 'private 172.16/12'],
    ['192.168.1.1', 'private 192.168/16'],
    ['169.254.169.254', 'link-local (cloud metadata endpoint)'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.254', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'IPv6 loopback'],
    ['::', 'IPv6 unspecified'],
    ['fc00::1', 'IPv6 unique local'],
    ['fd12:3456:789a::1', 'IPv6 unique local'],
    ['fe80::1', 'IPv6 link-local'],
    ['ff02::1', 'IPv6 multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::ffff:169.254.169.254', 'IPv4-mapped metadata endpoint'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['::169.254.169.254', 'IPv4-compatible metadata endpoint'],
    ['::10.0.0.1', 'IPv4-compatible private'],
    ['::7f00:1', 'IPv4-compatible loopback in hex'],
    ['0:0:0:0:0:0:a9fe:a9fe', 'IPv4-compatible metadata endpoint, written out'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 of the metadata endpoint'],
    ['2002:7f00:1::1', '6to4 of loopback'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
  ])('refuses %s (%s)', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['example.com', '', '999.1.1.1', 'localhost'])('refuses %j, which is not an IP address', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
});

describe('parseWebhookUrl', () => {
  const strict = { allowPrivate: false };
  const local = { allowPrivate: true };

  it('accepts an https URL and returns it parsed, with the text as sent', () => {
    const { url, text } = parseWebhookUrl('  https://hooks.example.com/storeflow?x=1 ', strict);
    expect(url).toBeInstanceOf(URL);
    expect(url.hostname).toBe('hooks.example.com');
    expect(text).toBe('https://hooks.example.com/storeflow?x=1');
  });

  it('keeps the text as sent, so a URL of 500 characters stays 500 (no percent-encoding on the way in)', () => {
    const prefix = 'https://example.com/';
    const accented = prefix + 'é'.repeat(500 - prefix.length);
    const { url, text } = parseWebhookUrl(accented, strict);
    expect(text).toBe(accented);
    expect([...text]).toHaveLength(500);
    expect(url.toString().length).toBeGreaterThan(500);
  });

  it('refuses plain http to a public host, even where private addresses are allowed', () => {
    expect(validationOf(() => parseWebhookUrl('http://example.com/hook', strict)).message).toMatch(/https/);
    expect(validationOf(() => parseWebhookUrl('http://example.com/hook', local)).message).toMatch(/https/);
  });

  it('refuses plain http to loopback unless private addresses are allowed', () => {
    for (const raw of ['http://127.0.0.1:8080/hook', 'http://localhost:8080/hook', 'http://[::1]:8080/hook']) {
      expect(validationOf(() => parseWebhookUrl(raw, strict)).message).toMatch(/https/);
      expect(parseWebhookUrl(raw, local).text).toBe(raw);
    }
  });

  it('refuses plain http to a private but non-loopback host even where private addresses are allowed', () => {
    expect(validationOf(() => parseWebhookUrl('http://10.0.0.5/hook', local)).message).toMatch(/https/);
  });

  it.each(['ftp://example.com/hook', 'ws://example.com/hook', 'file:///etc/passwd', 'javascript:alert(1)'])(
    'refuses the non-https scheme of %s',
    (raw) => {
      expect(validationOf(() => parseWebhookUrl(raw, local)).message).toMatch(/https/);
    },
  );

  it.each(['https://user:secret@example.com/hook', 'https://user@example.com/hook', 'https://:pw@example.com/'])(
    'refuses credentials in %s',
    (raw) => {
      expect(validationOf(() => parseWebhookUrl(raw, strict)).message).toMatch(/credentials/);
    },
  );

  it('accepts exactly 500 characters and refuses 501', () => {
    const prefix = 'https://example.com/';
    const at500 = prefix + 'a'.repeat(500 - prefix.length);
    expect(at500).toHaveLength(500);
    expect(parseWebhookUrl(at500, strict).text).toBe(at500);
    const at501 = `${at500}b`;
    expect(validationOf(() => parseWebhookUrl(at501, strict)).message).toMatch(/url.*500/);
  });

  it.each(['not a url', '/relative/path', 'example.com/hook', 'https://'])(
    'refuses %j, which is not an absolute URL',
    (raw) => {
      expect(validationOf(() => parseWebhookUrl(raw, strict)).message).toMatch(/url/);
    },
  );

  it.each([undefined, null, '', '   ', 42, { href: 'https://example.com' }])(
    'refuses a missing or non-string url (%j)',
    (raw) => {
      expect(validationOf(() => parseWebhookUrl(raw, strict)).message).toBe('url is required');
    },
  );
});

describe('addressGuard', () => {
  const guard = addressGuard({ allowPrivate: false });

  it.each([
    'https://127.0.0.1/x',
    'https://localhost/x',
    'https://[::1]/x',
    'https://10.1.2.3/x',
    'https://169.254.169.254/latest/meta-data/',
    'https://[::ffff:127.0.0.1]/x',
    'https://[::127.0.0.1]/x',
    'https://[::169.254.169.254]/latest/meta-data/',
    'https://[::10.0.0.1]/x',
    'https://0.0.0.0/x',
  ])('rejects %s, which is not publicly reachable', async (raw) => {
    const error = await guard.assertPublic(new URL(raw)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).kind).toBe('validation');
    expect((error as AppError).message).toMatch(/url/);
  });

  it('accepts a public IP literal (no lookup needed)', async () => {
    await expect(guard.assertPublic(new URL('https://8.8.8.8/hook'))).resolves.toBeUndefined();
  });

  it('lets everything through where private addresses are allowed (the local runtime)', async () => {
    const permissive = addressGuard({ allowPrivate: true });
    await expect(permissive.assertPublic(new URL('https://127.0.0.1/x'))).resolves.toBeUndefined();
    await expect(permissive.assertPublic(new URL('https://localhost/x'))).resolves.toBeUndefined();
  });
});

describe('httpWebhookSender against a real local server', () => {
  let server: Server;
  let port: number;
  let connections = 0;
  let requests: { headers: IncomingHttpHeaders; body: string }[] = [];
  /** `hang`: no answer at all; `stall`: 200 and part of a body, then nothing; `trickle`: 200, then a byte every 200 ms. */
  let answer: number | 'hang' | 'stall' | 'trickle' = 200;
  const trickles = new Set<NodeJS.Timeout>();

  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        requests.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
        if (answer === 'hang') return;
        if (answer === 'stall') {
          response.writeHead(200).write('partial');
          return;
        }
        if (answer === 'trickle') {
          response.writeHead(200);
          const timer = setInterval(() => response.write('.'), 200);
          trickles.add(timer);
          response.on('close', () => clearInterval(timer));
          return;
        }
        response.writeHead(answer).end(`status ${answer} ${'x'.repeat(1000)}`);
      });
    });
    server.on('connection', () => {
      connections += 1;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    for (const timer of trickles) clearInterval(timer);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  beforeEach(() => {
    connections = 0;
    requests = [];
    answer = 200;
  });

  const strictSender = httpWebhookSender({ allowPrivate: false, timeoutSeconds: 2 });
  const localSender = httpWebhookSender({ allowPrivate: true, timeoutSeconds: 1 });
  const body = JSON.stringify({ hello: 'world' });

  it('refuses a loopback IP literal with outcome error, before connecting (the server sees no connection)', async () => {
    const result = await strictSender.post(`http://127.0.0.1:${port}/`, body, { 'content-type': 'application/json' });
    expect(result.outcome).toBe('error');
    expect(result.statusCode).toBeUndefined();
    expect(result.error).toMatch(/refused/);
    // Give a connection that was opened anyway the time to show up.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(connections).toBe(0);
    expect(requests).toEqual([]);
  });

  it('refuses a host name that resolves to loopback at connect time (DNS lookup), before connecting', async () => {
    const result = await strictSender.post(`http://localhost:${port}/`, body, { 'content-type': 'application/json' });
    expect(result.outcome).toBe('error');
    expect(result.error).toMatch(/non-public/);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(connections).toBe(0);
    expect(requests).toEqual([]);
  });

  it('reaches the same server where private addresses are allowed (so the refusal above is the guard)', async () => {
    const result = await localSender.post(`http://127.0.0.1:${port}/`, body, {
      'content-type': 'application/json',
      'x-service-topic': 'customer/newsletter',
    });
    expect(result).toMatchObject({ statusCode: 200, outcome: 'delivered' });
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
    expect(connections).toBe(1);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.body).toBe(body);
    expect(requests[0]?.headers['x-service-topic']).toBe('customer/newsletter');
    expect(requests[0]?.headers['content-length']).toBe(String(Buffer.byteLength(body)));
  });

  it('reports any status other than 200 as rejected, keeping at most 500 characters of the answer', async () => {
    answer = 201;
    const result = await localSender.post(`http://127.0.0.1:${port}/`, body, {});
    expect(result).toMatchObject({ statusCode: 201, outcome: 'rejected' });
    expect(result.responseExcerpt).toHaveLength(500);
    expect(result.responseExcerpt?.startsWith('status 201 ')).toBe(true);
  });

  it('reports a receiver that does not answer within the timeout as timeout', async () => {
    answer = 'hang';
    const started = Date.now();
    const result = await localSender.post(`http://127.0.0.1:${port}/`, body, {});
    expect(result.outcome).toBe('timeout');
    expect(result.statusCode).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('reports a 200 whose body never ends as timeout, not delivered', async () => {
    answer = 'stall';
    const result = await localSender.post(`http://127.0.0.1:${port}/`, body, {});
    expect(result.outcome).toBe('timeout');
  });

  it('bounds the whole attempt by the timeout: a receiver that trickles its answer does not hold it open', async () => {
    answer = 'trickle';
    const started = Date.now();
    const result = await localSender.post(`http://127.0.0.1:${port}/`, body, {});
    expect(result.outcome).toBe('timeout');
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(Date.now() - started).toBeLessThan(2500);
  });
});

describe('signature', () => {
  const key = 'shop_0123456789abcdefghijklmnopqrstuvwxyzABCD';

  it('is the Base64 HMAC-SHA256 of the raw UTF-8 body keyed with the store key', () => {
    const body = JSON.stringify({ email: 'zoë@example.com', note: 'naïve ✓ 🎉', n: 1 });
    const expected = createHmac('sha256', Buffer.from(key, 'utf8')).update(Buffer.from(body, 'utf8')).digest('base64');
    expect(signature(body, key)).toBe(expected);
    expect(Buffer.from(signature(body, key), 'base64')).toHaveLength(32);
  });

  it('changes with any byte of the body and with the key', () => {
    const body = '{"a":1}';
    expect(signature(body, key)).not.toBe(signature('{"a": 1}', key));
    expect(signature(body, key)).not.toBe(signature(body, `${key}x`));
  });

  it('is what the delivery headers carry, with the topic, webhook id and delivery id', () => {
    const delivery: Delivery = {
      storeId: 'st_1',
      id: 'dl_1',
      webhookId: 'wh_1',
      topic: 'customer/newsletter',
      url: 'https://example.com/hook',
      eventId: 'newsletter#s1',
      body: '{"id":"c-1"}',
      status: 'pending',
      attempts: [],
      createdAt: 0,
      updatedAt: 0,
      revision: 1,
    };
    const headers = deliveryHeaders(delivery, key, 1_767_000_000_500);
    expect(headers).toMatchObject({
      'content-type': 'application/json',
      'x-service-hmac-sha256': createHmac('sha256', key).update('{"id":"c-1"}').digest('base64'),
      // The attempt's time, signed with the body: a receiver can refuse a delivery posted again later.
      'x-service-timestamp': '1767000000',
      'x-service-timestamp-hmac-sha256': createHmac('sha256', key).update('1767000000.{"id":"c-1"}').digest('base64'),
      'x-service-topic': 'customer/newsletter',
      'x-service-webhook-id': 'wh_1',
      'x-service-delivery-id': 'dl_1',
    });
  });
});
