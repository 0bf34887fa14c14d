/**
 * Contact batch imports (spec "Contact batch import"): a JSONL file, one customer per line (the fields of the general
 * `customers` event), upserted by `id`, starting no flow, announced by `bulk_operations/finish` when done.
 *
 * A job is `SUCCESS` when at least one line was imported (the lines that failed are listed with their number and
 * reason), `FAIL` when none was: the file was empty of valid lines or could not be read.
 */

import type { StoreType } from '#shared/domain/stores/model.ts';

/** Line errors kept on the job (the counts cover every line). */
export const MAX_RECORDED_LINE_ERRORS = 1000;
/** Spec "Limits": about once every 10 seconds per store. */
export const IMPORT_INTERVAL_SECONDS = 10;
/**
 * The largest file an upload URL takes: a million customer lines of about 500 bytes. The URL is signed for the size
 * the client declares (S3 refuses a PUT of any other length) and the start checks the stored file against it.
 */
export const MAX_UPLOAD_BYTES = 512 * 1024 * 1024;

export type ImportStatus = 'uploading' | 'queued' | 'running' | 'finished';
export type ImportResult = 'SUCCESS' | 'FAIL';

export interface LineError {
  readonly line: number;
  readonly reason: string;
}

export interface ImportJob {
  readonly storeId: string;
  readonly id: string;
  /** Spec: `customers` (orders and products batch paths are not shown). */
  readonly endpoint: 'customers';
  /** Decides the format of the `customer/marketing` events the import emits. */
  readonly storeType: StoreType;
  readonly status: ImportStatus;
  readonly result?: ImportResult;
  /** Where the file is (the storage's key). */
  readonly fileKey: string;
  /** The size the client declared for its upload URL (uploads only). */
  readonly uploadBytes?: number;
  readonly counts: {
    readonly lines: number;
    readonly imported: number;
    readonly created: number;
    readonly failed: number;
  };
  readonly errors: readonly LineError[];
  /** Where processing resumes (byte offset and line number of the next line) after a continuation. */
  readonly resumeAt?: { readonly offset: number; readonly line: number };
  /** Epoch milliseconds. */
  readonly createdAt: number;
  readonly startedAt?: number;
  readonly finishedAt?: number;
  readonly updatedAt: number;
  readonly revision: number;
}

export const resultOf = (counts: ImportJob['counts']): ImportResult => (counts.imported > 0 ? 'SUCCESS' : 'FAIL');

/** The job as the API shows it. */
export const importJobView = (job: ImportJob) => ({
  jobId: job.id,
  endpoint: job.endpoint,
  status: job.status,
  ...(job.result ? { result: job.result } : {}),
  counts: job.counts,
  errors: job.errors,
  createdAt: job.createdAt,
  ...(job.startedAt ? { startedAt: job.startedAt } : {}),
  ...(job.finishedAt ? { finishedAt: job.finishedAt } : {}),
});
