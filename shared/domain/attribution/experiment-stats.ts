/**
 * The A/B section of a flow's stats (docs/attribution.md "A/B groups"): each group's funnel and measured revenue, and
 * each group's difference in revenue per recipient against the holdout (or, without one, against the split's first
 * branch) with a 95 % confidence interval.
 *
 * Method: a group's runs are its recipients; a run's outcome is the revenue its contact paid within the window after
 * entry (0 for most). Per group we keep n (runs entered), Σx and Σx², so the mean is Σx/n and the sample variance
 * (Σx² − (Σx)²/n)/(n − 1). The difference of means gets Welch's standard error √(s₁²/n₁ + s₂²/n₂) and the normal
 * interval ± 1.96 SE: revenue per recipient is far from normal (mostly zeros, a few orders), but its mean is close to
 * normal once each group has a few hundred runs with a handful of orders (central limit theorem); with fewer the
 * interval is too narrow, so it is only given from 2 runs per group and should be read with its counts.
 */
import type { Flow, FlowStep } from '#shared/domain/flows/flow.ts';
import { flatSteps, HOLDOUT, splitOf, TREATED } from '#shared/domain/flows/split.ts';
import { groupCounts } from './experiment.ts';
import { stepCounts } from './model.ts';

/** The sums kept for one group in one currency. */
export interface Sample {
  readonly n: number;
  readonly sum: number;
  readonly sumSq: number;
}

export interface Difference {
  /** Mean of the first minus mean of the second. */
  readonly difference: number;
  readonly standardError: number;
  readonly low: number;
  readonly high: number;
}

/** The standard normal's 97.5th percentile: a two-sided 95 % interval. */
export const Z95 = 1.959963984540054;

const variance = (s: Sample) => Math.max(0, (s.sumSq - (s.sum * s.sum) / s.n) / (s.n - 1));

/** Welch's difference of two means with its normal-approximation 95 % interval; undefined below 2 runs in a group. */
export const welch = (a: Sample, b: Sample): Difference | undefined => {
  if (a.n < 2 || b.n < 2) return undefined;
  const difference = a.sum / a.n - b.sum / b.n;
  const standardError = Math.sqrt(variance(a) / a.n + variance(b) / b.n);
  return { difference, standardError, low: difference - Z95 * standardError, high: difference + Z95 * standardError };
};

const money = (n: number) => (Math.round(n * 100) / 100).toFixed(2);
/** Per-recipient figures are small: four decimals. */
const fine = (n: number) => (Math.round(n * 10_000) / 10_000).toFixed(4);

const FUNNEL = ['emailed', 'delivered', 'opened', 'clicked'] as const;

interface GroupPlan {
  readonly group: string;
  readonly kind: 'holdout' | 'branch' | 'treated';
  /** Share of the flow's entering runs, in percent. */
  readonly percent: number;
  /** The email steps whose counters are the group's funnel. */
  readonly steps: readonly FlowStep[];
}

/** The groups of a flow as defined now: the holdout, then the split's branches (or the rest of the runs). */
const plan = (flow: Pick<Flow, 'steps' | 'holdoutPercent'>): GroupPlan[] => {
  const holdout = flow.holdoutPercent ?? 0;
  const split = splitOf(flow);
  const rest = 100 - holdout;
  const groups: GroupPlan[] = holdout > 0 ? [{ group: HOLDOUT, kind: 'holdout', percent: holdout, steps: [] }] : [];
  if (split) {
    for (const branch of split.branches) {
      groups.push({ group: branch.id, kind: 'branch', percent: (rest * branch.percent) / 100, steps: branch.steps });
    }
  } else if (holdout > 0) {
    groups.push({ group: TREATED, kind: 'treated', percent: rest, steps: flatSteps(flow.steps) });
  }
  return groups;
};

const CURRENCY = /^revenue_([A-Z]{3})$/;

/** The A/B section of `flow`'s stats from its counters over a range; undefined for a flow without groups. */
export const experimentStats = (
  flow: Pick<Flow, 'steps' | 'holdoutPercent'>,
  flowTotals: ReadonlyMap<string, number>,
) => {
  const groups = plan(flow);
  if (groups.length === 0) return undefined;
  const measured = groups.map((g) => {
    const counts = groupCounts(flowTotals, g.group);
    const n = counts.get('entered') ?? 0;
    const currencies = [...counts.keys()].flatMap((name) => CURRENCY.exec(name)?.[1] ?? []).sort();
    const samples = new Map(
      currencies.map((c) => [c, { n, sum: counts.get(`revenue_${c}`) ?? 0, sumSq: counts.get(`revenueSq_${c}`) ?? 0 }]),
    );
    const funnel = Object.fromEntries(
      FUNNEL.map((name) => [
        name,
        g.steps
          .filter((step) => step.type === 'email')
          .reduce((sum, step) => sum + (stepCounts(flowTotals, step.id).get(name) ?? 0), 0),
      ]),
    ) as Record<(typeof FUNNEL)[number], number>;
    return { plan: g, n, samples, funnel, orders: counts.get('orders') ?? 0 };
  });
  const baseline = measured[0];
  const comparisons =
    baseline === undefined
      ? []
      : measured.slice(1).flatMap((m) =>
          [...new Set([...m.samples.keys(), ...baseline.samples.keys()])].sort().map((currency) => {
            const empty = (n: number): Sample => ({ n, sum: 0, sumSq: 0 });
            const d = welch(m.samples.get(currency) ?? empty(m.n), baseline.samples.get(currency) ?? empty(baseline.n));
            return {
              group: m.plan.group,
              against: baseline.plan.group,
              currency,
              difference: d ? fine(d.difference) : null,
              ci95: d ? { low: fine(d.low), high: fine(d.high) } : null,
              significant: d ? d.low > 0 || d.high < 0 : null,
            };
          }),
        );
  return {
    holdoutPercent: flow.holdoutPercent ?? 0,
    groups: measured.map((m) => ({
      group: m.plan.group,
      kind: m.plan.kind,
      percent: m.plan.percent,
      entered: m.n,
      ...m.funnel,
      orders: m.orders,
      revenue: Object.fromEntries([...m.samples].map(([c, s]) => [c, money(s.sum)])),
      revenuePerRecipient: Object.fromEntries([...m.samples].map(([c, s]) => [c, m.n > 0 ? fine(s.sum / m.n) : null])),
    })),
    comparisons,
  };
};
