import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Each file gets its own process: a file that starts the local runtime owns its process.env and ports.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
