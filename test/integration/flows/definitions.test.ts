/**
 * Flow definitions over HTTP against the local runtime: `{code, data}` answers, defaults, the validation messages, 401,
 * 404 for another store's flow (exactly like a missing one), optimistic concurrency, the per-store limit, presets, and
 * the repository the flow engine reads (`listEnabled`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoFlows } from '#shared/adapters/dynamodb/flow.repositories.ts';
import type { Flow } from '#shared/domain/flows/flow.ts';
import { type EmailStep, renderEmail } from '#shared/domain/flows/render.ts';
import { buildTemplateContext } from '#shared/domain/flows/template-context.ts';
import { type FlowKind, PRESET_KINDS } from '#shared/domain/flows/trigger.ts';
import { RevisionConflict } from '#shared/domain/repository.ts';
import { LIMITS } from '#shared/limits.ts';
import { newStore, type TestStore } from '#test/support/local.ts';
import { api } from '#test/support/webhooks.ts';

let runtime: LocalRuntime;

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
});

afterAll(async () => {
  await runtime?.stop();
});

interface FlowView {
  id: string;
  name: string;
  trigger: FlowKind;
  enabled: boolean;
  entry?: unknown;
  reentry: { type: string; seconds?: number };
  consent: string;
  steps: Record<string, unknown>[];
  preset?: string;
  createdAt: number;
  updatedAt: number;
  revision: number;
}

const EMAIL = {
  type: 'email',
  from: { email: 'hello@acme.example', name: 'Acme' },
  subject: 'Hi {{ contact.first_name }}',
  html: '<p>Hi {{ contact.first_name }}</p>',
  text: 'Hi {{ contact.first_name }}',
};

const definition = (overrides: Record<string, unknown> = {}) => ({
  name: 'Gold members',
  trigger: 'custom_notification',
  entry: { match: 'all', conditions: [{ field: 'custom.level', op: 'equals', value: 'gold' }] },
  steps: [
    { type: 'wait', seconds: 3600 },
    {
      type: 'exit_if',
      condition: { match: 'any', conditions: [{ field: 'activity.order_paid_since_trigger', op: 'exists' }] },
    },
    EMAIL,
  ],
  ...overrides,
});

const create = async (store: TestStore, body: unknown): Promise<FlowView> => {
  const answer = await api(runtime, store.apiKey, 'POST', '/api/v1/flows', body);
  if (answer.status !== 200) throw new Error(`create failed: ${answer.status} ${JSON.stringify(answer.body)}`);
  return (answer.body as { data: FlowView }).data;
};

/** The 400 message of a refused create. */
const refusal = async (store: TestStore, body: unknown): Promise<string> => {
  const answer = await api(runtime, store.apiKey, 'POST', '/api/v1/flows', body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(400);
  expect(answer.body.code).toBe(400);
  return answer.body.message as string;
};

describe('authentication', () => {
  it('answers 401 {code, message} without a key or with a wrong one, on every route', async () => {
    const store = await newStore('Flows auth');
    const flow = await create(store, definition());
    const calls: ['GET' | 'POST' | 'PUT' | 'DELETE', string, unknown?][] = [
      ['POST', '/api/v1/flows', definition()],
      ['GET', '/api/v1/flows'],
      ['GET', '/api/v1/flows/presets'],
      ['GET', `/api/v1/flows/${flow.id}`],
      ['PUT', `/api/v1/flows/${flow.id}`, definition()],
      ['DELETE', `/api/v1/flows/${flow.id}`],
    ];
    for (const [method, path, body] of calls) {
      for (const key of [undefined, 'not-a-key']) {
        const answer = await api(runtime, key, method, path, body);
        expect(answer.status, `${method} ${path}`).toBe(401);
        expect(answer.body).toEqual({ code: 401, message: expect.stringContaining('X-Service-Access-Token') });
      }
    }
    expect((await api(runtime, store.apiKey, 'GET', `/api/v1/flows/${flow.id}`)).status).toBe(200);
  });
});

describe('create, read, list', () => {
  it('creates a flow with a URL-safe id, the kind\u2019s defaults and step ids, and answers {code: 200, data}', async () => {
    const store = await newStore('Flows create');
    const before = Math.floor(Date.now() / 1000);
    const answer = await api(runtime, store.apiKey, 'POST', '/api/v1/flows', definition());
    expect(answer.status).toBe(200);
    expect(answer.body.code).toBe(200);
    const flow = (answer.body as { data: FlowView }).data;
    expect(flow.id).toMatch(/^fl_[A-Za-z0-9]{20}$/);
    expect(flow).toMatchObject({
      name: 'Gold members',
      trigger: 'custom_notification',
      enabled: true,
      consent: 'subscribed',
      reentry: { type: 'cooldown', seconds: 60 },
      revision: 1,
    });
    expect(flow.steps.map((step) => step.id)).toEqual(['step-1', 'step-2', 'step-3']);
    expect(flow.steps[2]).toMatchObject({ type: 'email', from: { email: 'hello@acme.example', name: 'Acme' } });
    expect(flow.createdAt).toBeGreaterThanOrEqual(before);
    expect(flow.updatedAt).toBe(flow.createdAt);
    expect(flow.preset).toBeUndefined();

    const read = await api(runtime, store.apiKey, 'GET', `/api/v1/flows/${flow.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ code: 200, data: flow });
  });

  it('defaults consent to transactional for order and back-in-stock kinds, and keeps what is given', async () => {
    const store = await newStore('Flows consent');
    const order = await create(store, definition({ trigger: 'order_paid', entry: undefined }));
    expect(order.consent).toBe('transactional');
    expect(order.reentry).toEqual({ type: 'once_per_subject' });
    const restock = await create(store, definition({ trigger: 'back_in_stock', entry: undefined }));
    expect(restock.consent).toBe('transactional');
    const cart = await create(store, definition({ trigger: 'abandoned_cart', entry: undefined }));
    expect(cart.consent).toBe('subscribed');
    const loose = await create(
      store,
      definition({
        trigger: 'browse_recovery',
        consent: 'not_unsubscribed',
        enabled: false,
        reentry: { type: 'once_per_contact' },
      }),
    );
    expect(loose).toMatchObject({ consent: 'not_unsubscribed', enabled: false, reentry: { type: 'once_per_contact' } });
  });

  it('lists the store\u2019s flows oldest first, {list, total}, and only its own', async () => {
    const store = await newStore('Flows list');
    const other = await newStore('Flows list other');
    const first = await create(store, definition({ name: 'First' }));
    const second = await create(store, definition({ name: 'Second' }));
    await create(other, definition({ name: 'Other store' }));
    const answer = await api(runtime, store.apiKey, 'GET', '/api/v1/flows');
    expect(answer.status).toBe(200);
    const data = (answer.body as { data: { list: FlowView[]; total: number } }).data;
    expect(data.total).toBe(2);
    expect(data.list.map((flow) => flow.id).sort()).toEqual([first.id, second.id].sort());
    expect(data.list.map((flow) => flow.name)).not.toContain('Other store');
    const empty = await newStore('Flows list empty');
    expect((await api(runtime, empty.apiKey, 'GET', '/api/v1/flows')).body).toEqual({
      code: 200,
      data: { list: [], total: 0 },
    });
  });
});

describe('validation', () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await newStore('Flows validation');
  });

  const deep = (levels: number): unknown =>
    levels === 0
      ? { field: 'contact.country_code', op: 'equals', value: 'US' }
      : { match: 'all', conditions: [deep(levels - 1)] };

  it.each([
    ['a body that is not an object', [], 'body must be a JSON object'],
    ['no name', { ...definition(), name: undefined }, 'name is required'],
    ['a blank name', definition({ name: '   ' }), 'name must not be empty'],
    ['an unknown trigger', definition({ trigger: 'birthday' }), 'trigger must be one of: customer_created, order_paid'],
    ['no steps', definition({ steps: [] }), 'steps must have at least 1 step'],
    ['21 steps', definition({ steps: Array.from({ length: 21 }, () => EMAIL) }), 'steps must have at most 20 steps'],
    [
      'no email step',
      definition({ steps: [{ type: 'wait', seconds: 60 }] }),
      'steps must contain at least one email step',
    ],
    [
      'an unknown step type',
      definition({ steps: [{ type: 'sms' }] }),
      'steps[0].type must be one of: wait, email, exit_if',
    ],
    [
      'a wait under a minute',
      definition({ steps: [{ type: 'wait', seconds: 30 }, EMAIL] }),
      'steps[0].seconds must be at least 60',
    ],
    [
      'a wait over 90 days',
      definition({ steps: [{ type: 'wait', seconds: 91 * 86400 }, EMAIL] }),
      'steps[0].seconds must be at most 7776000',
    ],
    [
      'a fractional wait',
      definition({ steps: [{ type: 'wait', seconds: 90.5 }, EMAIL] }),
      'steps[0].seconds must be an integer',
    ],
    [
      'a bad from address',
      definition({ steps: [{ ...EMAIL, from: { email: 'nope' } }] }),
      'steps[0].from.email must be an email address',
    ],
    [
      'a from name with a line break',
      definition({ steps: [{ ...EMAIL, from: { email: 'a@b.example', name: 'A\r\nBcc: x@y.example' } }] }),
      'steps[0].from.name must be one line without control characters',
    ],
    [
      'a subject with a line break',
      definition({ steps: [{ ...EMAIL, subject: 'Hi\nthere' }] }),
      'steps[0].subject must be one line without control characters',
    ],
    ['an empty subject', definition({ steps: [{ ...EMAIL, subject: ' ' }] }), 'steps[0].subject must not be empty'],
    [
      'neither html nor text',
      definition({ steps: [{ ...EMAIL, html: undefined, text: undefined }] }),
      'steps[0] needs html, text or both',
    ],
    [
      'an unclosed tag',
      definition({ steps: [{ ...EMAIL, html: '<p>{% if contact.first_name %}Hi</p>' }] }),
      'steps[0].html: tag {% if contact.first_name %} not closed',
    ],
    [
      'an unknown filter',
      definition({ steps: [{ ...EMAIL, subject: '{{ contact.first_name | shout }}' }] }),
      'steps[0].subject: undefined filter: shout',
    ],
    [
      'an include',
      definition({ steps: [{ ...EMAIL, text: "{% include '/etc/passwd' %}" }] }),
      'steps[0].text: tag "include" is not available in flow emails',
    ],
    [
      'a duplicate step id',
      definition({
        steps: [
          { ...EMAIL, id: 'a' },
          { ...EMAIL, id: 'a' },
        ],
      }),
      'steps[1].id "a" is used by an earlier step',
    ],
    [
      'a step id with a space',
      definition({ steps: [{ ...EMAIL, id: 'a b' }] }),
      'steps[0].id must use only letters, digits, "_" and "-"',
    ],
    [
      'a condition on an unknown root',
      definition({ entry: { match: 'all', conditions: [{ field: 'order.total', op: 'exists' }] } }),
      'entry.conditions[0].field must be event.…, contact.…, custom.… or activity.…',
    ],
    [
      'an unknown operator',
      definition({
        entry: { match: 'all', conditions: [{ field: 'event.order.total_price', op: 'between', value: 1 }] },
      }),
      'entry.conditions[0].op must be one of: equals, not_equals, greater_than, less_than, contains, exists, not_exists',
    ],
    [
      'greater_than with text',
      definition({
        entry: { match: 'all', conditions: [{ field: 'event.order.total_price', op: 'greater_than', value: '100' }] },
      }),
      'entry.conditions[0].value must be a number for greater_than',
    ],
    [
      'equals without a value',
      definition({ entry: { match: 'all', conditions: [{ field: 'custom.level', op: 'equals' }] } }),
      'entry.conditions[0].value is required for equals',
    ],
    [
      'exists with a value',
      definition({ entry: { match: 'all', conditions: [{ field: 'custom.level', op: 'exists', value: 1 }] } }),
      'entry.conditions[0].value must be absent for exists',
    ],
    [
      'an empty group',
      definition({ entry: { match: 'all', conditions: [] } }),
      'entry.conditions must have at least one condition',
    ],
    [
      'a bad match',
      definition({ entry: { match: 'most', conditions: [{ field: 'custom.x', op: 'exists' }] } }),
      'entry.match must be "all" or "any"',
    ],
    [
      'groups four deep',
      definition({ entry: deep(4) }),
      'entry.conditions[0].conditions[0].conditions[0] nests groups deeper than 3 levels',
    ],
    [
      'an exit_if without condition',
      definition({ steps: [{ type: 'exit_if' }, EMAIL] }),
      'steps[0].condition is required',
    ],
    [
      'a short cool-down',
      definition({ reentry: { type: 'cooldown', seconds: 5 } }),
      'reentry.seconds must be at least 60',
    ],
    [
      'an unknown re-entry',
      definition({ reentry: { type: 'always' } }),
      'reentry.type must be one of: once_per_contact, once_per_subject, cooldown',
    ],
    [
      'an unknown consent',
      definition({ consent: 'opt_in' }),
      'consent must be one of: subscribed, not_unsubscribed, transactional',
    ],
    [
      'transactional abandoned cart',
      definition({ trigger: 'abandoned_cart', entry: undefined, consent: 'transactional' }),
      'consent transactional is only for order_paid',
    ],
    ['an unknown field', { ...definition(), exitIf: {} }, 'body has an unknown field "exitIf"'],
    [
      'an unknown step field',
      definition({ steps: [{ ...EMAIL, cc: 'x@y.example' }] }),
      'steps[0] has an unknown field "cc"',
    ],
  ])('refuses %s with a message naming the field', async (_what, body, message) => {
    expect(await refusal(store, body)).toContain(message);
  });

  it('accepts groups three deep and every operator with its value type', async () => {
    const flow = await create(
      store,
      definition({
        entry: {
          match: 'any',
          conditions: [
            deep(2),
            { field: 'event.order.total_price', op: 'greater_than', value: 100 },
            { field: 'event.order.total_price', op: 'less_than', value: 10.5 },
            { field: 'contact.tags', op: 'contains', value: 'vip' },
            { field: 'contact.email_consent', op: 'not_equals', value: 'unsubscribed' },
            { field: 'custom.flag', op: 'equals', value: true },
            { field: 'custom.flag', op: 'not_exists' },
          ],
        },
      }),
    );
    expect((flow.entry as { conditions: unknown[] }).conditions).toHaveLength(7);
  });

  it('ignores the read-only fields a client sends back from GET', async () => {
    const flow = await create(store, definition());
    const { revision: _revision, ...echoed } = flow;
    const again = await create(store, { ...echoed, id: 'fl_mine', createdAt: 1, updatedAt: 1 });
    expect(again.id).not.toBe('fl_mine');
    expect(again.createdAt).toBeGreaterThan(1);
    // A flow made from a preset, sent back whole, is a definition (its `preset` is read-only), not a preset request.
    const fromPreset = await create(store, { preset: 'order_paid', from: { email: 'a@acme.example' } });
    const copy = await create(store, { ...fromPreset, name: 'Copy' });
    expect(copy).toMatchObject({ name: 'Copy', trigger: 'order_paid', steps: fromPreset.steps });
    expect(copy.preset).toBeUndefined();
  });
});

describe('tenant isolation and missing flows', () => {
  it('answers another store\u2019s flow exactly like a missing one, on GET, PUT and DELETE', async () => {
    const owner = await newStore('Flows owner');
    const intruder = await newStore('Flows intruder');
    const flow = await create(owner, definition());
    for (const [method, body] of [['GET'], ['PUT', definition({ name: 'Hijacked' })], ['DELETE']] as const) {
      const theirs = await api(runtime, intruder.apiKey, method, `/api/v1/flows/${flow.id}`, body);
      const missing = await api(runtime, intruder.apiKey, method, '/api/v1/flows/fl_00000000000000000000', body);
      const garbage = await api(runtime, intruder.apiKey, method, '/api/v1/flows/not%20an%20id', body);
      expect(theirs.status, method).toBe(404);
      expect(theirs.body).toEqual({ code: 404, message: 'Flow not found' });
      expect(missing.body).toEqual(theirs.body);
      expect(garbage.body).toEqual(theirs.body);
    }
    // An invalid body to another store's flow is still a 404: nothing tells the id exists.
    const invalid = await api(runtime, intruder.apiKey, 'PUT', `/api/v1/flows/${flow.id}`, { name: 1 });
    expect(invalid.status).toBe(404);
    const still = await api(runtime, owner.apiKey, 'GET', `/api/v1/flows/${flow.id}`);
    expect((still.body as { data: FlowView }).data).toEqual(flow);
  });
});

describe('update and delete', () => {
  it('replaces the whole definition, keeps id, preset and createdAt, and counts the revision', async () => {
    const store = await newStore('Flows update');
    const flow = await create(store, { preset: 'abandoned_cart', from: { email: 'shop@acme.example' } });
    const answer = await api(runtime, store.apiKey, 'PUT', `/api/v1/flows/${flow.id}`, {
      name: 'Cart, one email',
      trigger: 'abandoned_cart',
      enabled: false,
      steps: [EMAIL],
    });
    expect(answer.status).toBe(200);
    const updated = (answer.body as { data: FlowView }).data;
    expect(updated).toMatchObject({
      id: flow.id,
      name: 'Cart, one email',
      enabled: false,
      preset: 'abandoned_cart',
      createdAt: flow.createdAt,
      revision: 2,
      consent: 'subscribed',
    });
    expect(updated.steps).toHaveLength(1);
    expect(updated.entry).toBeUndefined();
    expect((await api(runtime, store.apiKey, 'GET', `/api/v1/flows/${flow.id}`)).body).toEqual({
      code: 200,
      data: updated,
    });
  });

  it('answers 409 when the given revision is not the current one, and applies it when it is', async () => {
    const store = await newStore('Flows revision');
    const flow = await create(store, definition());
    const first = await api(runtime, store.apiKey, 'PUT', `/api/v1/flows/${flow.id}`, {
      ...definition({ name: 'Edit A' }),
      revision: 1,
    });
    expect(first.status).toBe(200);
    const stale = await api(runtime, store.apiKey, 'PUT', `/api/v1/flows/${flow.id}`, {
      ...definition({ name: 'Edit B' }),
      revision: 1,
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toEqual({
      code: 409,
      message:
        'The flow is at revision 2, not at revision 1: it was changed meanwhile; GET it and apply your change again',
    });
    const current = (await api(runtime, store.apiKey, 'GET', `/api/v1/flows/${flow.id}`)).body as { data: FlowView };
    expect(current.data).toMatchObject({ name: 'Edit A', revision: 2 });
    const retried = await api(runtime, store.apiKey, 'PUT', `/api/v1/flows/${flow.id}`, {
      ...definition({ name: 'Edit B' }),
      revision: 2,
    });
    expect(retried.status).toBe(200);
    expect((retried.body as { data: FlowView }).data).toMatchObject({ name: 'Edit B', revision: 3 });
  });

  it('refuses a preset body on PUT and validates the replacement like a create', async () => {
    const store = await newStore('Flows put validation');
    const flow = await create(store, definition());
    const preset = await api(runtime, store.apiKey, 'PUT', `/api/v1/flows/${flow.id}`, {
      preset: 'order_paid',
      from: { email: 'a@b.example' },
    });
    expect(preset.status).toBe(400);
    expect(preset.body.message).toBe('preset is only for POST /api/v1/flows: PUT takes a full definition');
    const bad = await api(runtime, store.apiKey, 'PUT', `/api/v1/flows/${flow.id}`, definition({ steps: [] }));
    expect(bad.body).toEqual({ code: 400, message: 'steps must have at least 1 step' });
  });

  it('deletes a flow: {code: 200, data: true}, then 404 on every method', async () => {
    const store = await newStore('Flows delete');
    const flow = await create(store, definition());
    const kept = await create(store, definition({ name: 'Kept' }));
    const answer = await api(runtime, store.apiKey, 'DELETE', `/api/v1/flows/${flow.id}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ code: 200, data: true });
    for (const method of ['GET', 'DELETE'] as const) {
      expect((await api(runtime, store.apiKey, method, `/api/v1/flows/${flow.id}`)).status).toBe(404);
    }
    expect((await api(runtime, store.apiKey, 'PUT', `/api/v1/flows/${flow.id}`, definition())).status).toBe(404);
    const list = (await api(runtime, store.apiKey, 'GET', '/api/v1/flows')).body as { data: { list: FlowView[] } };
    expect(list.data.list.map((f) => f.id)).toEqual([kept.id]);
  });
});

