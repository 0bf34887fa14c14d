/**
 * The event history's packing (docs/backtest.md "The event history"): a group of applied events of one store and UTC
 * day, as one compressed binary value (Brotli over a JSON array of tuples), at most `MAX_PACK_BYTES` so that the item
 * holding it stays under DynamoDB's 400 KB. A group that compresses larger is split in halves until each half fits.
 * A small pack (at most `STORED_PACK_JSON` of JSON) is a Brotli stream that stores its JSON uncompressed: read the same.
 */
import { promisify } from 'node:util';
import { brotliCompress, brotliDecompress, brotliDecompressSync, constants } from 'node:zlib';
import { BROTLI_JSON_PARAMS, brotliStored } from '#shared/domain/brotli.ts';
import type { HistoryEvent } from './model.ts';

/** A pack's compressed size at most: the item's other attributes (keys, counts, TTL) fit in the rest of 400 KB. */
export const MAX_PACK_BYTES = 350_000;

const compress = promisify(brotliCompress);
const decompress = promisify(brotliDecompress);

/**
 * A pack of at most this much JSON is stored, not compressed (`brotliStored`: four bytes more than its JSON, read by any
 * Brotli decoder). Its item (keys, TTL and the pack; about 150 bytes beside the pack) stays under 1 KB, one write unit,
 * as it would compressed; compressing it cost the ingest worker about a tenth of its CPU per event, a worker batch's
 * packs being mostly one or two events of a store (bench/README `worker`). Retention is not made dearer: the
 * day's compaction packs them again, compressed.
 */
export const STORED_PACK_JSON = 640;

/** Packs smaller than this are decompressed in place: handing them to libuv's pool costs more than it saves. */
const SYNC_BELOW_BYTES = 16_384;

/** One event as packed: `[acceptedAt, sourceId, endpoint, interface, storeType or 0, data]`. */
type Tuple = [number, string, string, HistoryEvent['interface'], string | 0, Record<string, unknown>];

/** A pack: its events' bytes, and the first event's acceptance time and id (its item's deterministic key). */
export interface Pack {
  readonly bytes: Uint8Array;
  readonly count: number;
  readonly firstAt: number;
  readonly firstSourceId: string;
  /** The last event's acceptance time (its retention runs from it). */
  readonly lastAt: number;
}

const tuple = (e: HistoryEvent): Tuple => [e.acceptedAt, e.sourceId, e.endpoint, e.interface, e.storeType ?? 0, e.data];

const serialized = (events: readonly HistoryEvent[]) => Buffer.from(JSON.stringify(events.map(tuple)));

/**
 * With the size hint the encoder sizes its tables for the input instead of a 4 MB window (the same bytes; a worker
 * batch's pack is mostly under 1 KB).
 */
const brotliOptions = (json: Buffer) => ({
  params: { ...BROTLI_JSON_PARAMS, [constants.BROTLI_PARAM_SIZE_HINT]: json.length },
});

/** One event as it stands in a pack's JSON: what a packer that sizes its packs by their bytes counts (the compaction). */
export const packedJson = (event: HistoryEvent): string => JSON.stringify(tuple(event));

/**
 * Packs `events[start, end)` (the JSON of that range from `json`) into as few packs as fit `maxBytes`, halving a range
 * that compresses larger.
 */
const packRange = async (
  events: readonly HistoryEvent[],
  json: (start: number, end: number) => Buffer,
  start: number,
  end: number,
  maxBytes: number,
): Promise<Pack[]> => {
  const input = json(start, end);
  // Off the event loop, in libuv's pool: compressed in place, the worker's packs took more of the main thread than the
  // pool's round trip (the worker bench's profile).
  const bytes =
    input.length <= STORED_PACK_JSON
      ? brotliStored(input)
      : new Uint8Array(await compress(input, brotliOptions(input)));
  if (bytes.length > maxBytes && end - start > 1) {
    const half = start + Math.ceil((end - start) / 2);
    return [
      ...(await packRange(events, json, start, half, maxBytes)),
      ...(await packRange(events, json, half, end, maxBytes)),
    ];
  }
  const first = events[start] as HistoryEvent;
  const last = events[end - 1] as HistoryEvent;
  return [
    { bytes, count: end - start, firstAt: first.acceptedAt, firstSourceId: first.sourceId, lastAt: last.acceptedAt },
  ];
};

/**
 * Packs events of one store and day (given in acceptance order) into as few packs as fit `maxBytes`. The same events
 * give the same packs (a redelivered batch writes the same items again; a batch delivered again across the deploy that
 * began storing small packs wrote a second item of the same events, which the readers keep once).
 */
export const packEvents = async (events: readonly HistoryEvent[], maxBytes = MAX_PACK_BYTES): Promise<Pack[]> =>
  events.length === 0
    ? []
    : packRange(events, (start, end) => serialized(events.slice(start, end)), 0, events.length, maxBytes);

/**
 * {@link packEvents} for events whose {@link packedJson} is at hand (`parts[i]` of `events[i]`): the same packs, without
 * serialising the events again.
 */
export const packSerialized = async (
  events: readonly HistoryEvent[],
  parts: readonly string[],
  maxBytes = MAX_PACK_BYTES,
): Promise<Pack[]> =>
  events.length === 0
    ? []
    : packRange(
        events,
        (start, end) => Buffer.from(`[${parts.slice(start, end).join(',')}]`),
        0,
        events.length,
        maxBytes,
      );

/** A pack's events, for the store it was read from. A large pack is decompressed off the event loop (libuv's pool). */
export const unpackEvents = async (storeId: string, bytes: Uint8Array): Promise<HistoryEvent[]> => {
  const json = bytes.length < SYNC_BELOW_BYTES ? brotliDecompressSync(bytes) : await decompress(bytes);
  const tuples = JSON.parse(json.toString('utf8')) as Tuple[];
  return tuples.map(([acceptedAt, sourceId, endpoint, iface, storeType, data]) => ({
    storeId,
    sourceId,
    endpoint,
    interface: iface,
    acceptedAt,
    ...(storeType ? { storeType: storeType as NonNullable<HistoryEvent['storeType']> } : {}),
    data,
  }));
};
