/**
 * The flow explain views called through the typed client (shared/client) against the local runtime: the client checks
 * every answer against the OpenAPI document, so these calls prove the document describes a skipped evaluation, an
 * entered one with its run, a page with a cursor, and the refusals, as the handlers answer them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import type { StoreflowClient } from '#shared/client/index.ts';
import {
  address,
  awaitEvaluations,
  awaitMails,
  event,
  presetFlow,
  uid,
} from '#test/integration/flows/engine-support.ts';
import { apiClient, patient } from '#test/support/api-client.ts';
import { newStore, type TestStore } from '#test/support/local.ts';

let runtime: LocalRuntime;
let store: TestStore;
let client: StoreflowClient;

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  store = await newStore('OpenAPI Explain Shop');
  client = apiClient(runtime, store.apiKey);
});
afterAll(async () => {
  await runtime?.stop();
});

const order = (email: string) => ({
  id: uid('order'),
  name: `#${uid('n')}`,
  customer_id: uid('cust'),
  email,
  order_status: 'paid',
  total_price: '19.90',
  currency: 'USD',
  line_items: [{ id: 'l1', product_id: 'p-1', title: 'Desk lamp', quantity: 1, price: '19.90' }],
});

describe('flow explain views', () => {
  it('answers entered and skipped evaluations, pages and refusals as the document says', async () => {
    const paid = await presetFlow(runtime, store, 'order_paid');
    const welcome = await presetFlow(runtime, store, 'customer_created');
    const email = address('explain');
    await event(runtime, store, 'orders/paid', order(email));
    await awaitMails(runtime, email);
    await event(runtime, store, 'customers/create', {
      id: uid('cust'),
      email,
      created_at: 1_700_000_000,
      email_marketing_consent: { state: 'unsubscribed' },
    });
    await awaitEvaluations(runtime, store, paid.id);
    await awaitEvaluations(runtime, store, welcome.id);

    const runs = await patient(() =>
      client.GET('/api/v1/flows/{flowId}/runs', { params: { path: { flowId: paid.id } } }),
    );
    expect(runs.response.status).toBe(200);
    const [entered] = runs.data?.data.list ?? [];
    expect(entered).toMatchObject({ flowId: paid.id, outcome: 'entered', email });
    expect(entered?.run?.events.map((e) => e.type)).toContain('entered');

    const activity = await patient(() =>
      client.GET('/api/v1/flow-activity', { params: { query: { email, limit: '1' } } }),
    );
    expect(activity.data?.data.list).toHaveLength(1);
    expect(activity.data?.data.nextCursor).toEqual(expect.any(String));
    const rest = await patient(() =>
      client.GET('/api/v1/flow-activity', {
        params: { query: { email, limit: '1', cursor: activity.data?.data.nextCursor ?? '' } },
      }),
    );
    const outcomes = [...(activity.data?.data.list ?? []), ...(rest.data?.data.list ?? [])].map((i) => i.outcome);
    expect(outcomes.sort()).toEqual(['entered', 'skipped']);

    const missing = await patient(() =>
      client.GET('/api/v1/flows/{flowId}/runs', { params: { path: { flowId: 'fl_missing' } } }),
    );
    expect(missing.error).toEqual({ code: 404, message: 'Flow not found' });
    const badLimit = await patient(() =>
      client.GET('/api/v1/flows/{flowId}/runs', {
        params: { path: { flowId: paid.id }, query: { limit: '1000' } },
      }),
    );
    expect(badLimit.error).toEqual({ code: 400, message: 'limit must be an integer from 1 to 100' });
    const noEmail = await patient(() => client.GET('/api/v1/flow-activity', { params: { query: {} as never } }));
    expect(noEmail.response.status).toBe(400);
  });
});
