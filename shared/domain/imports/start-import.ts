/**
 * Starting an import (spec "Contact batch import", `append=update` checked by the route's query schema): the file must be present, non-empty
 * JSONL; a store may start one import about every 10 seconds. Files larger than the API's body limit go through a
 * presigned upload: ask for an upload URL, PUT the file there, then start the job.
 */

import type { Clock } from '#shared/domain/clock.ts';
import { randomBase62 } from '#shared/domain/ids.ts';
import { RevisionConflict } from '#shared/domain/repository.ts';
import type { AuthenticatedStore } from '#shared/domain/stores/model.ts';
import type { WebhookEvents } from '#shared/domain/webhooks/ports.ts';
import { conflict, notFound, rateLimited, validationError } from '#shared/errors.ts';
import { IMPORT_INTERVAL_SECONDS, type ImportJob, importJobView, MAX_UPLOAD_BYTES } from './model.ts';
import type { ImportFiles, ImportJobRepository, ImportQueue, ImportThrottle } from './ports.ts';

export interface ImportDeps {
  readonly files: ImportFiles;
  readonly jobs: ImportJobRepository;
  readonly queue: ImportQueue;
  readonly throttle: ImportThrottle;
  /** Announces a direct upload's job that ended `FAIL` before it ran (`bulk_operations/finish`). */
  readonly webhooks: Pick<WebhookEvents, 'emit'>;
  readonly clock: Clock;
}

/** A presigned upload stays valid this long. */
export const UPLOAD_URL_SECONDS = 15 * 60;

const slotTaken = (retryAfterSeconds: number) =>
  rateLimited(retryAfterSeconds, `One import per store every ${IMPORT_INTERVAL_SECONDS} seconds; retry later`);

/** Claims the store's import slot, or 429; the claim's id, for `releaseSlot`. */
const claimSlot = async (deps: ImportDeps, storeId: string) => {
  const slot = await deps.throttle.claim(storeId, IMPORT_INTERVAL_SECONDS);
  if (!slot.claimed) throw slotTaken(slot.retryAfterSeconds);
  return slot.claimId;
};

/** Gives back a claim that started nothing (best effort; it lapses by itself after IMPORT_INTERVAL_SECONDS anyway). */
const releaseSlot = (deps: ImportDeps, storeId: string, claimId: string) =>
  deps.throttle.release(storeId, claimId).catch(() => undefined);

/**
 * Queues a job just saved `queued`. When that fails the job has no message and would stay `queued` forever: `undo`
 * writes it back, conditional on the revision just written, and the slot is given back. When the undo fails (the job
 * changed: the worker took a message that did go out after all), the job and the slot are left as they are. Either
 * way the enqueue's error propagates (5xx, retryable).
 */
const enqueueOrUndo = async (deps: ImportDeps, job: ImportJob, claimId: string, undo: ImportJob) => {
  try {
    await deps.queue.enqueue(job.storeId, job.id);
  } catch (error) {
    if (await undoQueued(deps, job, undo)) {
      await releaseSlot(deps, job.storeId, claimId);
      if (undo.status === 'finished') await announceFailed(deps, undo);
    }
    throw error;
  }
};

/**
 * Tells the store's `bulk_operations/finish` subscribers that a job ended `FAIL` before it ran, as a job the worker
 * ends does (same body and event id), so an integration waiting for the webhook is not left waiting. Best effort: the
 * queue that just failed may fail this too; the job's status says `FAIL` either way.
 */
const announceFailed = (deps: ImportDeps, job: ImportJob) =>
  deps.webhooks
    .emit(job.storeId, 'bulk_operations/finish', { endpoint: job.endpoint, status: 'FAIL' }, `import#${job.id}`)
    .catch(() => undefined);

/** Tries of the undo: a dependency failing for a moment must not leave a job `queued` without a message. */
const UNDO_TRIES = 3;

/** Writes `undo` over the job just queued; false when it changed (a conflict) or the table kept failing. */
const undoQueued = async (deps: ImportDeps, job: ImportJob, undo: ImportJob): Promise<boolean> => {
  for (let i = 0; i < UNDO_TRIES; i++) {
    try {
      await deps.jobs.save(undo, job.revision);
      return true;
    } catch (error) {
      if (error instanceof RevisionConflict) return false;
    }
  }
  return false;
};

/**
 * A job `queued` this long ago that no worker has started may have no message (its enqueue failed, and so did every
 * try to write it back): a start of it queues it again. A second message for a job that did have one is harmless: the
 * worker's writes are conditional and its upserts idempotent.
 */
export const QUEUED_UNSTARTED_MS = 15 * 60_000;

/** Why a direct upload's job failed before it ran (line 0: the job's, not a line's). */
const NOT_QUEUED_REASON = 'the import could not be queued; nothing was imported: send the file again';

