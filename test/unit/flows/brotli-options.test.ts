/**
 * The Brotli settings for small stored JSON (shared/domain/brotli.ts, a run's trigger): a window fitted to the input, no
 * worse a result; and the stored stream of the event history's small packs, read back by any Brotli decoder.
 */
import { randomBytes } from 'node:crypto';
import { brotliCompressSync, brotliDecompress, brotliDecompressSync, constants } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { brotliJsonOptions, brotliStored, STORED_MAX_BYTES, windowBitsFor } from '#shared/domain/brotli.ts';

describe('brotliJsonOptions', () => {
  it('fits the window to the input, between Brotli’s smallest and its default', () => {
    expect(windowBitsFor(0)).toBe(10);
    expect(windowBitsFor(400)).toBe(10);
    // A window of 2^10 − 16 bytes holds 1,008 bytes; one more needs 11 bits.
    expect(windowBitsFor(1_008)).toBe(10);
    expect(windowBitsFor(1_009)).toBe(11);
    expect(windowBitsFor(1_048_576)).toBe(21);
    expect(windowBitsFor(100_000_000)).toBe(constants.BROTLI_DEFAULT_WINDOW);
  });

  it('round-trips, and compresses no larger than with the default window', () => {
    const samples = [
      { type: 'event', at: 1_764_000_000_000, sourceId: 'nz-1', data: { id: 'o-1', total_price: '19.90' } },
      Array.from({ length: 2_000 }, (_, i) => [
        1_764_000_000_000 + i,
        `src-${i}`,
        'orders/paid',
        { id: `o-${i % 97}` },
      ]),
    ];
    for (const sample of samples) {
      const json = Buffer.from(JSON.stringify(sample));
      const fitted = brotliCompressSync(json, brotliJsonOptions(json.length));
      const wide = brotliCompressSync(json, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 5,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: json.length,
        },
      });
      expect(JSON.parse(brotliDecompressSync(fitted).toString('utf8'))).toEqual(sample);
      expect(fitted.length).toBeLessThanOrEqual(wide.length + 2);
    }
  });
});

describe('brotliStored', () => {
  it('is a Brotli stream of the bytes as they are, four bytes longer, that node:zlib decodes (in place and in the pool)', async () => {
    // Every length where the four-nibble length field changes digits, and both ends.
    for (const length of [1, 2, 15, 16, 17, 255, 256, 257, 640, 4_096, 65_535, STORED_MAX_BYTES]) {
      const bytes = randomBytes(length);
      const stored = brotliStored(bytes);
      expect(stored.length).toBe(length + 4);
      expect(Buffer.from(stored.subarray(3, 3 + length)).equals(bytes)).toBe(true);
      expect(brotliDecompressSync(stored).equals(bytes), `${length} bytes`).toBe(true);
      const pooled = await new Promise<Buffer>((resolve, reject) =>
        brotliDecompress(stored, (error, out) => (error ? reject(error) : resolve(out))),
      );
      expect(pooled.equals(bytes)).toBe(true);
    }
  });

  it('refuses what four nibbles cannot hold, and nothing', () => {
    expect(() => brotliStored(new Uint8Array(0))).toThrow(RangeError);
    expect(() => brotliStored(new Uint8Array(STORED_MAX_BYTES + 1))).toThrow(RangeError);
  });
});
