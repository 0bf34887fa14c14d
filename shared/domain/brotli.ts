/**
 * Brotli settings for small JSON the service stores compressed (a flow run's trigger, `packed-json.ts`): quality 5
 * (most of Brotli's ratio on JSON for a fraction of the default's time), text mode, and a window fitted to the input.
 * The encoder's default window is 4 MB and its tables are sized for it whatever the input: on a run's ~400-byte
 * trigger, compressing with the fitted window took 36–39 µs of CPU against 133–152 µs with the default window and the
 * size hint alone, decompressing 7–20 µs against 23, for the same size (27 November 2026, `node:zlib` on Node 24, a
 * loop of 2,000 calls on a machine running CI beside it). Any Brotli decoder reads either: the window is in the
 * stream's header. The event history's packs (`history-pack.ts`) use the same quality and mode with the default
 * window: fitting it showed no gain in the worker bench, and their items are named by their bytes (bench/README,
 * `worker`); a pack too small for compression to save a write unit is stored instead (`brotliStored`).
 */
import { constants } from 'node:zlib';

/**
 * The smallest window (2^lgwin − 16 bytes) that holds `bytes` of input, at least Brotli's 10 bits and at most its
 * default 22 (a larger input compresses as it did before: never more memory than the default's).
 */
export const windowBitsFor = (bytes: number): number =>
  Math.min(
    constants.BROTLI_DEFAULT_WINDOW,
    Math.max(constants.BROTLI_MIN_WINDOW_BITS, Math.ceil(Math.log2(bytes + 16))),
  );

/** Quality 5 (most of Brotli's ratio on JSON for a fraction of the default's time, 11) and text mode. */
export const BROTLI_JSON_PARAMS = {
  [constants.BROTLI_PARAM_QUALITY]: 5,
  [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
} as const;

/** Options for `brotliCompress(Sync)` of `bytes` of JSON, with the window fitted to them. */
export const brotliJsonOptions = (bytes: number) => ({
  params: {
    ...BROTLI_JSON_PARAMS,
    [constants.BROTLI_PARAM_SIZE_HINT]: bytes,
    [constants.BROTLI_PARAM_LGWIN]: windowBitsFor(bytes),
  },
});

/** The most {@link brotliStored} takes. */
export const STORED_MAX_BYTES = 65_536;

/**
 * `bytes` as a Brotli stream that stores them as they are (RFC 7932: a 16-bit window, one uncompressed meta-block,
 * then an empty last one): what every Brotli decoder reads back, for the price of a copy. For input too small for
 * compression to save a write unit (the event history's small packs, `history-pack.ts`). At most 65,536 bytes: the
 * meta-block's length is written in four nibbles.
 */
export const brotliStored = (bytes: Uint8Array): Uint8Array => {
  const length = bytes.length;
  if (length < 1 || length > STORED_MAX_BYTES)
    throw new RangeError(`brotliStored takes 1 to ${STORED_MAX_BYTES} bytes`);
  // Bits from the lowest: WBITS 0 (a 16-bit window), ISLAST 0, MNIBBLES 0 (four nibbles), MLEN − 1 in 16 bits,
  // ISUNCOMPRESSED 1, then zeros to the byte's end.
  const header = ((length - 1) << 4) | (1 << 20);
  const out = new Uint8Array(length + 4);
  out[0] = header & 0xff;
  out[1] = (header >>> 8) & 0xff;
  out[2] = header >>> 16;
  out.set(bytes, 3);
  // ISLAST 1, ISLASTEMPTY 1.
  out[length + 3] = 0b11;
  return out;
};
