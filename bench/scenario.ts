/**
 * What a benchmark scenario is and what it reports. `bench/run.ts` runs the selected scenarios and renders their
 * results (stdout table, `bench/results/latest.md`, `bench/results/latest.json`); a scenario only measures.
 */

/** Options shared by every scenario (from the command line). */
export interface ScenarioOptions {
  /** Length of each measured phase, in seconds. */
  readonly seconds: number;
  /** Requests per measured phase instead of a duration (when set). */
  readonly count: number | undefined;
  /** Concurrent clients / loops. */
  readonly concurrency: number;
  /** Stores to spread the load over. */
  readonly stores: number;
  /** HTTP client of the load generator. */
  readonly client: 'http' | 'fetch';
  /** Run the HTTP load generator in a worker thread instead of the runtime's thread. */
  readonly clientThread: boolean;
  /** Also measure how fast the worker drains what was queued. */
  readonly drain: boolean;
  /** Also measure each downstream call of the path alone (what an event's CPU time is made of). */
  readonly breakdown: boolean;
  /** Write a CPU profile of each measured phase to `bench/results/<scenario>-<phase>.cpuprofile`. */
  readonly profile: boolean;
  /** Progress lines go here (stderr), so stdout stays the summary. */
  readonly log: (line: string) => void;
  /** The options given on the command line (the others hold their defaults), e.g. `given.has('stores')`. */
  readonly given: ReadonlySet<string>;
  /** Results of the scenarios that already ran in this invocation, for figures relative to theirs. */
  readonly earlier?: readonly Result[];
}

export interface Target {
  readonly op: '>=' | '<=';
  readonly value: number;
}

export interface Metric {
  /** Stable identifier (JSON key). */
  readonly key: string;
  readonly label: string;
  readonly value: number;
  readonly unit: string;
  readonly target?: Target;
}

export interface Result {
  readonly scenario: string;
  readonly title: string;
  readonly metrics: readonly Metric[];
  /** Conditions of the measurement worth stating next to the figures. */
  readonly notes: readonly string[];
  /** Everything else measured (counts by status, per-operation call counts, …), kept in the JSON report. */
  readonly details: Record<string, unknown>;
}

export interface Scenario {
  readonly name: string;
  readonly description: string;
  run(options: ScenarioOptions): Promise<Result>;
}

export const passes = (metric: Metric): boolean | undefined => {
  const { target } = metric;
  if (!target) return undefined;
  return target.op === '>=' ? metric.value >= target.value : metric.value <= target.value;
};