describe('limits', () => {
  it(`refuses the ${LIMITS.flowsPerStore + 1}th flow with 409 and a clear message`, async () => {
    const store = await newStore('Flows limit');
    const flows = dynamoFlows();
    const now = Date.now();
    for (let i = 0; i < LIMITS.flowsPerStore; i++) {
      await flows.save(
        {
          storeId: store.storeId,
          id: `fl_seed${String(i).padStart(3, '0')}`,
          name: `Seed ${i}`,
          trigger: 'order_paid',
          enabled: false,
          reentry: { type: 'once_per_subject' },
          consent: 'transactional',
          steps: [{ ...EMAIL, id: 'e' } as Flow['steps'][number]],
          createdAt: now,
          updatedAt: now,
          revision: 1,
        },
        0,
      );
    }
    const answer = await api(runtime, store.apiKey, 'POST', '/api/v1/flows', definition());
    expect(answer.status).toBe(409);
    expect(answer.body).toEqual({
      code: 409,
      message: `The store already has ${LIMITS.flowsPerStore} flows, the most allowed; delete one first`,
    });
    expect(await api(runtime, store.apiKey, 'DELETE', '/api/v1/flows/fl_seed000')).toMatchObject({ status: 200 });
    expect((await api(runtime, store.apiKey, 'POST', '/api/v1/flows', definition())).status).toBe(200);
  });
});

