/** Sending domains: registration with Easy DKIM records, status, one store per domain, and the send-time check. */
import { CreateEmailIdentityCommand, GetEmailIdentityCommand } from '@aws-sdk/client-sesv2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { sesv2 } from '#shared/adapters/aws-clients.ts';
import { config } from '#shared/config.ts';
import { newStore, type TestStore } from '#test/support/local.ts';
import { bulk, call, registerDomain, send } from '#test/support/sending.ts';

let runtime: LocalRuntime;
let store: TestStore;

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  store = await newStore('Senders');
});
afterAll(async () => {
  await runtime?.stop();
});

const senders = (s: TestStore | undefined, method: 'GET' | 'POST' | 'DELETE', path = '', body?: unknown) =>
  call(runtime.urls.main, s?.apiKey, method, `/api/v1/senders${path}`, body);

describe('sending domains', () => {
  it('registers a domain through SES (Easy DKIM) and answers the three CNAMEs to publish', async () => {
    const before = runtime.sesCalls().CreateEmailIdentity ?? 0;
    const answer = await senders(store, 'POST', '', { domain: 'Mail.Shop-One.example.' });
    expect(answer.status).toBe(200);
    expect(answer.body.code).toBe(200);
    const data = answer.body.data as Record<string, unknown>;
    expect(data).toMatchObject({ domain: 'mail.shop-one.example', status: 'verified' });
    const records = data.dnsRecords as { type: string; name: string; value: string }[];
    expect(records).toHaveLength(3);
    for (const record of records) {
      const token = record.name.split('.')[0] as string;
      expect(token).toMatch(/^[a-z0-9]{32}$/);
      expect(record).toEqual({
        type: 'CNAME',
        name: `${token}._domainkey.mail.shop-one.example`,
        value: `${token}.dkim.amazonses.com`,
      });
    }
    expect(runtime.sesCalls().CreateEmailIdentity).toBe(before + 1);

    // A repeat by the same store answers the same records, without a second identity.
    const again = await senders(store, 'POST', '', { domain: 'mail.shop-one.example' });
    expect((again.body.data as Record<string, unknown>).dnsRecords).toEqual(records);
    expect(runtime.sesCalls().CreateEmailIdentity).toBe(before + 1);

    const list = await senders(store, 'GET');
    expect(list.body.data).toMatchObject({ total: 1, list: [{ domain: 'mail.shop-one.example', status: 'verified' }] });
    const one = await senders(store, 'GET', '/mail.shop-one.example');
    expect(one.body.data).toMatchObject({ domain: 'mail.shop-one.example', status: 'verified', dnsRecords: records });
  });

  it('refuses a domain another store registered, with a clear message (409), until it lets it go', async () => {
    const owner = await newStore('Owner');
    const other = await newStore('Latecomer');
    await registerDomain(runtime, owner, 'taken.example');
    const refused = await senders(other, 'POST', '', { domain: 'TAKEN.example' });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      code: 409,
      message: 'The domain taken.example is registered by another store; a domain can send for one store only',
    });
    // The owner's domain is invisible to the other store: read and delete answer like a missing domain.
    const read = await senders(other, 'GET', '/taken.example');
    const missing = await senders(other, 'GET', '/never-registered.example');
    expect(read.status).toBe(404);
    expect(read.body.message).toBe('Sender domain taken.example is not registered in this store');
    expect(missing.status).toBe(404);
    expect((await senders(other, 'DELETE', '/taken.example')).status).toBe(404);

    const removed = await senders(owner, 'DELETE', '/taken.example');
    expect(removed.body).toEqual({ code: 200, data: true });
    expect((await senders(owner, 'GET', '/taken.example')).status).toBe(404);
    expect((await senders(other, 'POST', '', { domain: 'taken.example' })).status).toBe(200);
  });

  it("refuses a subdomain or a parent of another store's domain (409), creating no identity", async () => {
    const victim = await newStore('Victim');
    const attacker = await newStore('Squatter');
    await registerDomain(runtime, victim, 'victim-shop.example');
    await registerDomain(runtime, victim, 'mail.other-victim.example');
    const before = runtime.sesCalls().CreateEmailIdentity ?? 0;

    const child = await senders(attacker, 'POST', '', { domain: 'mail.victim-shop.example' });
    expect(child.status).toBe(409);
    expect(child.body).toEqual({
      code: 409,
      message:
        'The domain mail.victim-shop.example is related to victim-shop.example, registered by another store: a ' +
        'domain, its parents and its subdomains send for one store only',
    });
    const parent = await senders(attacker, 'POST', '', { domain: 'other-victim.example' });
    expect(parent.status).toBe(409);
    expect(parent.body.message).toContain('related to mail.other-victim.example');
    expect(runtime.sesCalls().CreateEmailIdentity ?? 0).toBe(before);
    expect((await senders(attacker, 'GET')).body).toMatchObject({ data: { total: 0 } });
    // The victim itself may add its own subdomains.
    expect((await senders(victim, 'POST', '', { domain: 'news.victim-shop.example' })).status).toBe(200);
  });

  it('refuses a domain that is already an SES identity of the account outside Storeflow (409), adopting nothing', async () => {
    // The operator (or another application) verified this domain in the same SES account.
    await sesv2().send(new CreateEmailIdentityCommand({ EmailIdentity: 'operator.example' }));
    const owner = await newStore('Not the operator');
    const refused = await senders(owner, 'POST', '', { domain: 'operator.example' });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      code: 409,
      message:
        'The domain operator.example is already an SES identity of this account outside Storeflow; it cannot be registered by a store',
    });
    // No claim is left: the store has no such sender, and nothing was deleted from SES.
    expect((await senders(owner, 'GET', '/operator.example')).status).toBe(404);
    expect(await sesv2().send(new GetEmailIdentityCommand({ EmailIdentity: 'operator.example' }))).toBeTruthy();
  });

  it('refuses a domain another Storeflow stage registered in the same SES account (409 naming it), and tags its own', async () => {
    // What the test stage's senders-create leaves in an account that prod shares.
    await sesv2().send(
      new CreateEmailIdentityCommand({
        EmailIdentity: 'shared-account.example',
        Tags: [{ Key: 'storeflow:stage', Value: 'test' }],
      }),
    );
    const owner = await newStore('Other stage');
    const refused = await senders(owner, 'POST', '', { domain: 'shared-account.example' });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(
      "The domain shared-account.example is registered by Storeflow's test deployment in the same SES account: SES " +
        'identities are per account and region, so it can send for one deployment only',
    );
    expect((await senders(owner, 'GET', '/shared-account.example')).status).toBe(404);
    // This stage's own identities carry its stage, which its IAM policy requires to delete them.
    expect((await senders(owner, 'POST', '', { domain: 'tagged.example' })).status).toBe(200);
    const own = await sesv2().send(new GetEmailIdentityCommand({ EmailIdentity: 'tagged.example' }));
    expect(own.Tags).toEqual([{ Key: 'storeflow:stage', Value: config().stage }]);
  });

  it('refuses what is not a domain name (400) and calls without a key (401)', async () => {
    for (const domain of ['', 'localhost', 'a@b.example', 'http://x.example', '-bad.example', '1.2.3.4', 42]) {
      const answer = await senders(store, 'POST', '', { domain });
      expect(answer.status, String(domain)).toBe(400);
      expect(String(answer.body.message)).toMatch(/^domain (is required|must be a domain name)/);
    }
    expect((await senders(undefined, 'GET')).status).toBe(401);
    expect((await senders(undefined, 'POST', '', { domain: 'x.example' })).status).toBe(401);
  });

  it('refuses to send from a domain that is not verified yet (409), and sends once it is', async () => {
    runtime.ses.setIdentityStatus('pending-dkim.example', 'pending');
    const registered = await registerDomain(runtime, store, 'pending-dkim.example');
    expect(registered.status).toBe('pending');
    expect(registered.dnsRecords).toHaveLength(3);

    const refused = await send(runtime, store, bulk('pending-dkim.example'));
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: '409', succeed: false, totalAccepted: 0, id: null });
    expect(refused.body.message).toContain('pending-dkim.example is not verified yet: publish its DKIM records');

    runtime.ses.setIdentityStatus('pending-dkim.example', 'failed');
    const failed = await senders(store, 'GET', '/pending-dkim.example');
    expect((failed.body.data as Record<string, unknown>).status).toBe('failed');
    const refusedAgain = await send(runtime, store, bulk('pending-dkim.example'));
    expect(refusedAgain.status).toBe(409);
    expect(refusedAgain.body.message).toContain('failed DKIM verification');

    runtime.ses.setIdentityStatus('pending-dkim.example', 'verified');
    const verified = await senders(store, 'GET', '/pending-dkim.example');
    expect(verified.body.data).toMatchObject({ status: 'verified' });
    expect(typeof (verified.body.data as Record<string, unknown>).verifiedAt).toBe('number');
    const accepted = await send(runtime, store, bulk('pending-dkim.example'));
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ totalAccepted: 2, succeed: true });
  });
});
