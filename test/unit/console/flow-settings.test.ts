/**
 * The console's flow settings (`shared/domain/console/flow-settings.ts`) over an in-memory flow repository: the JSON
 * typed for conditions is read with the place of its first mistake, the edited definition goes through the API's
 * parser with its messages tied to the fields, and a save is conditional on the revision the form was read at.
 */
import { describe, expect, it } from 'vitest';
import { CHANGED_MEANWHILE, editSettings, waitField } from '#shared/domain/console/flow-settings.ts';
import { readJsonText } from '#shared/domain/console/json-text.ts';
import type { Flow } from '#shared/domain/flows/flow.ts';
import type { FlowRepository } from '#shared/domain/flows/ports.ts';
import { RevisionConflict } from '#shared/domain/repository.ts';
import { emailStep, flowOf, STORE } from '#test/support/memory/flow-engine.ts';

const FLOW_ID = 'fl_AAAAAAAAAAAAAAAAAAAA';

const memoryFlows = (...initial: Flow[]) => {
  const flows = new Map(initial.map((flow) => [flow.id, structuredClone(flow)]));
  const repository: FlowRepository = {
    get: async (storeId, id) => {
      const flow = flows.get(id);
      return flow?.storeId === storeId ? structuredClone(flow) : undefined;
    },
    list: async () => [...flows.values()],
    listEnabled: async () => [],
    save: async (flow, expected) => {
      if ((flows.get(flow.id)?.revision ?? 0) !== expected) throw new RevisionConflict(flow.id);
      flows.set(flow.id, structuredClone(flow));
    },
    delete: async (_storeId, id) => flows.delete(id),
  };
  return { flows, deps: { flows: repository, clock: { now: () => 5_000_000 } } };
};

const thankYou = () =>
  flowOf(FLOW_ID, 'order_paid', {
    steps: [
      { type: 'wait', id: 'pause', seconds: 3600 },
      {
        type: 'exit_if',
        id: 'busy',
        condition: {
          match: 'all',
          conditions: [{ field: 'activity.triggers_since_trigger', op: 'greater_than', value: 3 }],
        },
      },
      emailStep('thanks'),
    ],
  });

describe('JSON typed in a form', () => {
  it('reads a value, and names the first mistake with its line and column', () => {
    expect(readJsonText(' {"a": [1, -2.5e3, "x\\n", true, null]} ')).toEqual({
      value: { a: [1, -2500, 'x\n', true, null] },
    });
    expect(readJsonText('{"match": "all",\n  "conditions": [}')).toEqual({
      problem:
        'expected a value (an object, a list, a text in double quotes, a number, true, false or null) at line 2, column 18',
    });
    expect(readJsonText('{"a": 1,}')).toEqual({
      problem: 'expected a field name in double quotes at line 1, column 9',
    });
    expect(readJsonText('{"a": 1')).toEqual({
      problem: 'expected "," or "}" at line 1, column 8',
    });
    expect(readJsonText('{"a": "open')).toEqual({
      problem: 'this text is not closed with a double quote at line 1, column 7',
    });
    expect(readJsonText('[1] 2')).toEqual({
      problem: 'expected nothing after the end of the JSON value at line 1, column 5',
    });
  });

  it('refuses what the service cannot keep: __proto__, unsafe numbers, deep nesting', () => {
    expect(readJsonText('{"__proto__": {}}')).toEqual({
      problem: 'the key "__proto__" is not allowed',
    });
    expect(readJsonText('[1e300]')).toEqual({
      problem: `numbers must be between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}, got 1e+300`,
    });
    expect(readJsonText('['.repeat(30) + ']'.repeat(30))).toEqual({
      problem: 'nested too deeply: at most 24 levels of objects and lists',
    });
    expect(readJsonText('// a note\n{}')).toEqual({ problem: 'comments are not JSON at line 1, column 1' });
  });
});

