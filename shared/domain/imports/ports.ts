/** Ports of the imports area: what its use cases need from the outside world. Nothing here imports an AWS SDK. */

import type { Repository } from '#shared/domain/repository.ts';
import type { StoreSlot } from '#shared/domain/store-slot.ts';
import type { FileLine } from './line-reader.ts';
import type { ImportJob } from './model.ts';

/** Import files (S3). */
export interface ImportFiles {
  put(key: string, content: Buffer): Promise<void>;
  /** The file's lines from `offset` (bytes) on, each with the byte offset just after it (see `line-reader.ts`). */
  lines(key: string, offset: number): AsyncIterable<FileLine>;
  /** A URL the client PUTs a file of exactly `bytes` to (the length is signed), valid `expiresInSeconds`. */
  uploadUrl(key: string, expiresInSeconds: number, bytes: number): Promise<string>;
  /** The stored file's size in bytes; undefined when there is none. */
  size(key: string): Promise<number | undefined>;
}

export interface ImportJobRepository extends Repository<ImportJob> {
  /** The store's jobs, newest first (jobs written before this index existed show once they change). */
  listForStore(
    storeId: string,
    page: { limit: number; cursor?: string },
  ): Promise<{ readonly items: ImportJob[]; readonly nextCursor?: string }>;
}

/** The import queue: a message per job (and per continuation of a long one). */
export interface ImportQueue {
  enqueue(storeId: string, jobId: string): Promise<void>;
}

/**
 * "About once every 10 seconds": claims the store's import slot, or says when it frees up; a claim that started
 * nothing is given back.
 */
export type ImportThrottle = StoreSlot;
