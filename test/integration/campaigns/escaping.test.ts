/**
 * The attack on campaign emails replayed over HTTP on the local runtime: first names set through the store's
 * publishable key (a storefront visitor) carry markup and a header injection; the campaign's email, as the local SES
 * stores it, shows the link as text in its HTML part, and the CR/LF name gets no email (`header_line_break`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { issuePublishableKey } from '#shared/domain/stores/manage-stores.ts';
import { storeAdminDeps } from '#shared/wiring/store-admin.ts';
import {
  ensureSender,
  eventually,
  newStore,
  senderOf,
  type TestStore,
} from '#test/integration/flows/engine-support.ts';
import { mailStore } from '#test/support/sending.ts';
import { api } from '#test/support/webhooks.ts';

// Markup a visitor may still type (a link to another site is refused at the edge: public-links.ts).
const LINK = '<a href="/refund" onclick="steal()">Claim your refund</a>';
const ESCAPED = '&lt;a href=&#34;/refund&#34; onclick=&#34;steal()&#34;&gt;Claim your refund&lt;/a&gt;';
const INJECTION = 'Eve\r\nBcc: spy@evil.example';

let runtime: LocalRuntime;
let store: TestStore;
let publishable: string;

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  store = await newStore('Campaign escaping');
  await ensureSender(runtime, store);
  publishable = (await issuePublishableKey(storeAdminDeps(), store.storeId, { origins: ['https://shop.example'] }))
    .publishableKey;
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
});

/** `customers/create` through the publishable key, as any visitor of the storefront can send it. */
const visitorSignsUp = async (id: string, firstName: string) => {
  const response = await fetch(`${runtime.urls.front}/api/v1/headless/events`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-access-token': publishable,
      origin: 'https://shop.example',
    },
    body: JSON.stringify({
      endpoint: 'customers/create',
      source_id: `esc-${id}`,
      data: {
        id,
        email: `${id}@escaping.example`,
        first_name: firstName,
        created_at: 1_700_000_000,
        email_marketing_consent: { state: 'subscribed' },
        tags: ['esc'],
      },
    }),
  });
  expect(response.status, await response.text()).toBe(200);
  // A sign-up through the public key subscribes no one; once it is applied, the merchant's store key records the
  // consent (as a confirmed opt-in would), and only that: the first name stays the visitor's.
  await eventually('the visitor signed up', () => dynamoCustomerRepository().get(store.storeId, id));
  const consent = await api(runtime, store.apiKey, 'POST', '/api/v1/events', {
    endpoint: 'customers/update',
    source_id: `esc-consent-${id}`,
    data: { id, email_marketing_consent: { state: 'subscribed', updated_at: 1_700_000_001 } },
  });
  expect(consent.status, JSON.stringify(consent.body)).toBe(200);
};

describe('a campaign to contacts whose first names a visitor set', () => {
  it('shows a link in a first name as text in the HTML part, and sends nothing to a name with CR/LF', async () => {
    await visitorSignsUp('eve', LINK);
    await visitorSignsUp('mal', INJECTION);
    await visitorSignsUp('ada', 'Ada');
    const segment = await api(runtime, store.apiKey, 'POST', '/api/v1/segments', {
      name: 'Visitors',
      conditions: { match: 'all', conditions: [{ field: 'contact.tags', op: 'contains', value: 'esc' }] },
    });
    expect(segment.status, JSON.stringify(segment.body)).toBe(200);
    const segmentId = (segment.body as { data: { id: string } }).data.id;
    await eventually(
      'the segment holds the three visitors',
      async () => {
        const read = await api(runtime, store.apiKey, 'GET', `/api/v1/segments/${segmentId}`);
        return (read.body as { data?: { count: number } }).data?.count === 3 ? true : undefined;
      },
      60_000,
    );
    const created = await api(runtime, store.apiKey, 'POST', '/api/v1/campaigns', {
      name: 'Refunds',
      segments: [segmentId],
      from: senderOf(store),
      subject: 'Hello {{ contact.first_name }}',
      html: '<p>Hi {{ contact.first_name }}</p>',
      text: 'Hi {{ contact.first_name }}',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const campaignId = (created.body as { data: { id: string } }).data.id;
    await eventually(
      'the campaign sent',
      async () => {
        const read = await api(runtime, store.apiKey, 'GET', `/api/v1/campaigns/${campaignId}`);
        return (read.body as { data?: { status: string } }).data?.status === 'sent' ? true : undefined;
      },
      60_000,
    );

    // The campaign's mails: not the confirmation email each public sign-up also gets (double opt-in).
    const mails = (await mailStore(runtime)).filter(
      (m) =>
        m.destination.to.some((to) => to.includes('@escaping.')) && !m.subject.startsWith('Confirm your subscription'),
    );
    const to = (id: string) => mails.filter((m) => m.destination.to.some((t) => t.includes(`${id}@escaping.example`)));
    const [eve] = to('eve');
    expect(eve?.body.html).toContain(`<p>Hi ${ESCAPED}</p>`);
    expect(eve?.body.html).not.toContain('<a href="/refund"');
    expect(eve?.body.text).toContain(`Hi ${LINK}`);
    expect(to('ada')).toHaveLength(1);
    expect(to('mal')).toHaveLength(0);
    for (const mail of mails) expect(mail.subject).not.toMatch(/[\r\n]|Bcc/);

    const recipients = await api(runtime, store.apiKey, 'GET', `/api/v1/campaigns/${campaignId}/recipients`);
    const list = (recipients.body as { data: { list: { customerId: string; status: string; reason?: string }[] } }).data
      .list;
    expect(list.find((r) => r.customerId === 'mal')).toMatchObject({ status: 'skipped', reason: 'header_line_break' });
  }, 180_000);
});
