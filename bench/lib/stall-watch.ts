/**
 * Where a latency outlier comes from: the event loop of this thread blocked (long synchronous work, a long GC pause)
 * or work that waited without blocking (a queue, a retry, a timer). `watchStalls` samples the loop's lag every 20 ms
 * and records each lag over `thresholdMs` and each GC pause over it, with its time, until `stop()`. With a `probe` (say
 * one DynamoDB read), it also runs the probe back to back and records each call slower than the threshold: a stall of
 * another thread (the local DynamoDB runs on its own) shows there and not in this loop's lag.
 */
import { PerformanceObserver } from 'node:perf_hooks';

export interface Stall {
  /** When it began, in epoch ms. */
  readonly at: number;
  readonly ms: number;
  readonly kind: 'loop' | 'gc' | 'probe';
}

const TICK_MS = 20;
/** Between probes: often enough to see a stall of a few hundred ms, rarely enough to add no load of note. */
const PROBE_EVERY_MS = 200;

export const watchStalls = (thresholdMs = 100, probe?: () => Promise<unknown>) => {
  const stalls: Stall[] = [];
  let probing = true;
  const probeLoop = async () => {
    while (probing && probe) {
      const began = Date.now();
      await probe().catch(() => undefined);
      const ms = Date.now() - began;
      if (ms > thresholdMs) stalls.push({ at: began, ms, kind: 'probe' });
      await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
    }
  };
  const probed = probeLoop();
  let expected = performance.now() + TICK_MS;
  const timer = setInterval(() => {
    const now = performance.now();
    const lag = now - expected;
    if (lag > thresholdMs) stalls.push({ at: Date.now() - lag, ms: Math.round(lag), kind: 'loop' });
    expected = now + TICK_MS;
  }, TICK_MS);
  timer.unref();
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.duration > thresholdMs / 2) {
        stalls.push({ at: performance.timeOrigin + entry.startTime, ms: Math.round(entry.duration), kind: 'gc' });
      }
    }
  });
  gc.observe({ entryTypes: ['gc'] });
  return {
    async stop(): Promise<Stall[]> {
      probing = false;
      await probed;
      clearInterval(timer);
      gc.disconnect();
      return stalls.sort((x, y) => x.at - y.at);
    },
  };
};
