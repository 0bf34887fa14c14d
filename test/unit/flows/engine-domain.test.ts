/**
 * The flow engine's rules, against in-memory ports: which flows a trigger enters and why not, runs through waits and
 * emails, idempotency under redelivery and overlap, and what the explain records say.
 */
import { describe, expect, it } from 'vitest';
import { EMAIL_TAGS } from '#shared/domain/email/model.ts';
import { advanceRun } from '#shared/domain/flows/advance-run.ts';
import { SEND_CLAIM_MS } from '#shared/domain/flows/email-step.ts';
import { handleFlowMessage } from '#shared/domain/flows/engine.ts';
import { ENTRY_CLAIM_MS, handleTrigger } from '#shared/domain/flows/enter-run.ts';
import { runIdOf } from '#shared/domain/flows/run.ts';
import { WaitingRunsCapReached } from '#shared/domain/timers/wheel.ts';
import { PermanentError } from '#shared/errors.ts';
import {
  customerOf,
  emailStep,
  type Fakes,
  fakes,
  flowOf,
  STORE,
  triggerOf,
} from '#test/support/memory/flow-engine.ts';

const skipsOf = (f: Fakes) =>
  f.evaluations.filter((e) => e.evaluation.outcome === 'skipped').map((e) => e.evaluation.reason);

