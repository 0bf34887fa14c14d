/**
 * Running an import: the file is streamed line by line (memory stays flat whatever its size), each line validated as a
 * general `customers` payload and upserted by `id` (existing updated, new created; importing a file twice creates no
 * duplicate), in small parallel batches. No flow starts (spec: batch import never starts flows); consent changes emit
 * `customer/marketing`. Progress is saved as it goes, and a job that would outlive its invocation saves where it is and
 * continues in the next one. At the end, `bulk_operations/finish` says `SUCCESS` or `FAIL`.
 */

import * as v from 'valibot';
import { type ContactWriteDeps, upsertContact } from '#shared/domain/contacts/upsert-contact.ts';
import { checkExtraProperties } from '#shared/domain/events/extra-properties.ts';
import { CustomerCreateData } from '#shared/domain/events/payloads/customers.ts';
import { describeIssues } from '#shared/domain/validation.ts';
import { isAppError, PermanentError } from '#shared/errors.ts';
import { MAX_LINE_BYTES } from './line-reader.ts';
import { type ImportJob, type LineError, MAX_RECORDED_LINE_ERRORS, resultOf } from './model.ts';
import type { ImportFiles, ImportJobRepository, ImportQueue } from './ports.ts';

export interface RunImportDeps extends ContactWriteDeps {
  readonly files: ImportFiles;
  readonly jobs: ImportJobRepository;
  readonly queue: ImportQueue;
  /** After each contact written: its segments evaluated again; an import starts no flow, so none fire. */
  readonly afterContact?: (storeId: string, customerId: string, lineId: string) => Promise<void>;
  /**
   * After each batch of lines, before the job's place moves past it: writes what the batch's contacts gathered (the
   * export's contact counters, summed per bucket instead of four `ADD`s a contact).
   */
  readonly afterBatch?: () => Promise<void>;
}

/** Lines written concurrently; a line repeating an id waits for the earlier one (the file's order wins). */
const BATCH_LINES = 25;
/** Progress is saved every this many lines. */
const SAVE_EVERY_LINES = 1000;
/** Below this much time left in the invocation, the job saves its place and continues in the next one. */
const RESERVE_MS = 60_000;

type Outcome = { readonly created: boolean } | { readonly error: string };

const importLine = async (deps: RunImportDeps, job: ImportJob, lineNo: number, text: string): Promise<Outcome> => {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { error: 'not valid JSON' };
  }
  const parsed = v.safeParse(CustomerCreateData, json);
  if (!parsed.success) return { error: describeIssues(parsed.issues) };
  try {
    // The extra-property budget of the event interfaces (docs/limits.md): a line over it fails alone.
    checkExtraProperties(CustomerCreateData, parsed.output as Record<string, unknown>, 'line');
  } catch (error) {
    if (isAppError(error)) return { error: error.message };
    throw error;
  }
  try {
    const write = await upsertContact(
      deps,
      { storeId: job.storeId, storeType: job.storeType, eventId: `import#${job.id}#${lineNo}` },
      parsed.output,
    );
    await deps.afterContact?.(job.storeId, write.customer.originId, `import#${job.id}#${lineNo}`);
    return { created: write.created };
  } catch (error) {
    // DynamoDB refuses this contact for good (e.g. over its 400 KB item size): the line fails, the import goes on.
    // Anything else (throttling, a network error) is thrown so the queue retries from the last saved place.
    if (error instanceof Error && error.name === 'ValidationException') {
      return { error: `the contact could not be stored: ${error.message}` };
    }
    // The contact would pass its stored budget (its extra properties merged with the line's).
    if (error instanceof PermanentError) return { error: error.message };
    throw error;
  }
};

/** Reasons are kept short so a thousand of them fit in the job record (DynamoDB items are at most 400 KB). */
const MAX_REASON_CHARS = 200;
const shortReason = (reason: string) =>
  reason.length > MAX_REASON_CHARS ? `${reason.slice(0, MAX_REASON_CHARS - 1)}…` : reason;

/** A line to import, or one the reader already refused (too long). */
type BatchLine = { readonly line: number; readonly text: string } | { readonly line: number; readonly error: string };

/** Runs a batch: lines with distinct ids in parallel, repeats of an id after the line before them. */
const runBatch = async (deps: RunImportDeps, job: ImportJob, batch: BatchLine[]) => {
  const chains = new Map<string, Promise<unknown>>();
  return Promise.all(
    batch.map((entry) => {
      const { line } = entry;
      if ('error' in entry) return { line, outcome: { error: entry.error } as Outcome };
      const { text } = entry;
      let id = `#line${line}`;
      try {
        const parsed: unknown = JSON.parse(text);
        if (parsed && typeof parsed === 'object' && 'id' in parsed) id = String((parsed as { id: unknown }).id);
      } catch {
        // importLine reports it
      }
      const run = (chains.get(id) ?? Promise.resolve()).then(() => importLine(deps, job, line, text));
      chains.set(id, run);
      return run.then((outcome) => ({ line, outcome }));
    }),
  );
};

