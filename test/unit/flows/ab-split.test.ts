/**
 * A/B splits and the holdout (docs/flows.md "A/B splits and holdout"), on in-memory ports: the assignment is a pure
 * function of (flow, split, address), 1,000 contacts land near their percents, a held-out run is recorded and counted
 * but sends nothing, branches run their own steps, and definitions with splits are validated in the house style.
 */
import { describe, expect, it } from 'vitest';
import { advanceRun } from '#shared/domain/flows/advance-run.ts';
import { handleTrigger } from '#shared/domain/flows/enter-run.ts';
import type { Flow, FlowStep, SplitStep } from '#shared/domain/flows/flow.ts';
import { parseFlowDefinition } from '#shared/domain/flows/flow-schema.ts';
import { runIdOf } from '#shared/domain/flows/run.ts';
import { branchOf, bucketOf, groupOf, HOLDOUT, locateStep } from '#shared/domain/flows/split.ts';
import { emailStep, type Fakes, fakes, flowOf, STORE, triggerOf } from '#test/support/memory/flow-engine.ts';

const split = (a: readonly FlowStep[], b: readonly FlowStep[], percents = [50, 50]): SplitStep => ({
  type: 'split',
  id: 'ab',
  branches: [
    { id: 'a', percent: percents[0] ?? 50, steps: a as SplitStep['branches'][number]['steps'] },
    { id: 'b', percent: percents[1] ?? 50, steps: b as SplitStep['branches'][number]['steps'] },
  ],
});

const abFlow = (extra: Partial<Flow> = {}): Flow =>
  flowOf('fl_ab', 'order_paid', {
    holdoutPercent: 10,
    steps: [split([emailStep('mail-a', { subject: 'A' })], [emailStep('mail-b', { subject: 'B' })])],
    ...extra,
  });

const contact = (i: number) => `shopper-${i}@example.com`;

/** One trigger per contact (each its own order, so once-per-subject lets every one in). */
const enterAll = async (f: Fakes, count: number) => {
  for (let i = 0; i < count; i++) {
    await handleTrigger(
      f.deps,
      triggerOf('order_paid', { contact: { email: contact(i) }, subject: { type: 'order', id: `o-${i}` } }),
    );
  }
};

const runsOf = (f: Fakes) => [...f.runs.values()];

describe('assignment', () => {
  it('gives one contact the same bucket and group every time, whatever the case of the address', () => {
    const flow = abFlow();
    for (let i = 0; i < 200; i++) {
      expect(bucketOf(flow.id, HOLDOUT, contact(i))).toBe(bucketOf(flow.id, HOLDOUT, contact(i).toUpperCase()));
      expect(groupOf(flow, contact(i))).toBe(groupOf({ ...flow }, contact(i)));
    }
  });

  it('draws the holdout and the split independently, and each flow apart', () => {
    const flow = abFlow();
    const splitStep = flow.steps[0] as SplitStep;
    const pairs = Array.from({ length: 400 }, (_, i) => ({
      holdout: bucketOf(flow.id, HOLDOUT, contact(i)) < 1000,
      branch: branchOf(flow.id, splitStep, contact(i)).id,
      otherFlow: branchOf('fl_other', splitStep, contact(i)).id,
    }));
    // Among the held-out contacts, both branches occur: the holdout does not take its runs from one branch.
    const heldBranches = new Set(pairs.filter((p) => p.holdout).map((p) => p.branch));
    expect(heldBranches).toEqual(new Set(['a', 'b']));
    // Another flow's draw is not this one's: about half of the contacts differ (0 or all would mean no hashing).
    const differ = pairs.filter((p) => p.branch !== p.otherFlow).length;
    expect(differ).toBeGreaterThan(120);
    expect(differ).toBeLessThan(280);
  });

  it('maps buckets to branches by their percents, in order', () => {
    const s = split([emailStep('x')], [emailStep('y')], [30, 70]);
    const shares = { a: 0, b: 0 };
    for (let i = 0; i < 2000; i++) shares[branchOf('fl_ab', s, contact(i)).id as 'a' | 'b']++;
    // 30 % of 2,000 = 600, sd = √(2000·0.3·0.7) ≈ 20.5: ±70 is more than 3 sd.
    expect(shares.a).toBeGreaterThan(530);
    expect(shares.a).toBeLessThan(670);
  });
});

