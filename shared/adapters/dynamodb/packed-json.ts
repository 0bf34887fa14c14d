/**
 * A JSON value stored as one compressed binary attribute (Brotli, quality 5, text mode, sized for its input): for
 * items whose every write is paid per started kilobyte and whose readers never filter on the packed part (a flow
 * run's trigger, `flow-runs.repositories.ts`). Small values only: both ways run on the calling thread.
 */
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';

export const packJson = (value: unknown): Uint8Array => {
  const json = Buffer.from(JSON.stringify(value));
  return new Uint8Array(
    brotliCompressSync(json, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 5,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: json.length,
      },
    }),
  );
};

export const unpackJson = <T>(bytes: Uint8Array): T => JSON.parse(brotliDecompressSync(bytes).toString('utf8')) as T;