describe('the flow settings form', () => {
  it('shows waits in the largest unit they fill whole', () => {
    expect(waitField(7200)).toEqual({ amount: '2', unit: 'hours' });
    expect(waitField(172_800)).toEqual({ amount: '2', unit: 'days' });
    expect(waitField(90)).toEqual({ amount: '1.5', unit: 'minutes' });
  });

  it('saves name, entry conditions, a wait and an exit condition through the API parser, on the revision read', async () => {
    const { flows, deps } = memoryFlows(thankYou());
    const shown = await editSettings(deps, STORE, FLOW_ID, { kind: 'show' });
    expect('fields' in shown && shown.fields.waits).toEqual({ pause: { amount: '1', unit: 'hours' } });
    const saved = await editSettings(deps, STORE, FLOW_ID, {
      kind: 'save',
      fields: {
        name: '  Thanks  ',
        entry: '{"match": "any", "conditions": [{"field": "event.total", "op": "greater_than", "value": 50}]}',
        revision: '1',
        waits: { pause: { amount: '2', unit: 'hours' } },
        exits: {
          busy: '{"match": "all", "conditions": [{"field": "contact.tags", "op": "contains", "value": "vip"}]}',
        },
      },
    });
    expect('saved' in saved).toBe(true);
    const flow = flows.get(FLOW_ID);
    expect(flow?.name).toBe('Thanks');
    expect(flow?.revision).toBe(2);
    expect(flow?.entry).toEqual({
      match: 'any',
      conditions: [{ field: 'event.total', op: 'greater_than', value: 50 }],
    });
    expect(flow?.steps.map((s) => (s.type === 'wait' ? s.seconds : s.type === 'exit_if' ? s.condition : s.id))).toEqual(
      [7200, { match: 'all', conditions: [{ field: 'contact.tags', op: 'contains', value: 'vip' }] }, 'thanks'],
    );

    // An empty entry removes the conditions.
    await editSettings(deps, STORE, FLOW_ID, { kind: 'save', fields: { entry: ' ', revision: '2' } });
    expect(flows.get(FLOW_ID)?.entry).toBeUndefined();
  });

  it('refuses bad JSON and the API parser’s rules beside the fields they are about, and saves nothing', async () => {
    const { flows, deps } = memoryFlows(thankYou());
    const badJson = await editSettings(deps, STORE, FLOW_ID, {
      kind: 'save',
      fields: { entry: '{"match": "all"', revision: '1', waits: { pause: { amount: 'soon', unit: 'hours' } } },
    });
    expect('refused' in badJson && badJson.refused?.byField).toEqual({
      entry: 'entry is not valid JSON: expected "," or "}" at line 1, column 16',
      'step:pause': 'steps[0].seconds must be a number of hours',
    });
    const badRules = await editSettings(deps, STORE, FLOW_ID, {
      kind: 'save',
      fields: {
        name: '',
        entry: '{"match": "all", "conditions": [{"field": "event.total", "op": "greater_than", "value": "fifty"}]}',
        revision: '1',
        waits: { pause: { amount: '30', unit: 'minutes' } },
        exits: { busy: '{"match": "every", "conditions": []}' },
      },
    });
    expect('refused' in badRules && badRules.refused?.byField).toEqual({
      name: 'name must not be empty',
      entry: 'entry.conditions[0].value must be a number for greater_than',
      'step:busy': expect.stringContaining('steps[1].condition.match must be "all" or "any"'),
    });
    // The form comes back as typed.
    expect('fields' in badRules && badRules.fields.waits.pause).toEqual({ amount: '30', unit: 'minutes' });
    const tooShort = await editSettings(deps, STORE, FLOW_ID, {
      kind: 'save',
      fields: { revision: '1', waits: { pause: { amount: '30', unit: 'seconds' } } },
    });
    expect('refused' in tooShort && tooShort.refused?.byField['step:pause']).toBe(
      'steps[0].seconds must be in days, hours, minutes',
    );
    expect(flows.get(FLOW_ID)?.revision).toBe(1);
  });

  it('answers a form read before another change with "changed meanwhile", and keeps the other change', async () => {
    const { flows, deps } = memoryFlows(thankYou());
    await editSettings(deps, STORE, FLOW_ID, { kind: 'save', fields: { name: 'Theirs', revision: '1' } });
    const mine = await editSettings(deps, STORE, FLOW_ID, { kind: 'save', fields: { name: 'Mine', revision: '1' } });
    expect('refused' in mine && mine.refused).toMatchObject({ stale: true, messages: [CHANGED_MEANWHILE] });
    expect(flows.get(FLOW_ID)?.name).toBe('Theirs');
  });

  it('answers another store’s flow, or an id that is not one, as not found', async () => {
    const { deps } = memoryFlows(thankYou());
    await expect(editSettings(deps, 'st_other', FLOW_ID, { kind: 'show' })).rejects.toThrow('Flow not found');
    await expect(editSettings(deps, STORE, 'nope', { kind: 'show' })).rejects.toThrow('Flow not found');
  });
});