describe('runs through a split with a holdout', () => {
  it('splits 1,000 runs near 45/45/10 and mails no held-out contact', async () => {
    const f = fakes();
    f.flows.set('fl_ab', abFlow());
    await enterAll(f, 1000);

    const runs = runsOf(f);
    expect(runs).toHaveLength(1000);
    const byGroup = (group: string) => runs.filter((r) => r.group === group);
    // Holdout ~ Binomial(1000, 0.10): sd ≈ 9.5, so ±30 is > 3 sd. Branches ~ Binomial(1000, 0.45): sd ≈ 15.7, ±50.
    expect(byGroup('holdout').length).toBeGreaterThan(70);
    expect(byGroup('holdout').length).toBeLessThan(130);
    expect(byGroup('a').length).toBeGreaterThan(400);
    expect(byGroup('a').length).toBeLessThan(500);
    expect(byGroup('b').length).toBeGreaterThan(400);
    expect(byGroup('b').length).toBeLessThan(500);

    // Each branch's runs got that branch's email, and only them; held-out runs got none.
    const subjectsTo = new Map(f.sent.map((m) => [m.to.email, m.subject]));
    for (const run of byGroup('a')) expect(subjectsTo.get(run.email)).toBe('A');
    for (const run of byGroup('b')) expect(subjectsTo.get(run.email)).toBe('B');
    for (const run of byGroup('holdout')) expect(subjectsTo.has(run.email)).toBe(false);
    expect(f.sent).toHaveLength(1000 - byGroup('holdout').length);

    // Counted: every run entered the flow, and its group.
    const days = await f.attribution.store.days(STORE, 'flow#fl_ab', '0000-01-01', '9999-12-31');
    const totals = (name: string) => days.reduce((sum, d) => sum + (d.counts[name] ?? 0), 0);
    expect(totals('entered')).toBe(1000);
    expect(totals('group#holdout#entered')).toBe(byGroup('holdout').length);
    expect(totals('group#a#entered')).toBe(byGroup('a').length);
    expect(totals('group#b#entered')).toBe(byGroup('b').length);
  });

  it('records a held-out run as entered, exited with reason holdout, measured from its entry', async () => {
    const f = fakes();
    f.flows.set('fl_ab', abFlow({ holdoutPercent: 50 }));
    let i = 0;
    while (groupOf(abFlow({ holdoutPercent: 50 }), contact(i)) !== HOLDOUT) i++;
    const trigger = triggerOf('order_paid', { contact: { email: contact(i) }, subject: { type: 'order', id: 'o' } });
    await handleTrigger(f.deps, trigger);

    const run = f.runs.get(runIdOf(STORE, 'fl_ab', trigger.id));
    expect(run).toMatchObject({ status: 'exited', group: 'holdout' });
    expect(run?.events.map((e) => [e.type, e.reason])).toEqual([
      ['entered', undefined],
      ['exited', 'holdout'],
    ]);
    expect(f.evaluations.map((e) => e.evaluation.outcome)).toEqual(['entered']);
    expect(f.sent).toHaveLength(0);
    expect(await f.attribution.store.exposuresOf(STORE, contact(i))).toEqual([
      { flowId: 'fl_ab', runId: run?.id, group: 'holdout', at: run?.startedAt },
    ]);
  });

  it('holds out a share of a flow without a split and treats the rest as one group', async () => {
    const f = fakes();
    f.flows.set('fl_ab', flowOf('fl_ab', 'order_paid', { holdoutPercent: 30 }));
    await enterAll(f, 300);
    const runs = runsOf(f);
    const held = runs.filter((r) => r.group === 'holdout');
    // 30 % of 300 = 90, sd = √(300·0.3·0.7) ≈ 7.9: ±30 is more than 3 sd.
    expect(held.length).toBeGreaterThan(60);
    expect(held.length).toBeLessThan(120);
    expect(runs.filter((r) => r.group === 'treated')).toHaveLength(300 - held.length);
    expect(f.sent).toHaveLength(300 - held.length);
    const mailed = new Set(f.sent.map((m) => m.to.email));
    expect(held.some((r) => mailed.has(r.email))).toBe(false);
  });

  it('leaves the runs of a flow without a split or a holdout out of any group', async () => {
    const f = fakes();
    f.flows.set('fl_plain', flowOf('fl_plain', 'order_paid'));
    await enterAll(f, 5);
    expect(runsOf(f).map((r) => r.group)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(await f.attribution.store.exposuresOf(STORE, contact(0))).toEqual([]);
  });

  it('sends a returning contact down the same branch', async () => {
    const f = fakes();
    f.flows.set('fl_ab', abFlow({ holdoutPercent: 0 }));
    for (const order of ['first', 'second', 'third']) {
      for (let i = 0; i < 20; i++) {
        await handleTrigger(
          f.deps,
          triggerOf('order_paid', { contact: { email: contact(i) }, subject: { type: 'order', id: `${order}-${i}` } }),
        );
      }
    }
    const subjects = new Map<string, Set<string>>();
    for (const m of f.sent) subjects.set(m.to.email, (subjects.get(m.to.email) ?? new Set()).add(m.subject));
    expect(f.sent).toHaveLength(60);
    for (const seen of subjects.values()) expect(seen.size).toBe(1);
    expect(new Set(f.sent.map((m) => m.subject))).toEqual(new Set(['A', 'B']));
  });

  it("walks a branch's own waits and exits, then completes at the branch's end", async () => {
    const f = fakes();
    const flow = abFlow({
      holdoutPercent: 0,
      steps: [
        emailStep('welcome', { subject: 'Welcome' }),
        split(
          [{ type: 'wait', id: 'a-wait', seconds: 3600 }, emailStep('a-mail', { subject: 'A later' })],
          [
            {
              type: 'exit_if',
              id: 'b-exit',
              condition: { match: 'all', conditions: [{ field: 'event.kind', op: 'equals', value: 'order_paid' }] },
            },
            emailStep('b-mail', { subject: 'never' }),
          ],
        ),
      ],
    });
    f.flows.set('fl_ab', flow);
    let a = 0;
    while (groupOf(flow, contact(a)) !== 'a') a++;
    let b = 0;
    while (groupOf(flow, contact(b)) !== 'b') b++;
    const tA = triggerOf('order_paid', { contact: { email: contact(a) }, subject: { type: 'order', id: 'oa' } });
    const tB = triggerOf('order_paid', { contact: { email: contact(b) }, subject: { type: 'order', id: 'ob' } });
    await handleTrigger(f.deps, tA);
    await handleTrigger(f.deps, tB);

    const runA = runIdOf(STORE, 'fl_ab', tA.id);
    expect(f.runs.get(runA)).toMatchObject({ status: 'waiting', waitingOn: 'a-wait', group: 'a' });
    expect(f.runs.get(runA)?.events.find((e) => e.type === 'split')).toMatchObject({ stepId: 'ab', branch: 'a' });
    f.clock.now += 3600_000;
    await advanceRun(f.deps, STORE, runA, { resumeStepId: 'a-wait' });
    expect(f.runs.get(runA)?.status).toBe('completed');

    const runB = runIdOf(STORE, 'fl_ab', tB.id);
    expect(f.runs.get(runB)?.events.at(-1)).toMatchObject({ type: 'exited', reason: 'exit_if' });
    expect(f.sent.map((m) => [m.to.email, m.subject])).toEqual([
      [contact(a), 'Welcome'],
      [contact(b), 'Welcome'],
      [contact(a), 'A later'],
    ]);
  });

  it('keeps the checks of every email in a branch: suppression after a wait, unsubscribe header, flow tags', async () => {
    const f = fakes();
    const flow = abFlow({
      holdoutPercent: 0,
      steps: [
        split(
          [{ type: 'wait', id: 'a-wait', seconds: 600 }, emailStep('a-mail', { subject: 'A' })],
          [{ type: 'wait', id: 'b-wait', seconds: 600 }, emailStep('b-mail', { subject: 'B' })],
        ),
      ],
    });
    f.flows.set('fl_ab', flow);
    const triggers = [0, 1, 2, 3, 4, 5].map((i) =>
      triggerOf('order_paid', { contact: { email: contact(i) }, subject: { type: 'order', id: `s-${i}` } }),
    );
    for (const t of triggers) await handleTrigger(f.deps, t);
    f.suppressed.add(contact(0));
    f.clock.now += 600_000;
    for (const t of triggers) {
      const run = f.runs.get(runIdOf(STORE, 'fl_ab', t.id));
      await advanceRun(f.deps, STORE, run?.id ?? '', { resumeStepId: run?.waitingOn ?? '' });
    }
    const first = f.runs.get(runIdOf(STORE, 'fl_ab', triggers[0]?.id ?? ''));
    expect(first?.events.at(-1)).toMatchObject({ type: 'exited', reason: 'suppressed' });
    expect(f.sent.map((m) => m.to.email)).toEqual([1, 2, 3, 4, 5].map(contact));
    for (const m of f.sent) {
      expect(m.headers['List-Unsubscribe']).toMatch(/^<https:\/\/send\.example\/unsubscribe\//);
      expect(m.tags).toMatchObject({ 'storeflow-flow': 'fl_ab', 'storeflow-kind': 'flow' });
    }
  });

  it("finds a step inside a branch, with nothing after the branch's last step", () => {
    const flow = abFlow();
    expect(locateStep(flow.steps, 'mail-a')).toMatchObject({ step: { id: 'mail-a' } });
    expect(locateStep(flow.steps, 'mail-a')?.following).toBeUndefined();
    expect(locateStep(flow.steps, 'gone')).toBeUndefined();
  });
});

describe('definitions with a split', () => {
  const email = (subject: string) => ({ type: 'email', from: { email: 'shop@acme.example' }, subject, text: 'Hi' });
  const definition = (steps: unknown[], extra: Record<string, unknown> = {}) => ({
    name: 'AB',
    trigger: 'order_paid',
    steps,
    ...extra,
  });
  const splitOf = (branches: unknown[]) => ({ type: 'split', id: 'ab', branches });
  const refusal = (body: unknown) => {
    try {
      parseFlowDefinition(body);
    } catch (error) {
      return (error as Error).message;
    }
    return 'accepted';
  };

  it('accepts a split and a holdout, and names branch steps after their branch', () => {
    const { definition: parsed } = parseFlowDefinition(
      definition(
        [
          email('first'),
          splitOf([
            { id: 'a', percent: 60, steps: [email('A')] },
            { id: 'b', percent: 40, steps: [{ type: 'wait', seconds: 60 }, email('B')] },
          ]),
        ],
        { holdoutPercent: 10 },
      ),
    );
    expect(parsed.holdoutPercent).toBe(10);
    const s = parsed.steps[1] as SplitStep;
    expect(s.branches.map((b) => b.steps.map((x) => x.id))).toEqual([['a-1'], ['b-1', 'b-2']]);
  });

  it.each([
    [
      'percents that do not add up to 100',
      definition([
        splitOf([
          { id: 'a', percent: 50, steps: [email('A')] },
          { id: 'b', percent: 40, steps: [email('B')] },
        ]),
      ]),
      'steps[0].branches must add up to 100 percent',
    ],
    [
      'one branch',
      definition([splitOf([{ id: 'a', percent: 50, steps: [email('A')] }])]),
      'steps[0].branches must have at least 2 branches',
    ],
    [
      'a split before other steps',
      definition([
        splitOf([
          { id: 'a', percent: 50, steps: [email('A')] },
          { id: 'b', percent: 50, steps: [email('B')] },
        ]),
        email('after'),
      ]),
      'steps[0] is a split and must be the last step',
    ],
    [
      'a split in a branch',
      definition([
        splitOf([
          { id: 'a', percent: 50, steps: [splitOf([])] },
          { id: 'b', percent: 50, steps: [email('B')] },
        ]),
      ]),
      'steps[0].branches[0].steps[0].type must be one of: wait, email, exit_if (a split cannot hold another split)',
    ],
    [
      'a branch named holdout',
      definition([
        splitOf([
          { id: 'holdout', percent: 50, steps: [email('A')] },
          { id: 'b', percent: 50, steps: [email('B')] },
        ]),
      ]),
      'steps[0].branches[0].id "holdout" is the holdout group\'s name',
    ],
    [
      'a step id used twice across branches',
      definition([
        splitOf([
          { id: 'a', percent: 50, steps: [{ ...email('A'), id: 'same' }] },
          { id: 'b', percent: 50, steps: [{ ...email('B'), id: 'same' }] },
        ]),
      ]),
      'steps[0].branches[1].steps[0].id "same" is used by an earlier step',
    ],
    ['a holdout over 50', definition([email('A')], { holdoutPercent: 60 }), 'holdoutPercent must be at most 50'],
    [
      'more than 20 steps counting branches',
      definition([
        splitOf([
          { id: 'a', percent: 50, steps: Array.from({ length: 10 }, () => email('A')) },
          { id: 'b', percent: 50, steps: Array.from({ length: 10 }, () => email('B')) },
        ]),
      ]),
      'steps has 21 steps counting those in branches; at most 20 are allowed',
    ],
  ])('refuses %s', (_name, body, message) => {
    expect(refusal(body)).toContain(message);
  });
});
