/**
 * An import file's lines, read from its byte stream in linear time and bounded memory. A line longer than
 * `MAX_LINE_BYTES` is not gathered: the reader drops what it held of it and skips to the next newline, then reports
 * the line as too long (the import records a line error and goes on). Before this, a file without newlines was
 * concatenated chunk after chunk: a 128 MB line took 168 s and 500 MB of memory.
 */

/**
 * The longest line read: far above any customer line (a few KB), and above what one contact may take in the table
 * (400 KB), so a line that could be stored is never refused for its length.
 */
export const MAX_LINE_BYTES = 1024 * 1024;

const NEWLINE = 0x0a;

export type FileLine =
  | { readonly text: string; readonly end: number }
  /** A line whose bytes are not UTF-8: refused as it is, never stored with replacement characters. */
  | { readonly invalidUtf8: true; readonly end: number }
  /** A line over the limit, skipped: its length in bytes (without the newline). */
  | { readonly tooLongBytes: number; readonly end: number };

/** What the reader holds at most (for tests and the docs): a line's bytes up to the limit, plus the chunk in hand. */
export interface ReaderStats {
  peakHeldBytes: number;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The line's text, or undefined when its bytes are not UTF-8. */
const decode = (parts: readonly Uint8Array[]): string | undefined => {
  try {
    return strictUtf8.decode(Buffer.concat(parts)).replace(/\r$/, '');
  } catch {
    return undefined;
  }
};

const lineOf = (parts: readonly Uint8Array[], end: number): FileLine => {
  const text = decode(parts);
  return text === undefined ? { invalidUtf8: true, end } : { text, end };
};

/**
 * The lines of `chunks` (the file from byte `offset` on), each with the byte offset just after it, so a run can resume
 * at a line. Each byte is looked at once; a line's bytes are joined once, when its newline is found.
 */
export async function* readLines(
  chunks: AsyncIterable<Uint8Array>,
  offset: number,
  maxLineBytes = MAX_LINE_BYTES,
  stats?: ReaderStats,
): AsyncGenerator<FileLine> {
  let parts: Uint8Array[] = [];
  let held = 0;
  /** The current line passed the limit: its bytes are counted, not kept, until its newline. */
  let skipping = false;
  let lineBytes = 0;
  let position = offset;
  for await (const chunk of chunks) {
    let start = 0;
    while (start < chunk.length) {
      const at = chunk.indexOf(NEWLINE, start);
      const stop = at === -1 ? chunk.length : at;
      lineBytes += stop - start;
      if (!skipping) {
        if (lineBytes > maxLineBytes) {
          skipping = true;
          parts = [];
          held = 0;
        } else if (stop > start) {
          parts.push(chunk.subarray(start, stop));
          held += stop - start;
          if (stats) stats.peakHeldBytes = Math.max(stats.peakHeldBytes, held + chunk.length);
        }
      }
      if (at === -1) break;
      position += lineBytes + 1;
      yield skipping ? { tooLongBytes: lineBytes, end: position } : lineOf(parts, position);
      parts = [];
      held = 0;
      skipping = false;
      lineBytes = 0;
      start = at + 1;
    }
  }
  if (lineBytes > 0) {
    position += lineBytes;
    yield skipping ? { tooLongBytes: lineBytes, end: position } : lineOf(parts, position);
  }
}
