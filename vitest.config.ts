import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The load, kill-restart and fault suites take minutes: `npm run test:stress` (vitest.stress.config.ts) runs them.
    // test/contract/ runs after the suite, on what it recorded (vitest.contract.config.ts).
    exclude: [...configDefaults.exclude, 'test/stress/**', 'test/contract/**'],
    // Every function's AWS calls and settings, recorded for test/contract/ (local/contract-recorder.ts).
    env: { STOREFLOW_CONTRACT_DIR: '.local/contract' },
    globalSetup: ['test/contract-setup.ts'],
    // Each file gets its own process: a file that starts the local runtime owns its process.env and ports.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
