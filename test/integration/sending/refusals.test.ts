/** What `POST /api/v1/sending` refuses, and how: the spec's response shape with `succeed: false`, nothing queued. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoSuppressions } from '#shared/adapters/dynamodb/email.repositories.ts';
import { mailsTo } from '#test/integration/flows/engine-support.ts';
import { eventually, newStore, type TestStore } from '#test/support/local.ts';
import { bulk, call, readBatch, recipients, registerDomain, send } from '#test/support/sending.ts';

let runtime: LocalRuntime;
let store: TestStore;
const DOMAIN = 'refusals.example';

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  store = await newStore('Sending refusals');
  await registerDomain(runtime, store, DOMAIN);
});
afterAll(async () => {
  await runtime?.stop();
});

const refused = (body: Record<string, unknown>, code: string) => {
  expect(body).toMatchObject({ totalAccepted: 0, totalRejected: 0, id: null, code, succeed: false });
  expect(typeof body.message).toBe('string');
};

describe('POST /api/v1/sending refuses', () => {
  it('a call without a valid key (401)', async () => {
    const missing = await send(runtime, undefined, bulk(DOMAIN));
    expect(missing.status).toBe(401);
    refused(missing.body, '401');
    const wrong = await send(runtime, { storeId: store.storeId, apiKey: 'not-a-key' }, bulk(DOMAIN));
    expect(wrong.status).toBe(401);
  });

  it('2,001 recipients (400), naming the limit', async () => {
    const answer = await send(runtime, store, bulk(DOMAIN, { recipients: recipients(2001, 'example.com') }));
    expect(answer.status).toBe(400);
    refused(answer.body, '400');
    expect(answer.body.message).toContain('at most 2000 recipients');
  });

  it('no recipient at all', async () => {
    const answer = await send(runtime, store, bulk(DOMAIN, { recipients: [] }));
    expect(answer.status).toBe(400);
    expect(answer.body.message).toContain('recipients');
  });

  it('neither html nor text (400)', async () => {
    const { html, text, ...rest } = bulk(DOMAIN) as Record<string, unknown>;
    const answer = await send(runtime, store, rest);
    expect(answer.status).toBe(400);
    refused(answer.body, '400');
    expect(answer.body.message).toBe('html or text is required (at least one, not empty)');
    const empty = await send(runtime, store, { ...rest, html: '', text: '' });
    expect(empty.status).toBe(400);
  });

  it('a from domain the store has not registered (400), or that another store registered', async () => {
    const answer = await send(runtime, store, bulk('unregistered.example'));
    expect(answer.status).toBe(400);
    refused(answer.body, '400');
    expect(answer.body.message).toContain('unregistered.example is not a sending domain of this store');

    const other = await newStore('Other sender');
    await registerDomain(runtime, other, 'others-domain.example');
    const foreign = await send(runtime, store, bulk('others-domain.example'));
    expect(foreign.status).toBe(400);
    expect(foreign.body.message).toContain('others-domain.example is not a sending domain of this store');
  });

  it('CR or LF anywhere a header is built from: subject, from.name, replyTo, recipient names, extra headers', async () => {
    const cases: Record<string, unknown>[] = [
      { subject: 'Hi\r\nBcc: victim@example.com' },
      { subject: 'Spring sale\r\n' },
      { from: { name: 'Shop\nBcc: x@example.com', email: `news@${DOMAIN}` } },
      { replyTo: `help@${DOMAIN}\r\nBcc: x@example.com` },
      { recipients: [{ address: { email: 'a@example.com', name: 'A\r\nBcc: x@example.com' } }] },
      { headers: { 'X-Campaign': 'spring\r\nBcc: x@example.com' } },
      { headers: { 'X-Campaign\r\nBcc': 'x@example.com' } },
    ];
    for (const override of cases) {
      const answer = await send(runtime, store, bulk(DOMAIN, override));
      expect(answer.status, JSON.stringify(override)).toBe(400);
      expect(String(answer.body.message)).toMatch(/line breaks|not an allowed header name/);
    }
  });

  it('headers the service or SES owns, and names outside the safe token set', async () => {
    for (const name of [
      'From',
      'to',
      'Subject',
      'List-Unsubscribe',
      'Reply-To',
      'X-SES-Whatever',
      'X Spaced',
      'X:Y',
      // Not on any deny-list before: custom headers now come from an allow-list.
      'Disposition-Notification-To',
      'Resent-To',
      'Resent-From',
      'Authentication-Results',
      'DKIM-Signature',
      'Received',
      'Return-Path',
      'ARC-Seal',
      'Importance',
    ]) {
      const answer = await send(runtime, store, bulk(DOMAIN, { headers: { [name]: 'v' } }));
      expect(answer.status, name).toBe(400);
      expect(String(answer.body.message)).toContain('headers.');
    }
    const accepted = await send(
      runtime,
      store,
      bulk(DOMAIN, { headers: { 'X-Campaign': 'spring-2026', 'List-Id': '<news.shop.example>' } }),
    );
    expect(accepted.status).toBe(200);
  });

  it('malformed fields, each named', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ subject: '' }, 'subject'],
      [{ from: { email: `news@${DOMAIN}` } }, 'from.name'],
      [{ from: { name: 'Shop', email: 'not-an-address' } }, 'from.email'],
      [{ replyTo: 'nope' }, 'replyTo'],
      [{ recipients: [{ address: { name: 'no email' } }] }, 'recipients[0].address.email'],
      [{ substitutionData: [1, 2] }, 'substitutionData'],
    ];
    for (const [override, field] of cases) {
      const answer = await send(runtime, store, bulk(DOMAIN, override));
      expect(answer.status, field).toBe(400);
      expect(String(answer.body.message)).toContain(field);
    }
    const notJson = await send(runtime, store, '{"subject":');
    expect(notJson.status).toBe(400);
    refused(notJson.body, '400');
  });
});

describe('recipients rejected one by one', () => {
  it('counts suppressed, invalid and repeated addresses as rejected, and lists them with reasons', async () => {
    await dynamoSuppressions().suppress({
      storeId: store.storeId,
      email: 'gone@example.com',
      reason: 'unsubscribed',
      at: Date.now(),
    });
    const answer = await send(
      runtime,
      store,
      bulk(DOMAIN, {
        recipients: [
          { address: { email: 'kept@example.com' } },
          { address: { email: 'GONE@example.com' } },
          { address: { email: 'not an address' } },
          { address: { email: 'kept@EXAMPLE.com' } },
        ],
      }),
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ totalAccepted: 1, totalRejected: 3, code: '200', succeed: true });
    expect(answer.body.message).toContain('1 recipients accepted, 3 rejected');
    expect(answer.body.rejections).toEqual([
      { index: 1, email: 'GONE@example.com', reason: 'suppressed' },
      { index: 2, email: 'not an address', reason: 'invalid_address' },
      { index: 3, email: 'kept@example.com', reason: 'duplicate' },
    ]);
    const read = await readBatch(runtime, store, String(answer.body.id));
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: answer.body.id, totalAccepted: 1, totalRejected: 3, succeed: true });
    expect(read.body.rejections).toEqual(answer.body.rejections);
  });

  it('rejects a recipient whose substitution data puts a line break in a header, and sends the rest', async () => {
    const answer = await send(
      runtime,
      store,
      bulk(DOMAIN, {
        subject: 'Hello {{name}}',
        recipients: [
          { address: { email: 'hdr-ada@example.com', substitutionData: { name: 'Ada\r\nBcc: stolen@evil.example' } } },
          { address: { email: 'hdr-bob@example.com', substitutionData: { name: 'Bob' } } },
          {
            address: {
              email: 'hdr-cy@example.com',
              substitutionData: { name: 'Cy', note: 'line\nbreak in the body is fine' },
            },
          },
        ],
      }),
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ totalAccepted: 2, totalRejected: 1 });
    expect(answer.body.rejections).toEqual([{ index: 0, email: 'hdr-ada@example.com', reason: 'header_line_break' }]);
    const mails = await eventually('the two clean emails', async () => {
      const found = await mailsTo(runtime, 'hdr-bob@example.com');
      return found.length > 0 ? found : undefined;
    });
    expect(mails[0]?.subject).toBe('Hello Bob');
    expect(await mailsTo(runtime, 'hdr-ada@example.com')).toEqual([]);
  });

  it('accepts a call whose every recipient is rejected, with nothing to send', async () => {
    const answer = await send(runtime, store, bulk(DOMAIN, { recipients: [{ address: { email: 'bad' } }] }));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ totalAccepted: 0, totalRejected: 1, succeed: true });
    const read = await readBatch(runtime, store, String(answer.body.id));
    expect(read.body).toMatchObject({ status: 'sent', sent: 0, failed: 0, pending: 0 });
  });
});

describe('GET /api/v1/sending/{id}', () => {
  it('answers another store exactly like a missing batch (404), and 401 without a key', async () => {
    const answer = await send(runtime, store, bulk(DOMAIN));
    const id = String(answer.body.id);
    const other = await newStore('Nosy store');
    const foreign = await readBatch(runtime, other, id);
    const missing = await readBatch(runtime, store, 'sb_doesNotExist0000000');
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    refused(foreign.body, '404');
    const anonymous = await call(runtime.urls.sending, undefined, 'GET', `/api/v1/sending/${id}`);
    expect(anonymous.status).toBe(401);
  });
});
