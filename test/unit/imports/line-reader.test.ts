/**
 * The import file reader: a file without newlines took quadratic time and unbounded memory (a 128 MB line,
 * 168 s and 500 MB). Lines over the maximum are skipped to the next newline with bounded memory, in one pass.
 */
import { describe, expect, it } from 'vitest';
import { type FileLine, MAX_LINE_BYTES, type ReaderStats, readLines } from '#shared/domain/imports/line-reader.ts';

/** `total` bytes of `fill`, then `tail`, as `chunkBytes` chunks; counts the chunks handed out. */
const stream = (parts: readonly (string | { fill: number; bytes: number })[], chunkBytes: number) => {
  const counter = { chunks: 0 };
  const source = async function* () {
    let pending = Buffer.alloc(0);
    for (const part of parts) {
      const buffer = typeof part === 'string' ? Buffer.from(part) : Buffer.alloc(part.bytes, part.fill);
      for (let at = 0; at < buffer.length; ) {
        const take = Math.min(chunkBytes - pending.length, buffer.length - at);
        pending = Buffer.concat([pending, buffer.subarray(at, at + take)]);
        at += take;
        if (pending.length === chunkBytes) {
          counter.chunks++;
          yield pending;
          pending = Buffer.alloc(0);
        }
      }
    }
    if (pending.length > 0) {
      counter.chunks++;
      yield pending;
    }
  };
  return { chunks: source(), counter };
};

const collect = async (lines: AsyncIterable<FileLine>) => {
  const out: FileLine[] = [];
  for await (const line of lines) out.push(line);
  return out;
};

describe('readLines', () => {
  it('reads lines with their end offsets, a CRLF or a missing last newline included', async () => {
    const { chunks } = stream(['{"id":1}\r\n', '\n', '{"id":"ü"}\n', '{"id":3}'], 4);
    expect(await collect(readLines(chunks, 100))).toEqual([
      { text: '{"id":1}', end: 110 },
      { text: '', end: 111 },
      { text: '{"id":"ü"}', end: 123 },
      { text: '{"id":3}', end: 131 },
    ]);
  });

  it('skips a 32 MB line without a newline holding at most the limit, and reads the line after it', async () => {
    const long = 32 * 1024 * 1024;
    const { chunks, counter } = stream(['{"id":"a"}\n', { fill: 0x61, bytes: long }, '\n{"id":"b"}\n'], 64 * 1024);
    const stats: ReaderStats = { peakHeldBytes: 0 };
    const lines = await collect(readLines(chunks, 0, MAX_LINE_BYTES, stats));
    expect(lines).toEqual([
      { text: '{"id":"a"}', end: 11 },
      { tooLongBytes: long, end: 11 + long + 1 },
      { text: '{"id":"b"}', end: 11 + long + 12 },
    ]);
    // Never more than one line's allowance and the chunk in hand.
    expect(stats.peakHeldBytes).toBeLessThanOrEqual(MAX_LINE_BYTES + 64 * 1024);
    expect(counter.chunks).toBe(Math.ceil((11 + long + 12) / (64 * 1024)));
  });

  it('reports a last line over the limit that has no newline', async () => {
    const { chunks } = stream([{ fill: 0x61, bytes: 10 }], 3);
    expect(await collect(readLines(chunks, 0, 8))).toEqual([{ tooLongBytes: 10, end: 10 }]);
  });

  it('keeps a line of exactly the limit', async () => {
    const { chunks } = stream([{ fill: 0x61, bytes: 8 }, '\n'], 3);
    expect(await collect(readLines(chunks, 0, 8))).toEqual([{ text: 'aaaaaaaa', end: 9 }]);
  });

  it('reports a line whose bytes are not UTF-8, and reads the next one', async () => {
    const chunks = (async function* () {
      yield Buffer.concat([Buffer.from('{"id":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}\n{"id":"ok"}\n')]);
    })();
    expect(await collect(readLines(chunks, 0))).toEqual([
      { invalidUtf8: true, end: 13 },
      { text: '{"id":"ok"}', end: 25 },
    ]);
  });
});
