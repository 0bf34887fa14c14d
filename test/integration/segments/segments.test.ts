/**
 * Segments end to end on the local runtime: definitions over HTTP, a contact moving into and out of a
 * segment by events, out of a time-window segment by time (clock advance), the background build of a new segment,
 * paged members, and `segment_entered` starting a flow that sends an email.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { sendMail, simulated } from '#test/integration/email-events/support.ts';
import {
  address,
  awaitMails,
  definedFlow,
  event,
  eventually,
  mailsTo,
  newStore,
  SENDER,
  settled,
  subscribedCustomer,
  type TestStore,
  uid,
} from '#test/integration/flows/engine-support.ts';
import { importAndWait } from '#test/integration/imports/support.ts';
import { api } from '#test/support/webhooks.ts';

let runtime: LocalRuntime;

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
});

afterAll(async () => {
  await runtime?.stop();
});

interface SegmentView {
  id: string;
  name: string;
  status: 'building' | 'ready';
  count: number;
  build: { scanned: number };
  revision: number;
}

const DAY = 86_400;

const createSegment = async (store: TestStore, name: string, conditions: unknown): Promise<SegmentView> => {
  const answer = await api(runtime, store.apiKey, 'POST', '/api/v1/segments', { name, conditions });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return (answer.body as { data: SegmentView }).data;
};

const readSegment = async (store: TestStore, id: string): Promise<SegmentView> => {
  const answer = await api(runtime, store.apiKey, 'GET', `/api/v1/segments/${id}`);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return (answer.body as { data: SegmentView }).data;
};

/** Waits until the segment is built (`ready`) with `count` members. */
const awaitSegment = (store: TestStore, id: string, count: number) =>
  eventually(
    `segment ${id} ready with ${count} member(s)`,
    async () => {
      const segment = await readSegment(store, id);
      return segment.status === 'ready' && segment.count === count ? segment : undefined;
    },
    20_000,
  );

const members = async (store: TestStore, id: string, query = '') => {
  const answer = await api(runtime, store.apiKey, 'GET', `/api/v1/segments/${id}/members${query}`);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return (answer.body as { data: { list: { customerId: string; email?: string }[]; nextCursor?: string } }).data;
};

const customer = (store: TestStore, id: string, email: string, extra: Record<string, unknown> = {}) =>
  subscribedCustomer(runtime, store, id, email, extra);

const order = (store: TestStore, endpoint: string, customerId: string, email: string, id: string, total: string) =>
  event(runtime, store, endpoint, {
    id,
    customer_id: customerId,
    email,
    name: `#${id}`,
    order_status: endpoint === 'orders/cancelled' ? 'cancelled' : 'paid',
    total_price: total,
    line_items: [{ id: 'l1', product_id: 'p-1', title: 'Lamp', quantity: 1, price: total }],
  });