describe('entering flows', () => {
  it('runs every enabled flow of the kind and mails the contact with the run as transmission', async () => {
    const f = fakes();
    f.flows.set('fl_a', flowOf('fl_a', 'abandoned_cart'));
    f.flows.set('fl_b', flowOf('fl_b', 'abandoned_cart', { steps: [emailStep('x', { subject: 'Second' })] }));
    f.flows.set('fl_other', flowOf('fl_other', 'order_paid'));
    const trigger = triggerOf('abandoned_cart');

    const outcome = await handleTrigger(f.deps, trigger);

    expect(outcome.entered).toHaveLength(2);
    expect(f.sent.map((m) => m.subject).sort()).toEqual(['Hello', 'Second']);
    const first = f.sent.find((m) => m.subject === 'Hello');
    const runId = runIdOf(STORE, 'fl_a', trigger.id);
    expect(runId).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(first?.to.email).toBe('ada@example.com');
    expect(first?.html).toContain('Lamp;');
    expect(first?.tags).toEqual({
      [EMAIL_TAGS.store]: STORE,
      [EMAIL_TAGS.transmission]: runId,
      [EMAIL_TAGS.kind]: 'flow',
      [EMAIL_TAGS.flow]: 'fl_a',
    });
    expect(first?.headers['List-Unsubscribe']).toBe(`<https://send.example/unsubscribe/${runId}.ada@example.com>`);
    expect(first?.headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
    expect(f.recorded.find((m) => m.transmissionId === runId)).toMatchObject({ kind: 'flow', flowId: 'fl_a' });
    expect(f.runs.get(runId)?.status).toBe('completed');
    expect(f.runs.get(runId)?.events.map((e) => e.type)).toEqual(['entered', 'emailed', 'completed']);
    expect(f.evaluations.map((e) => e.evaluation.outcome)).toEqual(['entered', 'entered']);
  });

  it('writes a run once per step: created holding its first email, or already waiting on its first wait', async () => {
    const f = fakes();
    f.flows.set('fl_mail', flowOf('fl_mail', 'order_paid'));
    f.flows.set(
      'fl_wait',
      flowOf('fl_wait', 'order_paid', { steps: [{ type: 'wait', id: 'w', seconds: 600 }, emailStep('e')] }),
    );
    const trigger = triggerOf('order_paid');
    await handleTrigger(f.deps, trigger);
    expect(f.sent).toHaveLength(1);
    // The email's run is completed without a revision check: its fresh send claim makes this pass its only writer.
    expect(f.runWrites.sort()).toEqual(['create active sending', 'create waiting', 'save completed claimed']);
    const waiting = runIdOf(STORE, 'fl_wait', trigger.id);
    expect(f.runs.get(waiting)?.events.map((e) => e.type)).toEqual(['entered', 'waiting']);
    expect(f.timers.map((t) => t.payload)).toEqual([expect.objectContaining({ runId: waiting, step: 'w' })]);
    expect(f.timers[0]?.at).toBe((f.runs.get(waiting)?.startedAt ?? 0) + 600_000);

    // The claim a run was created with is its creator's alone: a redelivery meanwhile finds the email being sent.
    const again = fakes();
    again.flows.set('fl_mail', flowOf('fl_mail', 'order_paid'));
    await Promise.all([handleTrigger(again.deps, trigger), handleTrigger(again.deps, trigger)]);
    expect(again.sent).toHaveLength(1);
  });

  it('starts nothing new and sends nothing twice when the same trigger comes again', async () => {
    const f = fakes();
    f.flows.set('fl_a', flowOf('fl_a', 'abandoned_cart'));
    const trigger = triggerOf('abandoned_cart');
    await handleTrigger(f.deps, trigger);
    await handleTrigger(f.deps, trigger);
    await Promise.all([handleTrigger(f.deps, trigger), handleTrigger(f.deps, trigger)]);
    expect(f.sent).toHaveLength(1);
    expect(f.runs.size).toBe(1);
  });

  it('takes a re-entry guard back only from a delivery that died before writing its run, or from an older guard', async () => {
    const f = fakes();
    f.flows.set('fl_mail', flowOf('fl_mail', 'order_paid'));
    const trigger = triggerOf('order_paid');
    const runId = runIdOf(STORE, 'fl_mail', trigger.id);
    const key = `fl_mail#subject#${trigger.subject.type}#${trigger.subject.id}`;
    // Another delivery claimed the guard a moment ago and has not written the run yet: this one writes nothing and
    // sends nothing, and its message is retried.
    f.entries.set(key, { runId, at: trigger.at, claimedAt: f.clock.now });
    const pauses: number[] = [];
    const deps = { ...f.deps, sleep: async (ms: number) => void pauses.push(ms) };
    await expect(handleTrigger(deps, trigger)).rejects.toThrow(/being started by another delivery/);
    expect(pauses).toEqual([100, 100, 100]);
    expect(f.sent).toHaveLength(0);
    expect(f.runs.size).toBe(0);
    expect(f.runWrites).toEqual([]);

    // That delivery died: once its claim is stale, the retry takes the guard back and creates the run conditionally.
    f.clock.now += ENTRY_CLAIM_MS + 1;
    await handleTrigger(f.deps, trigger);
    expect(f.sent).toHaveLength(1);
    expect(f.runs.get(runId)?.status).toBe('completed');

    // A guard of this run written before claims carried their time is taken back at once.
    const g = fakes();
    g.flows.set('fl_mail', flowOf('fl_mail', 'order_paid'));
    g.entries.set(key, { runId, at: trigger.at });
    await handleTrigger(g.deps, trigger);
    expect(g.sent).toHaveLength(1);
    // Another run's guard still refuses, fresh or not.
    const h = fakes();
    h.flows.set('fl_mail', flowOf('fl_mail', 'order_paid'));
    h.entries.set(key, { runId: 'rn_other', at: trigger.at, claimedAt: 0 });
    await handleTrigger(h.deps, trigger);
    expect(h.sent).toHaveLength(0);
    expect(skipsOf(h)).toEqual(['reentry']);
  });

  it("counts the trigger's own activity in its conditions though it is written with the evaluation, once", async () => {
    const f = fakes();
    // The activity write lands only after the pass's other writes (it goes out with the evaluation's records).
    const writes: string[] = [];
    const record = f.deps.activity.record;
    const slowActivity = {
      ...f.deps.activity,
      record: async (entry: Parameters<typeof record>[0]) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        writes.push(`activity ${entry.triggerId}`);
        await record(entry);
      },
    };
    f.flows.set(
      'fl_first',
      flowOf('fl_first', 'order_paid', {
        entry: { match: 'all', conditions: [{ field: 'contact.order_count', op: 'equals', value: 1 }] },
      }),
    );
    const trigger = triggerOf('order_paid', { subject: { type: 'order', id: 'o-1' } });
    const outcome = await handleTrigger({ ...f.deps, activity: slowActivity }, trigger);
    // The contact's first order: its own trigger counts, though not yet readable when the condition was evaluated.
    expect(outcome.entered).toEqual([runIdOf(STORE, 'fl_first', trigger.id)]);
    expect(f.sent).toHaveLength(1);
    expect(writes).toEqual([`activity ${trigger.id}`]);
    // Again (a redelivery): recorded once, and not counted twice.
    await handleTrigger({ ...f.deps, activity: slowActivity }, trigger);
    expect(f.activity.filter((entry) => entry.triggerId === trigger.id)).toHaveLength(1);
    expect(f.sent).toHaveLength(1);
  });

  it("reads the flows' runs and the address's suppression while the contact is being read, not after", async () => {
    const f = fakes();
    f.flows.set('fl_a', flowOf('fl_a', 'order_paid'));
    f.flows.set('fl_b', flowOf('fl_b', 'order_paid'));
    const asked: string[] = [];
    let contactRead = (): void => undefined;
    const held = new Promise<void>((resolve) => {
      contactRead = resolve;
    });
    const deps = {
      ...f.deps,
      contacts: {
        find: async (storeId: string, email: string) => {
          asked.push('contact');
          await held;
          return f.deps.contacts.find(storeId, email);
        },
      },
      customers: {
        get: async (storeId: string, id: string) => {
          asked.push('contact');
          await held;
          return f.deps.customers.get(storeId, id);
        },
      },
      runs: {
        ...f.deps.runs,
        get: async (storeId: string, id: string) => {
          asked.push('run');
          return f.deps.runs.get(storeId, id);
        },
      },
      suppressions: {
        suppressedAmong: async (storeId: string, emails: readonly string[]) => {
          asked.push('suppression');
          return f.deps.suppressions.suppressedAmong(storeId, emails);
        },
      },
    };
    const handled = handleTrigger(deps, triggerOf('order_paid'));
    await new Promise((resolve) => setTimeout(resolve, 10));
    // Before the contact's read answered: both flows' runs and the suppression were asked for.
    expect(asked.filter((what) => what !== 'contact').sort()).toEqual(['run', 'run', 'suppression']);
    contactRead();
    expect((await handled).entered).toHaveLength(2);
    expect(f.sent).toHaveLength(2);
  });

  it('records why a trigger entered no flow: disabled, none of the kind, ignore_flow, no email', async () => {
    const f = fakes();
    f.flows.set('fl_off', flowOf('fl_off', 'order_paid', { enabled: false }));
    await handleTrigger(f.deps, triggerOf('order_paid'));
    await handleTrigger(f.deps, triggerOf('customer_created'));
    f.flows.set('fl_on', flowOf('fl_on', 'order_refunded'));
    await handleTrigger(f.deps, triggerOf('order_refunded', { context: { ignore_flow: 'Y' } }));
    await handleTrigger(f.deps, triggerOf('order_refunded', { contact: { phone: '+33600000000' } }));
    expect(skipsOf(f)).toEqual(['flow_disabled', 'no_matching_flow', 'ignore_flow', 'no_email']);
    expect(f.evaluations[1]?.partition).toBe('-none-customer_created');
    expect(f.sent).toEqual([]);
  });

  it('runs only the custom-notification flow named by flow_id, and skips an unknown id silently', async () => {
    const f = fakes();
    f.flows.set('fl_gold', flowOf('fl_gold', 'custom_notification'));
    f.flows.set('fl_silver', flowOf('fl_silver', 'custom_notification'));
    f.flows.set('fl_cart', flowOf('fl_cart', 'abandoned_cart'));
    const notify = (flowId: string) =>
      triggerOf('custom_notification', { subject: { type: 'flow', id: flowId }, context: { flow_id: flowId } });

    const gold = notify('fl_gold');
    expect((await handleTrigger(f.deps, gold)).entered).toEqual([runIdOf(STORE, 'fl_gold', gold.id)]);
    expect([...f.runs.values()].map((r) => r.flowId)).toEqual(['fl_gold']);
    await handleTrigger(f.deps, notify('fl_missing'));
    await handleTrigger(f.deps, notify('fl_cart'));
    expect(skipsOf(f)).toEqual(['no_matching_flow', 'no_matching_flow']);
    expect(f.sent).toHaveLength(1);
  });

  it('explains a false entry condition with the field, operator, expected value and the value seen', async () => {
    const f = fakes();
    const entry = {
      match: 'all' as const,
      conditions: [
        { field: 'custom.points', op: 'greater_than' as const, value: 5 },
        { field: 'custom.level', op: 'equals' as const, value: 'gold' },
      ],
    };
    f.flows.set('fl_gold', flowOf('fl_gold', 'custom_notification', { entry }));
    await handleTrigger(
      f.deps,
      triggerOf('custom_notification', { context: { flow_id: 'fl_gold', custom: { level: 'silver', points: '12' } } }),
    );
    expect(f.evaluations[0]?.evaluation).toMatchObject({
      outcome: 'skipped',
      reason: 'condition_false',
      detail: { field: 'custom.level', op: 'equals', expected: 'gold', value: 'silver' },
    });
    await handleTrigger(
      f.deps,
      triggerOf('custom_notification', { context: { flow_id: 'fl_gold', custom: { level: 'Gold', points: 12 } } }),
    );
    expect(f.sent).toHaveLength(1);
  });

  it('mails marketing flows only with consent, and no flow mails a suppressed address', async () => {
    const f = fakes();
    f.flows.set('fl_m', flowOf('fl_m', 'browse_recovery', { consent: 'subscribed' }));
    f.flows.set('fl_n', flowOf('fl_n', 'browse_recovery', { consent: 'not_unsubscribed' }));
    f.flows.set('fl_t', flowOf('fl_t', 'browse_recovery', { consent: 'transactional' }));
    f.customers.set('c1', customerOf('c1', { emailConsent: { state: 'unsubscribed' } }));
    await handleTrigger(
      f.deps,
      triggerOf('browse_recovery', { contact: { email: 'ada@example.com', customerId: 'c1' } }),
    );
    expect(f.evaluations.map((e) => [e.evaluation.flowId, e.evaluation.reason ?? 'entered'])).toEqual([
      ['fl_m', 'no_consent'],
      ['fl_n', 'no_consent'],
      ['fl_t', 'entered'],
    ]);
    expect(f.evaluations[0]?.evaluation.detail).toEqual({ required: 'subscribed', emailConsent: 'unsubscribed' });

    f.suppressed.add('ada@example.com');
    f.evaluations.length = 0;
    await handleTrigger(f.deps, triggerOf('browse_recovery'));
    // The address finds the unsubscribed contact even without its customer id.
    expect(f.evaluations.map((e) => e.evaluation.reason)).toEqual(['no_consent', 'no_consent', 'suppressed']);
    expect(f.sent).toHaveLength(1);
  });

  it('honours the re-entry policies: once per contact, once per subject, cool-down', async () => {
    const f = fakes();
    f.flows.set('fl_c', flowOf('fl_c', 'order_paid', { reentry: { type: 'once_per_contact' } }));
    await handleTrigger(f.deps, triggerOf('order_paid'));
    await handleTrigger(f.deps, triggerOf('order_paid'));
    expect(skipsOf(f)).toEqual(['reentry']);

    const g = fakes();
    g.flows.set('fl_s', flowOf('fl_s', 'abandoned_cart', { reentry: { type: 'once_per_subject' } }));
    await handleTrigger(g.deps, triggerOf('abandoned_cart', { subject: { type: 'cart', id: 'same' } }));
    await handleTrigger(g.deps, triggerOf('abandoned_cart', { subject: { type: 'cart', id: 'same' } }));
    await handleTrigger(g.deps, triggerOf('abandoned_cart', { subject: { type: 'cart', id: 'other' } }));
    expect(skipsOf(g)).toEqual(['reentry']);
    expect(g.sent).toHaveLength(2);

    const h = fakes();
    h.flows.set('fl_k', flowOf('fl_k', 'order_fulfilled', { reentry: { type: 'cooldown', seconds: 3600 } }));
    await handleTrigger(h.deps, triggerOf('order_fulfilled', { at: 0 }));
    await handleTrigger(h.deps, triggerOf('order_fulfilled', { at: 3_599_000 }));
    await handleTrigger(h.deps, triggerOf('order_fulfilled', { at: 3_601_000 }));
    expect(skipsOf(h)).toEqual(['reentry']);
    expect(h.sent).toHaveLength(2);
    expect(h.evaluations[1]?.evaluation.detail).toMatchObject({ policy: { type: 'cooldown', seconds: 3600 } });
  });
});

