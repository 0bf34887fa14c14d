import { defineConfig } from 'vitest/config';

/**
 * `npm run test:stress`: the load, kill-restart and fault-injection suites (test/stress/). Each takes the machine's
 * CPU for a minute or more, so the files run one after another, never beside each other.
 */
export default defineConfig({
  test: {
    include: ['test/stress/**/*.test.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 120_000,
  },
});
