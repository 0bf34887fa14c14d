/**
 * A/B splits and the holdout group (docs/flows.md "A/B splits and holdout"): which group a run belongs to, and where a
 * step sits in a flow whose last step may be a split. Pure functions: the engine and the stats read them.
 *
 * Assignment is a hash, not a random draw, so it needs no stored state and one contact always lands in the same group
 * of a flow (a second cart, a retried trigger, another worker): bucket = first 32 bits of SHA-256(flow, salt, address)
 * modulo 10,000, where the salt is `holdout` for the holdout and `split#<step id>` for a split. The two salts make the
 * two draws independent, so the branches share the runs that are not held out in their own percents.
 */
import { createHash } from 'node:crypto';
import type { BranchStep, Flow, FlowStep, SplitBranch, SplitStep } from './flow.ts';

/** Buckets per draw: percents are whole, so 100 buckets per point. */
export const BUCKETS = 10_000;
/** The group of runs held out (entered, measured, never mailed). */
export const HOLDOUT = 'holdout';
/** The group of a flow with a holdout and no split: every run not held out. */
export const TREATED = 'treated';

/** The contact's bucket (0–9,999) for one draw of one flow. */
export const bucketOf = (flowId: string, salt: string, email: string): number =>
  createHash('sha256').update(`${flowId}\n${salt}\n${email.toLowerCase()}`).digest().readUInt32BE(0) % BUCKETS;

/** The flow's split, if it has one (always its last step). */
export const splitOf = (flow: Pick<Flow, 'steps'>): SplitStep | undefined =>
  flow.steps.find((step): step is SplitStep => step.type === 'split');

/** The branch of `split` that `email` takes in flow `flowId`: the branch whose share of buckets holds its bucket. */
export const branchOf = (flowId: string, split: SplitStep, email: string): SplitBranch => {
  const bucket = bucketOf(flowId, `split#${split.id}`, email);
  let edge = 0;
  for (const branch of split.branches) {
    edge += branch.percent * (BUCKETS / 100);
    if (bucket < edge) return branch;
  }
  // Percents add up to 100 (validated), so the loop returns; the last branch stands in for rounding's sake.
  return split.branches[split.branches.length - 1] as SplitBranch;
};

/** Whether `email`'s runs of the flow are held out. */
export const heldOut = (flow: Pick<Flow, 'id' | 'holdoutPercent'>, email: string): boolean =>
  (flow.holdoutPercent ?? 0) > 0 && bucketOf(flow.id, HOLDOUT, email) < (flow.holdoutPercent ?? 0) * (BUCKETS / 100);

/**
 * The group a run of `flow` for `email` is measured in, decided at entry: `holdout`, its split's branch id, `treated`
 * (a holdout without a split), or undefined for a flow with neither (nothing is measured per group).
 */
export const groupOf = (flow: Pick<Flow, 'id' | 'holdoutPercent' | 'steps'>, email: string): string | undefined => {
  if (heldOut(flow, email)) return HOLDOUT;
  const split = splitOf(flow);
  if (split) return branchOf(flow.id, split, email).id;
  return (flow.holdoutPercent ?? 0) > 0 ? TREATED : undefined;
};

/** Every step of the flow, those in branches included, in order. */
export const flatSteps = (steps: readonly FlowStep[]): (FlowStep | BranchStep)[] =>
  steps.flatMap((step) => (step.type === 'split' ? [step, ...step.branches.flatMap((b) => b.steps)] : [step]));

/** A step found by id, with the id of the step that follows it in its own list (its branch, or the flow). */
export interface LocatedStep {
  readonly step: FlowStep;
  readonly following?: string;
}

/** Where step `id` is: at the top or in a branch. A branch's last step has nothing after it (the run completes). */
export const locateStep = (steps: readonly FlowStep[], id: string): LocatedStep | undefined => {
  const within = (list: readonly FlowStep[]): LocatedStep | undefined => {
    const index = list.findIndex((step) => step.id === id);
    if (index < 0) return undefined;
    const following = list[index + 1]?.id;
    return following !== undefined ? { step: list[index] as FlowStep, following } : { step: list[index] as FlowStep };
  };
  const top = within(steps);
  if (top) return top;
  for (const step of steps) {
    if (step.type !== 'split') continue;
    for (const branch of step.branches) {
      const found = within(branch.steps);
      if (found) return found;
    }
  }
  return undefined;
};

/** The steps with step `id` (at the top or in a branch) replaced by `replacement`. */
export const replaceStep = (steps: readonly FlowStep[], id: string, replacement: BranchStep): FlowStep[] =>
  steps.map((step) => {
    if (step.id === id) return replacement;
    if (step.type !== 'split') return step;
    return {
      ...step,
      branches: step.branches.map((b) => ({ ...b, steps: b.steps.map((s) => (s.id === id ? replacement : s)) })),
    };
  });
