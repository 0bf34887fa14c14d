/**
 * The sending-domain, bulk email and OAuth sign-in operations called through the typed client (shared/client) against
 * the local runtime: the client checks every answer, success and error, against the OpenAPI document, so these calls
 * prove the document describes what those handlers really answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import type { StoreflowClient } from '#shared/client/index.ts';
import { apiClient, patient } from '#test/support/api-client.ts';
import { eventually, newStore, type TestStore } from '#test/support/local.ts';
import { newSubAccount, newTenant, PASSWORD, primary } from '#test/support/oauth.ts';

let runtime: LocalRuntime;
let store: TestStore;
let client: StoreflowClient;

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  store = await newStore('OpenAPI Sending Shop');
  client = apiClient(runtime, store.apiKey);
});
afterAll(async () => {
  await runtime?.stop();
});

const DOMAIN = 'mail.openapi-shop.example';

const bulk = (domain: string, emails: string[]) => ({
  subject: 'Hello {{name}}',
  html: '<p>Hi {{name}}</p>',
  from: { name: 'The Shop', email: `news@${domain}` },
  recipients: emails.map((email) => ({ address: { email, substitutionData: { name: email } } })),
});

describe('sending domains', () => {
  it('registers, lists, reads and removes a domain as the document says', async () => {
    const created = await patient(() => client.POST('/api/v1/senders', { body: { domain: DOMAIN } }));
    expect(created.response.status).toBe(200);
    expect(created.data?.data).toMatchObject({ domain: DOMAIN, status: 'verified' });
    expect(created.data?.data.dnsRecords).toHaveLength(3);

    const list = await patient(() => client.GET('/api/v1/senders'));
    expect(list.data?.data.list.map((s) => s.domain)).toContain(DOMAIN);

    const read = await patient(() => client.GET('/api/v1/senders/{domain}', { params: { path: { domain: DOMAIN } } }));
    expect(read.data?.data.verifiedAt).toEqual(expect.any(Number));

    const invalid = await patient(() =>
      client.GET('/api/v1/senders/{domain}', { params: { path: { domain: 'not_a_domain' } } }),
    );
    expect(invalid.response.status).toBe(400);
    expect(invalid.error).toEqual({ code: 400, message: 'domain must be a domain name such as mail.example.com' });

    const other = await newStore('OpenAPI Other Shop');
    const taken = await patient(() =>
      apiClient(runtime, other.apiKey).POST('/api/v1/senders', { body: { domain: DOMAIN } }),
    );
    expect(taken.response.status).toBe(409);

    const temporary = 'temp.openapi-shop.example';
    await patient(() => client.POST('/api/v1/senders', { body: { domain: temporary } }));
    const removed = await patient(() =>
      client.DELETE('/api/v1/senders/{domain}', { params: { path: { domain: temporary } } }),
    );
    expect(removed.data).toEqual({ code: 200, data: true });
    const gone = await patient(() =>
      client.DELETE('/api/v1/senders/{domain}', { params: { path: { domain: temporary } } }),
    );
    expect(gone.error).toEqual({
      code: 404,
      message: `Sender domain ${temporary} is not registered in this store`,
    });
  });
});

describe('bulk email', () => {
  it('accepts a batch with rejected recipients and reads its progress until sent', async () => {
    await patient(() => client.POST('/api/v1/senders', { body: { domain: DOMAIN } }));
    const sent = await patient(() =>
      client.POST('/api/v1/sending', {
        body: bulk(DOMAIN, ['ada@example.com', 'not-an-address', 'ADA@example.com', 'alan@example.com']),
      }),
    );
    expect(sent.response.status).toBe(200);
    expect(sent.data).toMatchObject({ totalAccepted: 2, totalRejected: 2, code: '200', succeed: true });
    expect(sent.data?.rejections.map((r) => r.reason)).toEqual(['invalid_address', 'duplicate']);
    const id = sent.data?.id ?? '';

    const done = await eventually(
      'the batch to be sent',
      async () => {
        const read = await patient(() => client.GET('/api/v1/sending/{id}', { params: { path: { id } } }));
        return read.data?.status === 'sent' ? read.data : undefined;
      },
      60_000,
    );
    expect(done).toMatchObject({ id, sent: 2, failed: 0, pending: 0, chunks: 1, chunksDone: 1, totalRejected: 2 });
    expect(done.rejections).toHaveLength(2);
  });

  it('answers its refusals in the documented shape', async () => {
    const invalid = await patient(() =>
      client.POST('/api/v1/sending', {
        body: { ...bulk(DOMAIN, ['ada@example.com']), html: undefined } as never,
      }),
    );
    expect(invalid.response.status).toBe(400);
    expect(invalid.error).toMatchObject({ code: '400', succeed: false, id: null, totalAccepted: 0 });

    runtime.ses.setIdentityStatus('pending.openapi-shop.example', 'pending');
    await patient(() => client.POST('/api/v1/senders', { body: { domain: 'pending.openapi-shop.example' } }));
    const pending = await patient(() =>
      client.POST('/api/v1/sending', {
        body: bulk('pending.openapi-shop.example', ['ada@example.com']),
      }),
    );
    expect(pending.response.status).toBe(409);

    const missing = await patient(() => client.GET('/api/v1/sending/{id}', { params: { path: { id: 'sb_missing' } } }));
    expect(missing.response.status).toBe(404);
    expect(missing.error).toMatchObject({ code: '404', message: 'Batch not found' });

    const anonymous = await patient(() =>
      apiClient(runtime).POST('/api/v1/sending', { body: bulk(DOMAIN, ['ada@example.com']) }),
    );
    expect(anonymous.response.status).toBe(401);
  });
});

describe('OAuth sign-in', () => {
  it('answers a sign-in link, and its refusals, as the document says', async () => {
    const tenant = await newTenant('OpenAPI Main');
    const owned = primary(tenant);
    const username = await newSubAccount(tenant);
    const oauth = apiClient(runtime, owned.apiKey);

    const link = await oauth.POST('/api/v1/oauth', { body: { username, password: PASSWORD } });
    expect(link.response.status).toBe(200);
    expect(link.data?.data.oauthUrl).toMatch(/\/oauth\/callback\?token=[A-Za-z0-9_-]{43}$/);

    const wrong = await oauth.POST('/api/v1/oauth', { body: { username, password: `${PASSWORD}!` } });
    expect(wrong.response.status).toBe(401);
    expect(wrong.error).toMatchObject({ state: 401, success: false, message: 'Wrong username or password' });

    const empty = await oauth.POST('/api/v1/oauth', { body: { username, password: '' } });
    expect(empty.response.status).toBe(400);

    const otherStore = await newStore('OpenAPI Unowned Shop');
    // A store of no main account: its key finds no candidate sub-account, the same answer as an unknown username.
    const foreign = await apiClient(runtime, otherStore.apiKey).POST('/api/v1/oauth', {
      body: { username, password: PASSWORD },
    });
    expect(foreign.response.status).toBe(401);
  });
});
