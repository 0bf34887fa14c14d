/** Segment flows: a `segment_entered` / `segment_exited` flow names its segment and answers only its changes. */
import { describe, expect, it } from 'vitest';
import { handleTrigger } from '#shared/domain/flows/enter-run.ts';
import { parseFlowDefinition } from '#shared/domain/flows/flow-schema.ts';
import { runIdOf } from '#shared/domain/flows/run.ts';
import { emailStep, fakes, flowOf, STORE, triggerOf } from '#test/support/memory/flow-engine.ts';

const definition = (extra: Record<string, unknown>) => ({
  name: 'VIP welcome',
  trigger: 'segment_entered',
  steps: [{ type: 'email', from: { email: 'shop@shop.example' }, subject: 'Hi', text: 'Hi' }],
  ...extra,
});

describe('segment flow definitions', () => {
  it('takes segmentId (or segment_id), defaulting to once per contact and subscribed consent', () => {
    expect(parseFlowDefinition(definition({ segmentId: 'seg_a' })).definition).toMatchObject({
      segmentId: 'seg_a',
      reentry: { type: 'once_per_contact' },
      consent: 'subscribed',
    });
    expect(parseFlowDefinition(definition({ segment_id: 'seg_b' })).definition.segmentId).toBe('seg_b');
  });

  it.each([
    ['without a segment', {}, 'segmentId is required for segment_entered'],
    [
      'once per subject',
      { segmentId: 'seg_a', reentry: { type: 'once_per_subject' } },
      'takes once_per_contact or cooldown',
    ],
    ['transactional', { segmentId: 'seg_a', consent: 'transactional' }, 'consent transactional is only for'],
    [
      'a segment on another kind',
      { trigger: 'order_paid', segmentId: 'seg_a' },
      'segmentId is only for segment_entered',
    ],
  ])('refuses a segment flow %s', (_what, extra, message) => {
    expect(() => parseFlowDefinition(definition(extra))).toThrow(message);
  });
});

describe('segment triggers', () => {
  it('start the flows of their segment only', async () => {
    const f = fakes();
    f.flows.set('fl_vip', flowOf('fl_vip', 'segment_entered', { segmentId: 'seg_vip', steps: [emailStep('e1')] }));
    f.flows.set('fl_gold', flowOf('fl_gold', 'segment_entered', { segmentId: 'seg_gold' }));
    f.flows.set('fl_left', flowOf('fl_left', 'segment_exited', { segmentId: 'seg_vip' }));
    const entered = triggerOf('segment_entered', {
      id: 'segment#seg_vip#c1#in#event#s1',
      subject: { type: 'segment', id: 'seg_vip' },
      context: { segment: { id: 'seg_vip', name: 'VIP' } },
    });
    expect((await handleTrigger(f.deps, entered)).entered).toEqual([runIdOf(STORE, 'fl_vip', entered.id)]);
    expect(f.sent).toHaveLength(1);
    const other = triggerOf('segment_entered', { subject: { type: 'segment', id: 'seg_none' } });
    expect((await handleTrigger(f.deps, other)).entered).toEqual([]);
  });
});
