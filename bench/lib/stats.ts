/** Latency statistics and number formatting for the reports. */
import { cpus } from 'node:os';

export interface LatencySummary {
  readonly count: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

/** Nearest-rank percentiles over latencies in milliseconds. */
export const summarize = (samples: ArrayLike<number>): LatencySummary => {
  const sorted = Float64Array.from(samples).sort();
  const count = sorted.length;
  if (count === 0) return { count, p50: 0, p90: 0, p99: 0, max: 0, mean: 0 };
  const rank = (p: number) => sorted[Math.min(count - 1, Math.max(0, Math.ceil((p / 100) * count) - 1))] ?? 0;
  let sum = 0;
  for (const value of sorted) sum += value;
  return { count, p50: rank(50), p90: rank(90), p99: rank(99), max: sorted[count - 1] ?? 0, mean: sum / count };
};

/** A growable list of samples without boxing every number. */
export class Samples {
  #data = new Float64Array(1024);
  #length = 0;

  push(value: number): void {
    if (this.#length === this.#data.length) {
      const next = new Float64Array(this.#data.length * 2);
      next.set(this.#data);
      this.#data = next;
    }
    this.#data[this.#length++] = value;
  }

  get length(): number {
    return this.#length;
  }

  toArray(): Float64Array {
    return this.#data.slice(0, this.#length);
  }
}

export const round = (value: number, digits = 2): number => {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
};

/** 1234.5 → "1,234.5"; small values keep a few significant digits. */
export const formatNumber = (value: number): string => {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  return value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
};

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface CpuShare {
  /** CPU time this process used (all its threads), in ms. */
  readonly processMs: number;
  /** CPU time of the measuring thread alone (the runtime's event loop), in ms. */
  readonly threadMs: number;
  /** The measuring thread's CPU time over wall time: near 1, its event loop is the bottleneck. */
  readonly threadCores: number;
  /** This process's CPU time over wall time, in cores (1 = one core busy all along). */
  readonly processCores: number;
  /** The whole machine's busy time over wall time, in cores (includes this process). */
  readonly machineCores: number;
  /** What other processes took, in cores: non-zero means the measurement shared the CPU. */
  readonly otherCores: number;
}

const machineBusyMs = () => {
  let busy = 0;
  for (const { times } of cpus()) busy += times.user + times.nice + times.sys + times.irq;
  return busy;
};

/** Starts measuring CPU use; the returned function reports it since the start. */
export const cpuMeter = (): (() => CpuShare) => {
  const wall = performance.now();
  const own = process.cpuUsage();
  const thread = process.threadCpuUsage();
  const machine = machineBusyMs();
  return () => {
    const elapsedMs = performance.now() - wall;
    const { user, system } = process.cpuUsage(own);
    const processMs = (user + system) / 1000;
    const threadNow = process.threadCpuUsage(thread);
    const threadMs = (threadNow.user + threadNow.system) / 1000;
    const processCores = processMs / elapsedMs;
    const machineCores = (machineBusyMs() - machine) / elapsedMs;
    return {
      processMs: round(processMs),
      threadMs: round(threadMs),
      threadCores: round(threadMs / elapsedMs),
      processCores: round(processCores),
      machineCores: round(machineCores),
      otherCores: round(Math.max(0, machineCores - processCores)),
    };
  };
};

/** A CPU share as the reports word it, in cores. */
export const cpuText = (cpu: CpuShare) =>
  `this process ${cpu.processCores} (its main thread ${cpu.threadCores}), other processes ${cpu.otherCores}`;

/** A latency summary rounded for a result's details. */
export const roundedLatency = (s: LatencySummary) => ({
  count: s.count,
  p50: round(s.p50),
  p90: round(s.p90),
  p99: round(s.p99),
  max: round(s.max),
  mean: round(s.mean),
});

/** `name count, name count…` (`none` when empty), each count through `format`. */
export const listText = (counts: Record<string, number>, format: (n: number) => string = String) =>
  Object.entries(counts)
    .map(([name, n]) => `${name} ${format(n)}`)
    .join(', ') || 'none';

/** mulberry32: a small seeded PRNG (uniform in [0, 1)), so a run can send the same plan or mix every time. */
export const seeded = (seed: number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
};
