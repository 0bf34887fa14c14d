/**
 * The emulator's state on disk (`.local/scheduler.json`), so waiting carts and flow timers survive a restart of
 * `npm start`. Written to a temporary file and renamed, so a crash mid-write never leaves half a file.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** The state saved at `file`, or `undefined` when there is none yet. */
export const readStateFile = <T>(file: string): T | undefined => {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return JSON.parse(text) as T;
};

/** Synchronous on purpose: writes happen in the order of the changes they record. */
export const writeStateFile = (file: string, state: unknown): void => {
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(state, null, 2));
  renameSync(temp, file);
};
