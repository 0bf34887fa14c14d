import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The load, kill-restart and fault suites take minutes: `npm run test:stress` (vitest.stress.config.ts) runs them.
    exclude: [...configDefaults.exclude, 'test/stress/**'],
    // Each file gets its own process: a file that starts the local runtime owns its process.env and ports.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
