/**
 * A JSON value stored as one compressed binary attribute (Brotli, `brotli.ts`'s settings for JSON): for
 * items whose every write is paid per started kilobyte and whose readers never filter on the packed part (a flow
 * run's trigger, `flow-runs.repositories.ts`). Small values only: both ways run on the calling thread.
 */
import { brotliCompressSync, brotliDecompressSync } from 'node:zlib';
import { brotliJsonOptions } from '#shared/domain/brotli.ts';

export const packJson = (value: unknown): Uint8Array => {
  const json = Buffer.from(JSON.stringify(value));
  return new Uint8Array(brotliCompressSync(json, brotliJsonOptions(json.length)));
};

export const unpackJson = <T>(bytes: Uint8Array): T => JSON.parse(brotliDecompressSync(bytes).toString('utf8')) as T;