/** The first non-blank line must be a JSON object; the worker checks every line in detail. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

const checkJsonl = (content: Buffer) => {
  let text: string;
  try {
    text = strictUtf8.decode(content);
  } catch {
    throw validationError('dataFile is not valid UTF-8 (JSONL is UTF-8 text)');
  }
  if (text.trim() === '') throw validationError('dataFile is empty');
  const lines = text.split('\n');
  const index = lines.findIndex((line) => line.trim() !== '');
  try {
    const first: unknown = JSON.parse(lines[index] ?? '');
    if (first && typeof first === 'object' && !Array.isArray(first)) return;
  } catch {
    // fall through
  }
  throw validationError(`dataFile is not JSONL: line ${index + 1} is not a JSON object`);
};

const newJob = (deps: ImportDeps, store: AuthenticatedStore, status: ImportJob['status']): ImportJob => {
  const id = `im_${randomBase62(20)}`;
  const now = deps.clock.now();
  return {
    storeId: store.storeId,
    id,
    endpoint: 'customers',
    storeType: store.type,
    status,
    fileKey: `${store.storeId}/${id}.jsonl`,
    counts: { lines: 0, imported: 0, created: 0, failed: 0 },
    errors: [],
    createdAt: now,
    updatedAt: now,
    revision: 1,
  };
};

export interface UploadedFile {
  readonly filename: string;
  readonly content: Buffer;
}

/** `POST /batch/customers?append=update` with the file in `dataFile`. */
export const startImport = async (deps: ImportDeps, store: AuthenticatedStore, file: UploadedFile | undefined) => {
  if (!file) throw validationError('dataFile is required: the JSONL file, as multipart/form-data');
  checkJsonl(file.content);
  const claimId = await claimSlot(deps, store.storeId);
  const job = newJob(deps, store, 'queued');
  try {
    await deps.files.put(job.fileKey, file.content);
    await deps.jobs.save(job, 0);
  } catch (error) {
    await releaseSlot(deps, store.storeId, claimId);
    throw error;
  }
  // The job id is new per request, so the client's retry makes another job: this one ends `FAIL`, never to run.
  const now = deps.clock.now();
  await enqueueOrUndo(deps, job, claimId, {
    ...job,
    status: 'finished',
    result: 'FAIL',
    errors: [{ line: 0, reason: NOT_QUEUED_REASON }],
    finishedAt: now,
    updatedAt: now,
    revision: job.revision + 1,
  });
  return importJobView(job);
};

/** `POST /batch/customers/uploads?append=update`: a job waiting for its file, and where to PUT it. */
export const requestUpload = async (deps: ImportDeps, store: AuthenticatedStore, bytes: number) => {
  const job: ImportJob = { ...newJob(deps, store, 'uploading'), uploadBytes: bytes };
  await deps.jobs.save(job, 0);
  return {
    ...importJobView(job),
    uploadUrl: await deps.files.uploadUrl(job.fileKey, UPLOAD_URL_SECONDS, bytes),
    uploadMethod: 'PUT',
    expiresInSeconds: UPLOAD_URL_SECONDS,
  };
};

/** What a start of a job no longer waiting for its file answers (a repeated start, or the loser of two at once). */
const alreadyStarted = (job: ImportJob) => conflict(`The job is already ${job.status}`);

/** Re-reads the job after a start lost a race: 409 when another start has queued it (or 404 when it is gone). */
const refuseIfStarted = async (deps: ImportDeps, job: ImportJob) => {
  const current = await deps.jobs.get(job.storeId, job.id);
  if (!current) throw notFound('Import job not found');
  if (current.status !== 'uploading') throw alreadyStarted(current);
};

/**
 * `POST /batch/customers/uploads/{jobId}/start`: the file was uploaded; import it. Two starts of one job at once queue
 * it once: the other answers as a repeated start does (409 `The job is already queued`), or 429 while the winner holds
 * the slot and has not yet written the job; a start that queued nothing gives back the slot it claimed (and when the
 * enqueue itself fails, the job is put back to `uploading` first, so a retry of the start can queue it). A job left
 * `queued` and never started for `QUEUED_UNSTARTED_MS` (the enqueue and the write back both failed) is queued again.
 */
export const startUploaded = async (deps: ImportDeps, storeId: string, jobId: string | undefined) => {
  const job = jobId ? await deps.jobs.get(storeId, jobId) : undefined;
  if (!job) throw notFound('Import job not found');
  if (job.status === 'queued' && !job.startedAt && deps.clock.now() - job.updatedAt >= QUEUED_UNSTARTED_MS) {
    await deps.queue.enqueue(storeId, job.id);
    return importJobView(job);
  }
  if (job.status !== 'uploading') throw alreadyStarted(job);
  const stored = await deps.files.size(job.fileKey);
  if (stored === undefined) throw validationError('dataFile has not been uploaded yet');
  // S3 refuses another length on the signed URL; checked here too, whatever stored the file.
  const declared = job.uploadBytes ?? MAX_UPLOAD_BYTES;
  if (stored > declared) {
    throw validationError(`dataFile is ${stored} bytes; the upload URL was for at most ${declared}`);
  }
  const slot = await deps.throttle.claim(storeId, IMPORT_INTERVAL_SECONDS);
  if (!slot.claimed) {
    // The slot may be held by another start of this very job: once it has queued the job, say so rather than "retry".
    await refuseIfStarted(deps, job);
    throw slotTaken(slot.retryAfterSeconds);
  }
  const queued: ImportJob = { ...job, status: 'queued', updatedAt: deps.clock.now(), revision: job.revision + 1 };
  try {
    await deps.jobs.save(queued, job.revision);
  } catch (error) {
    // Nothing was queued: free the slot now.
    await releaseSlot(deps, storeId, slot.claimId);
    if (!(error instanceof RevisionConflict)) throw error;
    await refuseIfStarted(deps, job);
    throw conflict('The job changed while it was being started; start it again');
  }
  // Not queued after all: the job waits for its start again, so the client's retry of this start works.
  await enqueueOrUndo(deps, queued, slot.claimId, {
    ...job,
    updatedAt: deps.clock.now(),
    revision: queued.revision + 1,
  });
  return importJobView(queued);
};

/** `GET /batch/{jobId}`: status, counts and line errors. */
export const getImportJob = async (deps: Pick<ImportDeps, 'jobs'>, storeId: string, jobId: string | undefined) => {
  const job = jobId ? await deps.jobs.get(storeId, jobId) : undefined;
  if (!job) throw notFound('Import job not found');
  return importJobView(job);
};
