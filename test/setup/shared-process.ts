/**
 * Setup of every file of the lanes that share a worker process between files (`isolate: false` in vitest.config.ts):
 * what one file changed in the process is undone before the next file runs in it, so each file starts as if alone.
 * - the environment: a file may set variables (the local runtime sets its endpoints, a test its settings);
 * - values built from it: the SDK clients, the parsed configuration, the wiring (`resetProcessState`, shared/lazy.ts);
 * - spies and stubs left in place.
 */
import { afterAll, vi } from 'vitest';
import { resetProcessState } from '#shared/lazy.ts';

const environment = { ...process.env };

afterAll(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  vi.useRealTimers();
  for (const name of Object.keys(process.env)) if (!(name in environment)) delete process.env[name];
  Object.assign(process.env, environment);
  resetProcessState();
});
