/**
 * CPU profiling of one phase of a scenario (`--profile`): the V8 profiler of this thread, started and stopped around
 * the phase, so the profile holds only the measured work (not start-up or other phases). Writes
 * `bench/results/<name>.cpuprofile` (open it in Chrome DevTools, or summarise it with `bench/profile-summary.ts`).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

export const RESULTS_DIR = join(import.meta.dirname, '..', 'results');

export const profiled = async <T>(enabled: boolean, name: string, phase: () => Promise<T>): Promise<T> => {
  if (!enabled) return phase();
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    // 200 µs: finer than the default 1 ms, still cheap enough not to distort the figures much.
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
    const result = await phase();
    const { profile } = await session.post('Profiler.stop');
    const file = join(RESULTS_DIR, `${name}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    process.stderr.write(`profile: ${file}\n`);
    return result;
  } finally {
    session.disconnect();
  }
};