describe('presets', () => {
  it('lists one preset per flow kind with its name, description, consent, re-entry and steps', async () => {
    const store = await newStore('Flows presets list');
    const answer = await api(runtime, store.apiKey, 'GET', '/api/v1/flows/presets');
    expect(answer.status).toBe(200);
    const data = (answer.body as { data: { list: Record<string, unknown>[]; total: number } }).data;
    expect(data.total).toBe(PRESET_KINDS.length);
    expect(data.list.map((preset) => preset.preset).sort()).toEqual([...PRESET_KINDS].sort());
    for (const preset of data.list) {
      expect(preset).toMatchObject({
        trigger: preset.preset,
        name: expect.any(String),
        description: expect.any(String),
        consent: expect.any(String),
        reentry: { type: expect.any(String) },
      });
      expect((preset.steps as { type: string }[]).some((step) => step.type === 'email')).toBe(true);
    }
  });

  it.each([...PRESET_KINDS])('creates a working %s flow in one call', async (kind) => {
    const store = await newStore(`Flows preset ${kind}`);
    const flow = await create(store, {
      preset: kind,
      from: { email: 'Shop@Acme.example', name: 'Acme' },
      replyTo: 'help@acme.example',
    });
    expect(flow).toMatchObject({ trigger: kind, preset: kind, enabled: true, revision: 1 });
    const emails = flow.steps.filter((step) => step.type === 'email') as unknown as EmailStep[];
    expect(emails.length).toBeGreaterThan(0);
    for (const email of emails) {
      expect(email.from).toEqual({ email: 'shop@acme.example', name: 'Acme' });
      expect(email.replyTo).toBe('help@acme.example');
      // What was stored renders (with an empty-ish context: no trigger data at all).
      const rendered = await renderEmail(
        email,
        buildTemplateContext({
          trigger: {
            id: 't',
            storeId: store.storeId,
            kind,
            subject: { type: 'x', id: '1' },
            contact: { email: 'ann@example.com' },
            cause: {},
            context: {},
            at: Date.now(),
          },
          store: { id: store.storeId, name: 'Acme' },
          unsubscribeUrl: 'https://send.example.com/unsubscribe/t',
        }),
      );
      expect(rendered.subject).not.toBe('');
      expect(rendered.html).toContain('https://send.example.com/unsubscribe/t');
    }
    const read = await api(runtime, store.apiKey, 'GET', `/api/v1/flows/${flow.id}`);
    expect((read.body as { data: FlowView }).data).toEqual(flow);
  });

  it('takes a name and enabled: false, and refuses a bad sender or an unknown preset', async () => {
    const store = await newStore('Flows preset options');
    const flow = await create(store, {
      preset: 'order_paid',
      from: { email: 'a@acme.example' },
      name: 'Receipts',
      enabled: false,
    });
    expect(flow).toMatchObject({ name: 'Receipts', enabled: false, consent: 'transactional' });
    expect(await refusal(store, { preset: 'order_paid', from: { email: 'nope' } })).toBe(
      'from.email must be an email address',
    );
    expect(await refusal(store, { preset: 'order_paid' })).toBe('from is required');
    expect(await refusal(store, { preset: 'birthday', from: { email: 'a@acme.example' } })).toContain(
      'preset must be one of: customer_created',
    );
    expect(await refusal(store, { preset: 'order_paid', from: { email: 'a@acme.example' }, subject: 'x' })).toBe(
      'body has an unknown field "subject"',
    );
  });
});

