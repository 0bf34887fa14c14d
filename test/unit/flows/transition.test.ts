/**
 * `transition(run, flow, now)`: the pure decision of a run's next step, tested with plain objects (no ports, no clock,
 * no runtime). The engine tests (engine-domain, engine-kinds) cover the effects being carried out.
 */
import { describe, expect, it } from 'vitest';
import type { Flow, FlowStep } from '#shared/domain/flows/flow.ts';
import type { FlowRun } from '#shared/domain/flows/run.ts';
import { transition } from '#shared/domain/flows/transition.ts';

const NOW = 1_700_000_000_000;
const HOUR = 3_600_000;

const email: Extract<FlowStep, { type: 'email' }> = {
  type: 'email',
  id: 'mail',
  from: { email: 'hello@shop.example' },
  subject: 'You left something',
  text: 'Come back',
};
const wait: FlowStep = { type: 'wait', id: 'hour', seconds: 3600 };
const exitIf: FlowStep = {
  type: 'exit_if',
  id: 'paid',
  condition: { match: 'all', conditions: [{ field: 'event.paid', op: 'equals', value: true }] },
};

const flowOf = (steps: readonly FlowStep[], changes: Partial<Flow> = {}): Flow => ({
  storeId: 'st_1',
  id: 'fl_1',
  name: 'Abandoned cart',
  trigger: 'abandoned_cart',
  enabled: true,
  reentry: { type: 'once_per_subject' },
  consent: 'subscribed',
  steps,
  createdAt: NOW - HOUR,
  updatedAt: NOW - HOUR,
  revision: 1,
  ...changes,
});

const runOf = (changes: Partial<FlowRun> = {}): FlowRun => ({
  storeId: 'st_1',
  id: 'run_1',
  flowId: 'fl_1',
  flowKind: 'abandoned_cart',
  trigger: {
    id: 'tr_1',
    storeId: 'st_1',
    kind: 'abandoned_cart',
    subject: { type: 'cart', id: 'cart-1' },
    contact: { email: 'ada@example.com' },
    cause: {},
    context: {},
    at: NOW - HOUR,
  },
  email: 'ada@example.com',
  status: 'active',
  events: [{ at: NOW - HOUR, type: 'entered' }],
  startedAt: NOW - HOUR,
  updatedAt: NOW - HOUR,
  revision: 1,
  ...changes,
});

describe('transition', () => {
  it('does nothing to a run that has ended', () => {
    for (const status of ['completed', 'exited', 'failed'] as const) {
      expect(transition(runOf({ status }), flowOf([email]), NOW)).toEqual({ effect: 'stop', status });
    }
  });

  it('starts a wait: the run waits on the step until now + its seconds, heading for the next step, with a timer', () => {
    const decided = transition(runOf({ nextStepId: 'hour' }), flowOf([wait, email]), NOW);
    expect(decided.effect).toBe('wait');
    if (decided.effect !== 'wait') return;
    expect(decided.next).toMatchObject({
      status: 'waiting',
      waitingOn: 'hour',
      waitUntil: NOW + HOUR,
      nextStepId: 'mail',
      revision: 2,
      updatedAt: NOW,
    });
    expect(decided.next.events.at(-1)).toEqual({ at: NOW, type: 'waiting', stepId: 'hour', until: NOW + HOUR });
    expect(decided.timer).toMatchObject({
      at: NOW + HOUR,
      payload: { v: 1, kind: 'flow', storeId: 'st_1', runId: 'run_1', step: 'hour' },
    });
  });

  it('keeps a run waiting when the message is not its wait’s end, setting the timer again only while it is due', () => {
    const waiting = runOf({ status: 'waiting', waitingOn: 'hour', waitUntil: NOW + HOUR, nextStepId: 'mail' });
    const flow = flowOf([wait, email]);
    const again = transition(waiting, flow, NOW);
    expect(again.effect).toBe('keep_waiting');
    expect(again.effect === 'keep_waiting' && again.timer?.at).toBe(NOW + HOUR);
    expect(transition(waiting, flow, NOW, 'an-earlier-wait')).toMatchObject({ effect: 'keep_waiting' });
    // Past its time the timer fired: its resume message is on its way, nothing is set again.
    expect(transition(waiting, flow, NOW + 2 * HOUR)).toEqual({ effect: 'keep_waiting' });
  });

  it('resumes a run at its wait’s end and asks for the flow and contact to be read afresh', () => {
    const waiting = runOf({ status: 'waiting', waitingOn: 'hour', waitUntil: NOW, nextStepId: 'mail', revision: 2 });
    const decided = transition(waiting, undefined, NOW, 'hour');
    expect(decided).toMatchObject({ effect: 'save', refresh: true, next: { status: 'active', revision: 3 } });
    if (decided.effect !== 'save') return;
    expect(decided.next.waitingOn).toBeUndefined();
    expect(decided.next.waitUntil).toBeUndefined();
    expect(decided.next.events.at(-1)).toEqual({ at: NOW, type: 'resumed', stepId: 'hour' });
  });

  it('exits a run whose flow was deleted or disabled, or whose next step was removed', () => {
    const run = runOf({ nextStepId: 'mail' });
    expect(transition(run, undefined, NOW)).toMatchObject({
      effect: 'save',
      next: { status: 'exited', events: [{ type: 'entered' }, { type: 'exited', reason: 'flow_deleted' }] },
    });
    expect(transition(run, flowOf([email], { enabled: false }), NOW)).toMatchObject({
      effect: 'save',
      next: { status: 'exited', events: [{}, { reason: 'flow_disabled' }] },
    });
    expect(transition(run, flowOf([wait]), NOW)).toMatchObject({
      effect: 'save',
      next: { status: 'exited', events: [{}, { reason: 'step_removed', detail: { stepId: 'mail' } }] },
    });
  });

  it('completes a run with no step left, with the retention time set', () => {
    const decided = transition(runOf(), flowOf([email]), NOW);
    expect(decided).toMatchObject({ effect: 'save', next: { status: 'completed' } });
    expect(decided.effect === 'save' && decided.next.expiresAt).toBeGreaterThan(NOW / 1000);
  });

  it('hands an exit_if its two outcomes: exited with the condition, or on to the next step', () => {
    const decided = transition(runOf({ nextStepId: 'paid' }), flowOf([exitIf, email]), NOW);
    expect(decided.effect).toBe('exit_if');
    if (decided.effect !== 'exit_if') return;
    expect(decided.step).toBe(exitIf);
    expect(decided.exited).toMatchObject({ status: 'exited', events: [{}, { reason: 'exit_if' }] });
    expect(decided.passed).toMatchObject({ status: 'active', nextStepId: 'mail', revision: 2 });
  });

  it('hands an email step to the sender, with how the run moves on after it', () => {
    const middle = transition(runOf({ nextStepId: 'mail' }), flowOf([email, wait]), NOW);
    expect(middle).toMatchObject({ effect: 'email', step: email, after: { change: { nextStepId: 'hour' }, drop: [] } });
    const last = transition(runOf({ nextStepId: 'mail' }), flowOf([email]), NOW);
    expect(last).toMatchObject({ effect: 'email', after: { change: {}, drop: ['nextStepId'] } });
  });

  it('leaves the run it was given unchanged', () => {
    const run = runOf({ nextStepId: 'hour' });
    const before = structuredClone(run);
    transition(run, flowOf([wait, email]), NOW);
    expect(run).toEqual(before);
  });
});