describe('runs', () => {
  const waitThenMail = () =>
    flowOf('fl_w', 'checkout_recovery', {
      steps: [
        { type: 'wait', id: 'w1', seconds: 600 },
        {
          type: 'exit_if',
          id: 'x1',
          condition: {
            match: 'any',
            conditions: [{ field: 'activity.order_paid_since_trigger', op: 'equals', value: true }],
          },
        },
        emailStep('e1', { subject: 'Come back', html: '<a href="{{ checkout.checkout_url }}">resume</a>' }),
      ],
    });
  const checkoutTrigger = () =>
    triggerOf('checkout_recovery', {
      subject: { type: 'checkout', id: 'ck-1' },
      context: { checkout: { token: 'ck-1', abandoned_checkout_url: 'https://shop.example/ck-1' } },
    });

  it('waits with a one-time timer, resumes only on that wait, then mails', async () => {
    const f = fakes();
    f.flows.set('fl_w', waitThenMail());
    const trigger = checkoutTrigger();
    const [runId] = (await handleTrigger(f.deps, trigger)).entered;
    if (!runId) throw new Error('no run');
    expect(f.runs.get(runId)).toMatchObject({ status: 'waiting', waitingOn: 'w1', waitUntil: 2_000_000 + 600_000 });
    expect(f.timers[0]?.payload).toEqual({ v: 1, kind: 'flow', storeId: STORE, runId, step: 'w1' });
    expect(f.timers[0]?.at).toBe(2_600_000);
    expect(f.timers[0]?.name).toMatch(/^flow-[0-9a-f]{48}$/);

    // A redelivered trigger or a stale timer does not end the wait; the timer is set again (same name and time).
    await handleTrigger(f.deps, trigger);
    await advanceRun(f.deps, STORE, runId, { resumeStepId: 'other' });
    expect(f.sent).toEqual([]);
    expect(f.timers.map((t) => t.at)).toEqual([2_600_000, 2_600_000, 2_600_000]);

    await handleFlowMessage(f.deps, { v: 1, type: 'resume', storeId: STORE, runId, step: 'w1' });
    expect(f.sent.map((m) => m.html)).toEqual(['<a href="https://shop.example/ck-1">resume</a>']);
    expect(f.runs.get(runId)?.events.map((e) => e.type)).toEqual([
      'entered',
      'waiting',
      'resumed',
      'emailed',
      'completed',
    ]);
    // A second delivery of the same resume finds the run finished.
    await handleFlowMessage(f.deps, { v: 1, type: 'resume', storeId: STORE, runId, step: 'w1' });
    expect(f.sent).toHaveLength(1);
  });

  it('exits at exit_if when an order was paid since the trigger', async () => {
    const f = fakes();
    f.flows.set('fl_w', waitThenMail());
    const trigger = checkoutTrigger();
    const [runId] = (await handleTrigger(f.deps, trigger)).entered;
    if (!runId) throw new Error('no run');
    f.activity.push({
      storeId: STORE,
      email: 'ada@example.com',
      triggerId: 'event#paid#order_paid',
      kind: 'order_paid',
      subject: { type: 'order', id: 'o-1' },
      status: 'paid',
      at: trigger.at + 1000,
    });
    await advanceRun(f.deps, STORE, runId, { resumeStepId: 'w1' });
    expect(f.sent).toEqual([]);
    expect(f.runs.get(runId)?.status).toBe('exited');
    expect(f.runs.get(runId)?.events.at(-1)).toMatchObject({ type: 'exited', reason: 'exit_if' });
  });

  it('stops a waiting run whose flow was disabled meanwhile, or whose contact unsubscribed', async () => {
    const f = fakes();
    f.flows.set('fl_w', waitThenMail());
    const [runId] = (await handleTrigger(f.deps, checkoutTrigger())).entered;
    if (!runId) throw new Error('no run');
    f.flows.set('fl_w', { ...waitThenMail(), enabled: false });
    await advanceRun(f.deps, STORE, runId, { resumeStepId: 'w1' });
    expect(f.runs.get(runId)?.events.at(-1)).toMatchObject({ type: 'exited', reason: 'flow_disabled' });

    const g = fakes();
    g.flows.set('fl_w', waitThenMail());
    const [other] = (await handleTrigger(g.deps, checkoutTrigger())).entered;
    if (!other) throw new Error('no run');
    g.suppressed.add('ada@example.com');
    await advanceRun(g.deps, STORE, other, { resumeStepId: 'w1' });
    expect(g.runs.get(other)?.events.at(-1)).toMatchObject({ type: 'exited', reason: 'suppressed' });
    expect(g.sent).toEqual([]);
  });

  it('retries a transient send failure, fails the run on a permanent one or on the last delivery', async () => {
    const f = fakes();
    f.flows.set('fl_a', flowOf('fl_a', 'order_paid'));
    const trigger = triggerOf('order_paid');
    f.failures.push(new Error('Throttling'));
    await expect(handleTrigger(f.deps, trigger)).rejects.toThrow('Throttling');
    const runId = runIdOf(STORE, 'fl_a', trigger.id);
    expect(f.runs.get(runId)?.sending).toBeUndefined();
    await handleTrigger(f.deps, trigger);
    expect(f.sent).toHaveLength(1);
    expect(f.runs.get(runId)?.status).toBe('completed');

    // A retry checks consent and suppression again: the address was suppressed since the failed attempt.
    const retried = triggerOf('order_paid');
    f.failures.push(new Error('Throttling'));
    await expect(handleTrigger(f.deps, retried)).rejects.toThrow('Throttling');
    f.suppressed.add('ada@example.com');
    await handleTrigger(f.deps, retried);
    expect(f.sent).toHaveLength(1);
    expect(f.runs.get(runIdOf(STORE, 'fl_a', retried.id))?.events.at(-1)).toMatchObject({
      type: 'exited',
      reason: 'suppressed',
    });

    const g = fakes();
    g.flows.set('fl_a', flowOf('fl_a', 'order_paid'));
    g.failures.push(new PermanentError('SES refused the message: MessageRejected'));
    const rejected = triggerOf('order_paid');
    await handleTrigger(g.deps, rejected);
    expect(g.runs.get(runIdOf(STORE, 'fl_a', rejected.id))?.events.at(-1)).toMatchObject({
      type: 'failed',
      reason: 'send_rejected',
      detail: { stepId: 'e1', error: 'SES refused the message: MessageRejected' },
    });

    g.failures.push(new Error('Throttling'));
    const last = triggerOf('order_paid');
    await handleTrigger(g.deps, last, { lastAttempt: true });
    expect(g.runs.get(runIdOf(STORE, 'fl_a', last.id))?.events.at(-1)).toMatchObject({
      type: 'failed',
      reason: 'send_failed',
    });
  });

  it('retries recording an email SES took rather than giving the claim back: a failing write sends nothing twice', async () => {
    const f = fakes();
    f.flows.set('fl_a', flowOf('fl_a', 'order_paid'));
    const trigger = triggerOf('order_paid');
    f.recordFailures.push(new Error('Throttling'), new Error('Throttling'));
    await handleTrigger(f.deps, trigger);
    await handleTrigger(f.deps, trigger);
    expect(f.sent).toHaveLength(1);
    expect(f.runs.get(runIdOf(STORE, 'fl_a', trigger.id))?.status).toBe('completed');
  });

  it('never sends from a domain that is not a verified sender of the store: the run fails and says why', async () => {
    const f = fakes();
    // Another store's (or nobody's) domain: SES identities are account-wide, so only this check stops it.
    f.flows.set(
      'fl_a',
      flowOf('fl_a', 'order_paid', { steps: [emailStep('e1', { from: { email: 'ceo@brand-b.example' } })] }),
    );
    const trigger = triggerOf('order_paid');
    await handleTrigger(f.deps, trigger);
    expect(f.sent).toEqual([]);
    expect(f.runs.get(runIdOf(STORE, 'fl_a', trigger.id))?.events.at(-1)).toMatchObject({
      type: 'failed',
      reason: 'sender_not_verified',
      detail: { stepId: 'e1', from: 'ceo@brand-b.example' },
    });

    // Once the store verifies the domain, the next trigger is mailed.
    f.verifiedDomains.add('brand-b.example');
    await handleTrigger(f.deps, triggerOf('order_paid'));
    expect(f.sent.map((m) => m.from.email)).toEqual(['ceo@brand-b.example']);
  });

  it('exits a run entering a wait when its store keeps its cap of waiting runs, and says so', async () => {
    const f = fakes();
    f.flows.set(
      'fl_w',
      flowOf('fl_w', 'order_paid', { steps: [{ type: 'wait', id: 'w', seconds: 3600 }, emailStep('e')] }),
    );
    const capped = {
      ...f.deps,
      timers: {
        set: async () => {
          throw new WaitingRunsCapReached(2);
        },
      },
    };
    const [runId] = (await handleTrigger(capped, triggerOf('order_paid'))).entered;
    if (!runId) throw new Error('no run');
    expect(f.runs.get(runId)).toMatchObject({ status: 'exited' });
    expect(JSON.stringify(f.runs.get(runId))).toContain('waiting_runs_cap');
    expect(f.sent).toEqual([]);
  });

  it("sends once when two workers advance the same run at the same time, and takes over a dead worker's claim", async () => {
    const f = fakes();
    f.flows.set(
      'fl_w',
      flowOf('fl_w', 'order_paid', { steps: [{ type: 'wait', id: 'w', seconds: 60 }, emailStep('e')] }),
    );
    const [runId] = (await handleTrigger(f.deps, triggerOf('order_paid'))).entered;
    if (!runId) throw new Error('no run');
    await Promise.all([
      advanceRun(f.deps, STORE, runId, { resumeStepId: 'w' }),
      advanceRun(f.deps, STORE, runId, { resumeStepId: 'w' }),
      advanceRun(f.deps, STORE, runId, { resumeStepId: 'w' }),
    ]);
    expect(f.sent).toHaveLength(1);
    expect(f.runs.get(runId)?.status).toBe('completed');

    // A claim left by a worker that died mid-send: a fresh one is respected, a stale one taken over.
    const g = fakes();
    g.flows.set(
      'fl_a',
      flowOf('fl_a', 'order_paid', { steps: [{ type: 'wait', id: 'w', seconds: 60 }, emailStep('e')] }),
    );
    const [stuck] = (await handleTrigger(g.deps, triggerOf('order_paid'))).entered;
    if (!stuck) throw new Error('no run');
    const run = g.runs.get(stuck);
    if (!run) throw new Error('no run');
    const { waitingOn: _w, waitUntil: _u, ...rest } = run;
    g.runs.set(stuck, { ...rest, status: 'active', nextStepId: 'e', sending: { stepId: 'e', claimedAt: g.clock.now } });
    let retaken = 0;
    const counted = { ...g.deps, onRetaken: () => void retaken++ };
    await advanceRun(counted, STORE, stuck);
    expect(g.sent).toEqual([]);
    expect(retaken).toBe(0);
    g.clock.now += SEND_CLAIM_MS + 1;
    await advanceRun(counted, STORE, stuck);
    expect(g.sent).toHaveLength(1);
    // Counted: how often the window between SES's answer and its record could have been hit.
    expect(retaken).toBe(1);
  });

  it('moves a run on after its email with a revision check once its claim is no longer surely fresh', async () => {
    const f = fakes();
    f.flows.set('fl_slow', flowOf('fl_slow', 'order_paid'));
    // SES answers only after half the claim's lifetime: another worker may take the claim over soon.
    const send = f.deps.mailer.send;
    const slowMailer = {
      send: async (message: Parameters<typeof send>[0]) => {
        f.clock.now += SEND_CLAIM_MS / 2;
        return send(message);
      },
    };
    const trigger = triggerOf('order_paid');
    await handleTrigger({ ...f.deps, mailer: slowMailer }, trigger);
    expect(f.runWrites.sort()).toEqual(['create active sending', 'save completed']);
    expect(f.runs.get(runIdOf(STORE, 'fl_slow', trigger.id))?.status).toBe('completed');

    // And a conditional write that another worker's write overtook does not overwrite it.
    const g = fakes();
    g.flows.set('fl_slow', flowOf('fl_slow', 'order_paid'));
    const other = triggerOf('order_paid');
    const runId = runIdOf(STORE, 'fl_slow', other.id);
    const overtaking = {
      send: async (message: Parameters<typeof send>[0]) => {
        g.clock.now += SEND_CLAIM_MS / 2;
        // Meanwhile another worker ended the run (it found the flow disabled, say).
        const run = g.runs.get(runId);
        if (run) {
          const { sending: _claim, ...rest } = run;
          g.runs.set(runId, { ...rest, status: 'exited', revision: run.revision + 1 });
        }
        return g.deps.mailer.send(message);
      },
    };
    await handleTrigger({ ...g.deps, mailer: overtaking }, other);
    expect(g.sent).toHaveLength(1);
    expect(g.runs.get(runId)?.status).toBe('exited');
  });

  it('keeps browse and cart recovery from both mailing one person about one product within the cool-down', async () => {
    const f = fakes();
    const hour = { type: 'cooldown' as const, seconds: 3600 };
    f.flows.set('fl_cart', flowOf('fl_cart', 'abandoned_cart', { reentry: hour }));
    f.flows.set('fl_browse', flowOf('fl_browse', 'browse_recovery', { reentry: hour }));
    const browse = (productId: string, at: number) =>
      triggerOf('browse_recovery', {
        subject: { type: 'product', id: productId },
        context: { product: { id: productId, title: 'Lamp' } },
        at,
      });
    await handleTrigger(f.deps, triggerOf('abandoned_cart'));
    expect(f.sent).toHaveLength(1);
    const first = browse('p-1', 1_000_000);
    await handleTrigger(f.deps, first);
    expect(f.sent).toHaveLength(1);
    expect(f.runs.get(runIdOf(STORE, 'fl_browse', first.id))?.events.at(-1)).toMatchObject({
      type: 'exited',
      reason: 'recently_mailed',
      detail: { productId: 'p-1', by: 'abandoned_cart' },
    });
    // Another product is not held; after the cool-down the same product may be mailed again.
    await handleTrigger(f.deps, browse('p-2', 1_000_000 + 3_601_000));
    expect(f.sent).toHaveLength(2);
    f.clock.now += 3_601_000;
    await handleTrigger(f.deps, browse('p-1', 1_000_000 + 7_202_000));
    expect(f.sent).toHaveLength(3);
  });
});
