/**
 * A clock that runs ahead of the wall clock by an offset that only grows: the local runtime's one clock. Its handlers
 * read it (`readTimeFrom`, shared/clock.ts), its Scheduler fires by it, and its simulated SES events are stamped with
 * it, so `POST /_local/clock/advance` makes time pass for everything at once.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Options of {@link LocalClock}. */
export interface LocalClockOptions {
  /**
   * JSON file that keeps the offset across restarts; without it the offset lives in memory only.
   */
  file?: string;
}

interface ClockFile {
  offsetMs: number;
}

/** A monotonic-offset clock: `now()` is `Date.now()` plus everything passed to `advance`. */
export class LocalClock {
  #offsetMs = 0;
  readonly #file: string | undefined;

  constructor(options: LocalClockOptions = {}) {
    this.#file = options.file;
    if (this.#file !== undefined) this.#offsetMs = readOffset(this.#file);
  }

  /** Milliseconds added to the wall clock so far. */
  get offsetMs(): number {
    return this.#offsetMs;
  }

  /** Current time of the timers, in epoch milliseconds. */
  now(): number {
    return Date.now() + this.#offsetMs;
  }

  /**
   * Moves the clock forward (and persists the new offset when a file is configured).
   * @throws RangeError when `seconds` is negative or not finite: time never runs backwards, so what fired stays fired.
   */
  advance(seconds: number): void {
    if (!Number.isFinite(seconds) || seconds < 0) {
      throw new RangeError(`Clock can only advance by a finite, non-negative number of seconds (got ${seconds})`);
    }
    this.#offsetMs += Math.round(seconds * 1000);
    if (this.#file !== undefined) writeOffset(this.#file, this.#offsetMs);
  }
}

function readOffset(file: string): number {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  const parsed = JSON.parse(text) as Partial<ClockFile>;
  // A hand-edited or corrupt file must not silently reset time: that would re-arm or skip persisted schedules.
  if (typeof parsed.offsetMs !== 'number' || !Number.isFinite(parsed.offsetMs) || parsed.offsetMs < 0) {
    throw new Error(`Invalid clock file ${file}: expected {"offsetMs": <non-negative number>}`);
  }
  return parsed.offsetMs;
}

function writeOffset(file: string, offsetMs: number): void {
  mkdirSync(dirname(file), { recursive: true });
  // Temp file + rename: a crash mid-write leaves the previous offset, never a truncated file.
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify({ offsetMs } satisfies ClockFile)}\n`);
  renameSync(temp, file);
}
