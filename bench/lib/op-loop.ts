/**
 * Closed-loop driver for one async operation (a DynamoDB put, an SQS send…): `concurrency` loops, each issuing the
 * next call when its previous one answered, for a duration or a count, after a short warm-up (connections, the SDK's
 * lazily built middleware). Reports rate, latency and the CPU it cost.
 */
import { profiled } from './profile.ts';
import { type CpuShare, cpuMeter, type LatencySummary, Samples, summarize } from './stats.ts';

export interface LoopOptions {
  readonly concurrency: number;
  readonly durationMs?: number;
  readonly count?: number;
  /** Profile the measured part under this name (see `profile.ts`). */
  readonly profileAs?: string;
}

export interface LoopResult {
  readonly elapsedMs: number;
  readonly ok: number;
  readonly failures: number;
  readonly perSecond: number;
  readonly latency: LatencySummary;
  readonly cpu: CpuShare;
  /** CPU time of the whole process per successful call (ms). */
  readonly cpuMsPerOp: number;
  readonly firstError?: string;
}

export const runLoops = async (op: (n: number) => Promise<unknown>, options: LoopOptions): Promise<LoopResult> => {
  for (let i = 0; i < options.concurrency * 4; i++) await op(-1 - i);
  const latencies = new Samples();
  let failures = 0;
  let firstError: string | undefined;
  let issued = 0;
  const limit = options.count ?? Number.POSITIVE_INFINITY;
  const cpu = cpuMeter();
  const start = performance.now();
  const deadline = options.durationMs === undefined ? Number.POSITIVE_INFINITY : start + options.durationMs;
  const loop = async () => {
    while (issued < limit && performance.now() < deadline) {
      const n = issued++;
      const sent = performance.now();
      try {
        await op(n);
      } catch (error) {
        failures++;
        firstError ??= String(error);
      }
      latencies.push(performance.now() - sent);
    }
  };
  await profiled(options.profileAs !== undefined, options.profileAs ?? '', () =>
    Promise.all(Array.from({ length: options.concurrency }, loop)),
  );
  const elapsedMs = performance.now() - start;
  const used = cpu();
  const ok = latencies.length - failures;
  return {
    elapsedMs,
    ok,
    failures,
    perSecond: ok / (elapsedMs / 1000),
    latency: summarize(latencies.toArray()),
    cpu: used,
    cpuMsPerOp: ok > 0 ? used.processMs / ok : Number.NaN,
    ...(firstError === undefined ? {} : { firstError }),
  };
};