describe('FlowRepository (what the engine reads)', () => {
  it('lists the enabled flows of one kind, and refuses a save on a stale revision', async () => {
    const store = await newStore('Flows repository');
    const enabledCart = await create(store, { preset: 'abandoned_cart', from: { email: 'a@acme.example' } });
    await create(store, { preset: 'abandoned_cart', from: { email: 'a@acme.example' }, enabled: false });
    await create(store, { preset: 'order_paid', from: { email: 'a@acme.example' } });
    const other = await newStore('Flows repository other');
    await create(other, { preset: 'abandoned_cart', from: { email: 'a@acme.example' } });

    const flows = dynamoFlows();
    const enabled = await flows.listEnabled(store.storeId, 'abandoned_cart');
    expect(enabled.map((flow) => flow.id)).toEqual([enabledCart.id]);
    expect(enabled[0]).toMatchObject({ storeId: store.storeId, trigger: 'abandoned_cart', enabled: true });
    expect(await flows.listEnabled(store.storeId, 'browse_recovery')).toEqual([]);
    expect(await flows.list(store.storeId)).toHaveLength(3);

    const stored = (await flows.get(store.storeId, enabledCart.id)) as Flow;
    expect(stored.createdAt).toBeGreaterThan(1e12);
    await expect(flows.save({ ...stored, name: 'x', revision: 5 }, 4)).rejects.toBeInstanceOf(RevisionConflict);
    expect(await flows.get(other.storeId, enabledCart.id)).toBeUndefined();
    expect(await flows.delete(other.storeId, enabledCart.id)).toBe(false);
    expect(await flows.get(store.storeId, enabledCart.id)).toBeDefined();
  });
});