describe('segment definitions', () => {
  it('creates, lists, reads, replaces and deletes a segment; refuses what it cannot read with a 400', async () => {
    const store = await newStore('Segments CRUD');
    const created = await createSegment(store, 'Gold', {
      match: 'all',
      conditions: [{ field: 'contact.category_tags', op: 'contains', value: 'level:gold' }],
    });
    expect(created).toMatchObject({ name: 'Gold', status: 'building', count: 0, revision: 1 });
    expect(created.id).toMatch(/^seg_[A-Za-z0-9]{20}$/);
    await awaitSegment(store, created.id, 0);

    const list = await api(runtime, store.apiKey, 'GET', '/api/v1/segments');
    expect(list.body).toMatchObject({ code: 200, data: { total: 1, list: [{ id: created.id }] } });

    // A new name alone keeps the built membership: ready at once.
    const renamed = await api(runtime, store.apiKey, 'PUT', `/api/v1/segments/${created.id}`, {
      name: 'Gold members',
      conditions: {
        match: 'all',
        conditions: [{ field: 'contact.category_tags', op: 'contains', value: 'level:gold' }],
      },
    });
    expect(renamed.body).toMatchObject({ code: 200, data: { name: 'Gold members', revision: 2, status: 'ready' } });

    const replaced = await api(runtime, store.apiKey, 'PUT', `/api/v1/segments/${created.id}`, {
      name: 'Gold or silver',
      conditions: {
        match: 'any',
        conditions: [
          { field: 'contact.category_tags', op: 'contains', value: 'level:gold' },
          { field: 'contact.category_tags', op: 'contains', value: 'level:silver' },
        ],
      },
      revision: 2,
    });
    expect(replaced.body).toMatchObject({
      code: 200,
      data: { name: 'Gold or silver', revision: 3, status: 'building' },
    });
    const stale = await api(runtime, store.apiKey, 'PUT', `/api/v1/segments/${created.id}`, {
      name: 'Late',
      conditions: { match: 'all', conditions: [{ field: 'contact.email', op: 'exists' }] },
      revision: 1,
    });
    expect(stale.status).toBe(409);

    const bad = await api(runtime, store.apiKey, 'POST', '/api/v1/segments', {
      name: 'Bad',
      conditions: { match: 'all', conditions: [{ field: 'event.total', op: 'greater_than', value: 5 }] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 400 });
    expect(String((bad.body as { message: string }).message)).toContain('conditions.conditions[0].field event.total');
    const noName = await api(runtime, store.apiKey, 'POST', '/api/v1/segments', {
      conditions: { match: 'all', conditions: [{ field: 'contact.email', op: 'exists' }] },
    });
    expect(noName.status).toBe(400);
    const tooMany = await api(runtime, store.apiKey, 'POST', '/api/v1/segments', {
      name: 'Many',
      conditions: {
        match: 'any',
        conditions: Array.from({ length: 2 }, () => ({
          match: 'any',
          conditions: Array.from({ length: 11 }, (_, i) => ({ field: 'contact.city', op: 'equals', value: `c${i}` })),
        })),
      },
    });
    expect(tooMany.status).toBe(400);
    expect(String((tooMany.body as { message: string }).message)).toContain('at most 20');
    // Nothing half written: the refused creates left the one segment.
    expect((await api(runtime, store.apiKey, 'GET', '/api/v1/segments')).body).toMatchObject({ data: { total: 1 } });

    const other = await newStore('Segments other');
    const foreign = await api(runtime, other.apiKey, 'GET', `/api/v1/segments/${created.id}`);
    expect(foreign).toMatchObject({ status: 404, body: { code: 404, message: 'Segment not found' } });

    const deleted = await api(runtime, store.apiKey, 'DELETE', `/api/v1/segments/${created.id}`);
    expect(deleted.body).toEqual({ code: 200, data: true });
    expect((await api(runtime, store.apiKey, 'GET', `/api/v1/segments/${created.id}`)).status).toBe(404);
  });
});

describe('membership', () => {
  it('builds a new segment from the contacts the store has, and pages its members', async () => {
    const store = await newStore('Segments build');
    for (const n of [1, 2, 3]) await customer(store, `c-${n}`, address(`b${n}`), { tags: n === 2 ? [] : ['vip'] });
    await settled(runtime);
    const segment = await createSegment(store, 'VIP', {
      match: 'all',
      conditions: [{ field: 'contact.tags', op: 'contains', value: 'vip' }],
    });
    const built = await awaitSegment(store, segment.id, 2);
    expect(built.build.scanned).toBe(3);

    const first = await members(store, segment.id, '?limit=1');
    expect(first.list.map((m) => m.customerId)).toEqual(['c-1']);
    expect(first.nextCursor).toBeDefined();
    const second = await members(store, segment.id, `?limit=1&cursor=${first.nextCursor}`);
    expect(second.list.map((m) => m.customerId)).toEqual(['c-3']);
    const rest = await members(store, segment.id, `?limit=1&cursor=${second.nextCursor}`);
    expect(rest.list).toEqual([]);
    expect(rest.nextCursor).toBeUndefined();
  });

  it('moves a contact in and out of a segment as its orders arrive (total spent over 100)', async () => {
    const store = await newStore('Segments events');
    const segment = await createSegment(store, 'Big spenders', {
      match: 'all',
      conditions: [{ field: 'contact.total_spent', op: 'greater_than', value: 100 }],
    });
    await awaitSegment(store, segment.id, 0);
    const email = address('spender');
    await customer(store, 'sp-1', email);
    await order(store, 'orders/paid', 'sp-1', email, uid('o'), '60.00');
    await settled(runtime);
    expect((await readSegment(store, segment.id)).count).toBe(0);

    const second = uid('o');
    await order(store, 'orders/paid', 'sp-1', email, second, '50.00');
    await awaitSegment(store, segment.id, 1);
    expect((await members(store, segment.id)).list).toEqual([
      { customerId: 'sp-1', email, enteredAt: expect.any(Number) },
    ]);

    await order(store, 'orders/cancelled', 'sp-1', email, second, '50.00');
    await awaitSegment(store, segment.id, 0);
    expect((await members(store, segment.id)).list).toEqual([]);
  });

  it('lets a contact out of "ordered in the last 30 days" when the 30 days pass (clock advance)', async () => {
    const store = await newStore('Segments window');
    const segment = await createSegment(store, 'Recent buyers', {
      match: 'all',
      conditions: [{ field: 'activity.days_since_last_order', op: 'less_than', value: 30 }],
    });
    await awaitSegment(store, segment.id, 0);
    const email = address('recent');
    await customer(store, 'rb-1', email);
    await order(store, 'orders/paid', 'rb-1', email, uid('o'), '20.00');
    await awaitSegment(store, segment.id, 1);
    await settled(runtime);

    // 29 days: still in.
    await runtime.advanceClock(29 * DAY);
    await settled(runtime);
    expect((await readSegment(store, segment.id)).count).toBe(1);
    // Past the 30th day (and its wheel minute): out, by the timer alone.
    await runtime.advanceClock(DAY + 120);
    await awaitSegment(store, segment.id, 0);
    expect((await members(store, segment.id)).list).toEqual([]);
  });
});

describe('batch import', () => {
  it('evaluates imported contacts against the segments, and starts no flow', async () => {
    const store = await newStore('Segments import');
    const segment = await createSegment(store, 'VIP', {
      match: 'all',
      conditions: [{ field: 'contact.tags', op: 'contains', value: 'vip' }],
    });
    await awaitSegment(store, segment.id, 0);
    await definedFlow(runtime, store, {
      name: 'Welcome to VIP',
      trigger: 'segment_entered',
      segmentId: segment.id,
      steps: [{ type: 'email', from: SENDER, subject: 'Welcome', text: 'Hi' }],
    });
    const lines = [1, 2, 3].map((n) =>
      JSON.stringify({
        id: `im-${n}`,
        email: `im-${n}-${store.storeId.toLowerCase()}@example.com`,
        created_at: 1_700_000_000,
        email_marketing_consent: { state: 'subscribed' },
        tags: n === 2 ? [] : ['vip'],
      }),
    );
    const job = await importAndWait(runtime, store.apiKey, `${lines.join('\n')}\n`);
    expect(job).toMatchObject({ result: 'SUCCESS', counts: { imported: 3 } });
    await awaitSegment(store, segment.id, 2);
    expect((await members(store, segment.id)).list.map((m) => m.customerId)).toEqual(['im-1', 'im-3']);
    await settled(runtime);
    expect(await mailsTo(runtime, `im-1-${store.storeId.toLowerCase()}@example.com`)).toEqual([]);
  });
});

describe('email engagement', () => {
  it('puts a contact in "opened an email in the last 90 days" when SES reports the first open', async () => {
    const store = await newStore('Segments opens');
    const segment = await createSegment(store, 'Openers', {
      match: 'all',
      conditions: [{ field: 'activity.days_since_last_open', op: 'less_than', value: 90 }],
    });
    const email = address('opener');
    await customer(store, 'op-1', email);
    await awaitSegment(store, segment.id, 0);
    const mail = await sendMail(store, email);
    await simulated(runtime, { messageId: mail.messageId, type: 'open' });
    await awaitSegment(store, segment.id, 1);
    expect((await members(store, segment.id)).list.map((m) => m.customerId)).toEqual(['op-1']);
  });
});

describe('segment_entered', () => {
  it('starts a flow that emails the contact who just entered, and not those the build found', async () => {
    const store = await newStore('Segments flow');
    const before = address('already');
    await customer(store, 'f-0', before, { tags: ['vip'] });
    await settled(runtime);
    const segment = await createSegment(store, 'VIP', {
      match: 'all',
      conditions: [{ field: 'contact.tags', op: 'contains', value: 'vip' }],
    });
    await awaitSegment(store, segment.id, 1);
    const flow = await definedFlow(runtime, store, {
      name: 'Welcome to VIP',
      trigger: 'segment_entered',
      segment_id: segment.id,
      steps: [{ type: 'email', from: SENDER, subject: 'Welcome to VIP, {{ contact.first_name }}', text: 'Hi' }],
    });
    expect(flow).toMatchObject({ trigger: 'segment_entered', segmentId: segment.id });

    const email = address('vip');
    await customer(store, 'f-1', email);
    await settled(runtime);
    expect(await mailsTo(runtime, email)).toEqual([]);
    const sent = Date.now();
    await event(runtime, store, 'customers/update', { id: 'f-1', tags: ['vip'] });
    const [mail] = await awaitMails(runtime, email);
    expect(mail?.subject).toBe('Welcome to VIP, Ada');
    // "Within seconds": event → membership → trigger → flow → email, on the local runtime (idle, it takes well under
    // one; the bound leaves room for a loaded machine running other suites).
    expect(Date.now() - sent).toBeLessThan(5_000);
    expect((await readSegment(store, segment.id)).count).toBe(2);
    await settled(runtime);
    expect(await mailsTo(runtime, before)).toEqual([]);
  });

  it('refuses a segment flow without a segment of the store', async () => {
    const store = await newStore('Segments flow refusals');
    const other = await newStore('Segments flow other');
    const foreign = await createSegment(other, 'Theirs', {
      match: 'all',
      conditions: [{ field: 'contact.email', op: 'exists' }],
    });
    const steps = [{ type: 'email', from: SENDER, subject: 'Hi', text: 'Hi' }];
    const missing = await api(runtime, store.apiKey, 'POST', '/api/v1/flows', {
      name: 'No segment',
      trigger: 'segment_entered',
      steps,
    });
    expect(missing.status).toBe(400);
    expect(String((missing.body as { message: string }).message)).toContain('segmentId is required');
    const theirs = await api(runtime, store.apiKey, 'POST', '/api/v1/flows', {
      name: 'Their segment',
      trigger: 'segment_entered',
      segmentId: foreign.id,
      steps,
    });
    expect(theirs.status).toBe(400);
    expect(String((theirs.body as { message: string }).message)).toContain('names no segment of this store');
  });
});
