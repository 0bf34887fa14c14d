/**
 * CPU profiling of one phase of a scenario (`--profile`): the V8 profiler of this thread, started and stopped around
 * the phase, so the profile holds only the measured work (not start-up or other phases). Writes
 * `bench/results/<name>.cpuprofile` (open it in Chrome DevTools, or summarise it with `bench/profile-summary.ts`).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import type { Profile } from './profile-analysis.ts';

export const RESULTS_DIR = join(import.meta.dirname, '..', 'results');

/** Runs `phase` under the V8 profiler of this thread (sampling every `intervalUs`) and writes the profile. */
export const captureProfile = async <T>(
  name: string,
  phase: () => Promise<T>,
  intervalUs = 200,
): Promise<{ result: T; profile: Profile; file: string }> => {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: intervalUs });
    await session.post('Profiler.start');
    const result = await phase();
    const { profile } = await session.post('Profiler.stop');
    const file = join(RESULTS_DIR, `${name}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    process.stderr.write(`profile: ${file}\n`);
    return { result, profile: profile as Profile, file };
  } finally {
    session.disconnect();
  }
};

/** The phase profiled when `enabled` (`--profile`); 200 µs: finer than the default 1 ms, still cheap enough not to distort the figures much. */
export const profiled = async <T>(enabled: boolean, name: string, phase: () => Promise<T>): Promise<T> =>
  enabled ? (await captureProfile(name, phase)).result : phase();
