/**
 * Issue 13, replayed against the local runtime: what one hostile store tries in a shared deployment, and the victim
 * store beside it unaffected.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { dynamoEventLog } from '#shared/adapters/dynamodb/event-log.repository.ts';
import { EXTRA_PROPERTIES } from '#shared/domain/events/extra-properties.ts';
import {
  acceptedGeneral,
  customerData,
  drained,
  general,
  newStore,
  sourceId,
  startRuntime,
  type TestStore,
  uid,
  until,
} from '#test/support/harness.ts';

let runtime: LocalRuntime;
let attacker: TestStore;
let victim: TestStore;
const customers = dynamoCustomerRepository();
const events = dynamoEventLog();

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
  });
});
