import { defineConfig } from 'vitest/config';

/**
 * The contract between the code and its stacks (test/contract/), run by `npm test` after the suite: it reads what the
 * suite recorded (local/contract-recorder.ts, `.local/contract/`).
 */
export default defineConfig({
  test: {
    include: ['test/contract/**/*.test.ts'],
    testTimeout: 60_000,
  },
});
