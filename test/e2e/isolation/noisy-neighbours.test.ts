/**
 * Issue 13, replayed against the local runtime: what one hostile store tries in a shared deployment, and the victim
 * store beside it unaffected.
 */
import { ListSchedulesCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { dynamoEventLog } from '#shared/adapters/dynamodb/event-log.repository.ts';
import { EXTRA_PROPERTIES } from '#shared/domain/events/extra-properties.ts';
import {
  acceptedGeneral,
  customerData,
  drained,
  eventually,
  general,
  newStore,
  sourceId,
  startRuntime,
  type TestStore,
  uid,
  until,
} from '#test/support/harness.ts';
import { api } from '#test/support/webhooks.ts';

let runtime: LocalRuntime;
let attacker: TestStore;
let victim: TestStore;
const customers = dynamoCustomerRepository();
const events = dynamoEventLog();
const scheduler = new SchedulerClient({});

beforeAll(async () => {
  runtime = await startRuntime();
  [attacker, victim] = await Promise.all([newStore('Attacker'), newStore('Victim')]);
});

afterAll(async () => {
  await runtime?.stop();
});

describe('poison events', () => {
  it('refuses an extra property over its budget at the edge with 412 naming the field', async () => {
    const id = uid('cust');
    const answer = await general(runtime, attacker.apiKey, {
      endpoint: 'customers/update',
      source_id: sourceId('big'),
      data: { id, huge_note: 'x'.repeat(200 * 1024) },
    });
    expect(answer.status).toBe(412);
    expect(answer.body.message).toBe(
      `data.huge_note must be at most ${EXTRA_PROPERTIES.maxValueBytes} bytes as JSON (an extra property)`,
    );
  });

  it("fails an event that would grow a customer past its budget for good, without holding back its group or another store's events", async () => {
    const target = uid('cust');
    const victims = Array.from({ length: 10 }, () => uid('cust'));
    await acceptedGeneral(runtime, attacker, 'customers/create', customerData(target));
    const chunk = 'x'.repeat(EXTRA_PROPERTIES.maxValueBytes - 200);
    const growth: string[] = [];
    // Each event is within the per-event budget; together they would pass the stored one on the fifth.
    for (let i = 1; i <= 5; i++) {
      growth.push(await acceptedGeneral(runtime, attacker, 'customers/update', { id: target, [`note_${i}`]: chunk }));
      await acceptedGeneral(runtime, victim, 'customers/create', customerData(victims[i - 1] as string));
    }
    // Behind the failing event, in the same group: a later update of the same customer still applies.
    await acceptedGeneral(runtime, attacker, 'customers/update', { id: target, first_name: 'After' });
    for (const id of victims.slice(5)) await acceptedGeneral(runtime, victim, 'customers/create', customerData(id));
    await drained(runtime);

    for (const id of victims) expect(await customers.get(victim.storeId, id), id).toBeDefined();
    const stored = await until('the later update applied', async () => {
      const customer = await customers.get(attacker.storeId, target);
      return customer?.firstName === 'After' ? customer : undefined;
    });
    expect(Object.keys(stored.attributes).sort()).toEqual(['note_1', 'note_2', 'note_3', 'note_4']);

    const fifth = await events.recorded(attacker.storeId, growth[4] as string);
    expect(fifth?.failure?.reason).toMatch(/^the customer's extra properties would take \d+ bytes; at most 32768/);
    for (const id of growth.slice(0, 4)) expect((await events.recorded(attacker.storeId, id))?.failure).toBeUndefined();

    // The store sees it (GET /api/v1/events), and only that store.
    const status = (store: TestStore, id: string) =>
      api(runtime, store.apiKey, 'GET', `/api/v1/events?source_id=${encodeURIComponent(id)}`);
    const failed = await status(attacker, growth[4] as string);
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({
      code: 200,
      data: {
        source_id: growth[4],
        endpoint: 'customers/update',
        interface: 'general',
        status: 'failed',
        failure: { reason: expect.stringMatching(/^the customer's extra properties would take/) },
      },
    });
    const applied = await status(attacker, growth[0] as string);
    expect(applied.body).toMatchObject({ code: 200, data: { status: 'accepted' } });
    expect((applied.body.data as Record<string, unknown>).failure).toBeUndefined();
    expect((await status(victim, growth[4] as string)).status).toBe(404);
    expect((await status(attacker, 'never-sent')).body).toEqual({ code: 404, message: 'Event not found' });
    expect((await api(runtime, attacker.apiKey, 'GET', '/api/v1/events')).status).toBe(400);
  });
});

const EMAIL = {
  type: 'email',
  from: { email: 'hello@attacker.example', name: 'Attacker' },
  subject: 'Hi',
  html: '<p>Hi</p>',
};

/** The local Scheduler's schedules whose name starts with `prefix`. */
const schedulesNamed = async (prefix: string): Promise<string[]> => {
  const names: string[] = [];
  let NextToken: string | undefined;
  do {
    const page = await scheduler.send(new ListSchedulesCommand({ NamePrefix: prefix, NextToken }));
    for (const schedule of page.Schedules ?? []) if (schedule.Name) names.push(schedule.Name);
    NextToken = page.NextToken;
  } while (NextToken);
  return names;
};

describe('the Scheduler quota', () => {
  it('keeps fifty 90-day flows entered by ten customers behind one schedule per due minute', async () => {
    const flows = [];
    for (let i = 0; i < 50; i++) {
      const answer = await api(runtime, attacker.apiKey, 'POST', '/api/v1/flows', {
        name: `Far future ${i}`,
        trigger: 'customer_created',
        consent: 'not_unsubscribed',
        steps: [{ type: 'wait', seconds: 90 * 86_400 }, EMAIL],
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      flows.push(answer.body);
    }
    for (let i = 0; i < 10; i++)
      await acceptedGeneral(runtime, attacker, 'customers/create', customerData(uid('cust')));
    await drained(runtime);
    const flowIds = flows.map((flow) => (flow as { data: { id: string } }).data.id);
    // 500 runs at the store's 50 run starts a second: ten seconds at least (triggers over the budget are requeued).
    await eventually(
      'every flow with ten runs waiting',
      async () => {
        for (const flowId of flowIds) {
          const page = await api(runtime, attacker.apiKey, 'GET', `/api/v1/flows/${flowId}/runs?limit=100`);
          const list = (page.body as { data: { list: { run?: { status: string } }[] } }).data.list;
          if (list.filter((evaluation) => evaluation.run?.status === 'waiting').length < 10) return undefined;
        }
        return true;
      },
      60_000,
    );

    const ticks = await schedulesNamed(`tick-${attacker.storeId}-`);
    // Ten events accepted within a few seconds: their waits end in one or two whole minutes.
    expect(ticks.length).toBeGreaterThanOrEqual(1);
    expect(ticks.length).toBeLessThanOrEqual(2);
    expect(await schedulesNamed('flow-')).toEqual([]);
  }, 120_000);
});