export type RunOutcome = 'finished' | 'continued' | 'skipped';

export interface RunImportOptions {
  /**
   * This is the queue's last delivery of the message (the next failure moves it to the DLQ). A failure that is not
   * about one line (the table or the file store failing for minutes) then ends the job as `FAIL` with the reason and
   * announces it, rather than leaving it `running` forever with its message in the DLQ.
   */
  readonly lastAttempt?: boolean;
}

export const runImport = async (
  deps: RunImportDeps,
  message: { storeId: string; jobId: string },
  remainingMs: () => number,
  options: RunImportOptions = {},
): Promise<RunOutcome> => {
  const found = await deps.jobs.get(message.storeId, message.jobId);
  if (found?.status === 'finished' && found.result) {
    // Finished, but the message came back: the process may have stopped between saving the end and announcing it.
    // Announced again with the same event id, the delivery is the same one (queued again while pending, else nothing).
    await deps.webhooks.emit(
      found.storeId,
      'bulk_operations/finish',
      { endpoint: 'customers', status: found.result },
      `import#${found.id}`,
    );
    return 'skipped';
  }
  if (!found || found.status === 'finished' || found.status === 'uploading') return 'skipped';
  let job: ImportJob = found;
  const counts = { ...job.counts };
  const errors: LineError[] = [...job.errors];
  let resumeAt = job.resumeAt ?? { offset: 0, line: 0 };

  const save = async (change: Partial<ImportJob>) => {
    const next: ImportJob = {
      ...job,
      counts: { ...counts },
      errors: [...errors],
      resumeAt,
      ...change,
      updatedAt: deps.clock.now(),
      revision: job.revision + 1,
    };
    await deps.jobs.save(next, job.revision);
    job = next;
  };

  const finish = async (extraError?: LineError, aborted = false) => {
    if (extraError && errors.length < MAX_RECORDED_LINE_ERRORS) errors.push(extraError);
    const result = aborted ? 'FAIL' : resultOf(counts);
    await save({ status: 'finished', result, finishedAt: deps.clock.now() });
    await deps.webhooks.emit(
      job.storeId,
      'bulk_operations/finish',
      { endpoint: 'customers', status: result },
      `import#${job.id}`,
    );
    return 'finished' as const;
  };

  await save({ status: 'running', ...(job.startedAt ? {} : { startedAt: deps.clock.now() }) });

  let batch: BatchLine[] = [];
  let batchEnd = resumeAt.offset;
  let lineNo = resumeAt.line;
  let sinceSave = 0;

  const flush = async () => {
    const outcomes = await runBatch(deps, job, batch);
    await deps.afterBatch?.();
    for (const { line, outcome } of outcomes) {
      counts.lines += 1;
      if ('error' in outcome) {
        counts.failed += 1;
        if (errors.length < MAX_RECORDED_LINE_ERRORS) errors.push({ line, reason: shortReason(outcome.error) });
      } else {
        counts.imported += 1;
        if (outcome.created) counts.created += 1;
      }
    }
    sinceSave += batch.length;
    batch = [];
    resumeAt = { offset: batchEnd, line: lineNo };
    if (sinceSave >= SAVE_EVERY_LINES) {
      sinceSave = 0;
      await save({});
    }
  };

  try {
    for await (const read of deps.files.lines(job.fileKey, resumeAt.offset)) {
      lineNo += 1;
      batchEnd = read.end;
      if ('invalidUtf8' in read) {
        batch.push({ line: lineNo, error: 'line is not valid UTF-8' });
      } else if ('tooLongBytes' in read) {
        batch.push({
          line: lineNo,
          error: `line is ${read.tooLongBytes} bytes, over the ${MAX_LINE_BYTES}-byte maximum; skipped`,
        });
      } else if (read.text.trim() === '') {
        continue;
      } else {
        batch.push({ line: lineNo, text: read.text });
      }
      if (batch.length < BATCH_LINES) continue;
      await flush();
      if (remainingMs() < RESERVE_MS) {
        await save({});
        await deps.queue.enqueue(job.storeId, job.id);
        return 'continued';
      }
    }
    resumeAt = { offset: batchEnd, line: lineNo };
    if (batch.length > 0) await flush();
  } catch (error) {
    if (error instanceof Error && (error.name === 'NoSuchKey' || error.name === 'NotFound')) {
      return finish({ line: 0, reason: 'the file could not be read' });
    }
    if (options.lastAttempt) {
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      return finish({ line: 0, reason: shortReason(`the import stopped after repeated failures (${reason})`) }, true);
    }
    throw error;
  }
  return finish();
};
