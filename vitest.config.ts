import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The suite in lanes (vitest projects), each run the way its tests allow:
 * - `unit`: domain rules, parsers, renderers, wrappers with in-memory doubles; threads sharing their modules between
 *   files (no isolation), so the lane takes seconds (`npm run test:unit`);
 * - `infra`: assertions on the synthesized CDK templates;
 * - `runtime`: integration, end-to-end and fuzz tests, each file on a local runtime of its own; the worker processes
 *   keep their modules loaded from one file to the next (a runtime's second start in a process takes a fraction of the
 *   first), and `test/setup/shared-process.ts` undoes what a file changed in the process.
 * `npm test` runs all three; the load, kill-restart and fault suites take minutes (`npm run test:stress`,
 * vitest.stress.config.ts), and test/contract/ runs after the suite, on what it recorded (vitest.contract.config.ts).
 */
export default defineConfig({
  test: {
    // Every function's AWS calls and settings, recorded for test/contract/ (local/contract-recorder.ts).
    env: { STOREFLOW_CONTRACT_DIR: '.local/contract' },
    globalSetup: ['test/setup/contract.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Three workers on two cores: a runtime file spends much of its time waiting on its queues and timers, so a third
    // worker keeps both cores busy (the figures are in docs/decisions.md, "The suite in lanes").
    maxWorkers: 3,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          pool: 'threads',
          isolate: false,
          setupFiles: ['test/setup/shared-process.ts'],
        },
      },
      {
        extends: true,
        test: { name: 'infra', include: ['test/infra/**/*.test.ts'], pool: 'forks' },
      },
      {
        extends: true,
        test: {
          name: 'runtime',
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts', 'test/fuzz/**/*.test.ts'],
          exclude: [...configDefaults.exclude],
          pool: 'forks',
          isolate: false,
          setupFiles: ['test/setup/shared-process.ts'],
        },
      },
    ],
  },
});
