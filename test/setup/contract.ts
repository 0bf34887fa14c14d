/**
 * vitest global setup of `npm test`: starts each run's contract recording afresh (local/contract-recorder.ts writes
 * into `STOREFLOW_CONTRACT_DIR`, which vitest.config.ts sets), so test/contract/ compares this run's facts only.
 */
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';

export default function setup(): void {
  rmSync(resolve(process.env.STOREFLOW_CONTRACT_DIR ?? '.local/contract'), { recursive: true, force: true });
}
