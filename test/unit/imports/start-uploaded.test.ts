/**
 * Starting an uploaded import job (`startUploaded`, `POST /api/v1/batch/customers/uploads/{jobId}/start`), unit level
 * with in-memory ports: a start that loses its race with another start of the same job (the job changed between its
 * read and its conditional write, or the other start took the store's slot) answers as a repeated start does, 409
 * `The job is already <status>`, never an internal error; and a start that queued nothing gives back the import slot it
 * claimed, so the store is not held off for 10 seconds by an import that never began; a start whose enqueue fails puts
 * the job back to `uploading`, so its retry queues it (trying that write again if it fails), and a job left `queued`
 * without a message (both failed) is queued again by a start once it has waited `QUEUED_UNSTARTED_MS`.
 */
import { describe, expect, it } from 'vitest';
import { QUEUED_UNSTARTED_MS, startUploaded } from '#shared/domain/imports/start-import.ts';
import { AppError } from '#shared/errors.ts';
import { IMPORT_JOB, IMPORT_STORE, startFakes } from '#test/support/memory/imports.ts';

const STORE = IMPORT_STORE;
const JOB = IMPORT_JOB;

/** The rejection of `promise` (failing the test when it resolves). */
const rejectionOf = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
};

describe('startUploaded', () => {
  it('queues an uploaded job once and holds the store’s slot', async () => {
    const fakes = startFakes();
    const view = await startUploaded(fakes.deps, STORE, JOB);
    expect(view).toMatchObject({ jobId: JOB, status: 'queued' });
    expect(fakes.job()).toMatchObject({ status: 'queued', revision: 2 });
    expect(fakes.enqueued).toEqual([{ storeId: STORE, jobId: JOB }]);
    expect(fakes.slotUntil()).toBeDefined();
  });

  it('answers a repeated start 409, leaving the job and the slot as they were', async () => {
    const fakes = startFakes();
    await startUploaded(fakes.deps, STORE, JOB);
    const held = fakes.slotUntil();
    const error = await rejectionOf(startUploaded(fakes.deps, STORE, JOB));
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ kind: 'conflict', message: 'The job is already queued' });
    expect(fakes.enqueued).toHaveLength(1);
    expect(fakes.slotUntil()).toBe(held);
  });

  it('answers 409 when another start queued the job between this one’s read and its write, and gives the slot back', async () => {
    // The other start's slot had lapsed (its request was slow), so this one claims the slot and then loses the write.
    const fakes = startFakes({
      onSize: ({ job, set }) => {
        const current = job();
        if (current.status === 'uploading') set({ ...current, status: 'queued', revision: current.revision + 1 });
      },
    });
    const error = await rejectionOf(startUploaded(fakes.deps, STORE, JOB));
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ kind: 'conflict', message: 'The job is already queued' });
    expect(fakes.enqueued).toEqual([]);
    expect(fakes.job()).toMatchObject({ status: 'queued', revision: 2 });
    // Nothing was started by this request: the store may start another import at once.
    expect(fakes.slotUntil()).toBeUndefined();
  });

  it('answers 409 "start it again" when the job changed but still waits for its file, and gives the slot back', async () => {
    const fakes = startFakes({
      onSize: ({ job, set }) => {
        if (job().revision === 1) set({ ...job(), revision: 2 });
      },
    });
    const error = await rejectionOf(startUploaded(fakes.deps, STORE, JOB));
    expect(error).toMatchObject({
      kind: 'conflict',
      message: 'The job changed while it was being started; start it again',
    });
    expect(fakes.slotUntil()).toBeUndefined();
    expect(fakes.enqueued).toEqual([]);
  });

  it('answers 409, not 429, when the start that took the slot has already queued this job', async () => {
    const fakes = startFakes({
      onSize: ({ job, set }) => {
        fakes.holdSlot();
        set({ ...job(), status: 'queued', revision: job().revision + 1 });
      },
    });
    const error = await rejectionOf(startUploaded(fakes.deps, STORE, JOB));
    expect(error).toMatchObject({ kind: 'conflict', message: 'The job is already queued' });
  });

  it('answers 429 with Retry-After while another import holds the slot, the job still waiting', async () => {
    const fakes = startFakes();
    fakes.holdSlot();
    const error = await rejectionOf(startUploaded(fakes.deps, STORE, JOB));
    expect(error).toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 10 });
    expect(fakes.job()).toMatchObject({ status: 'uploading', revision: 1 });
    expect(fakes.enqueued).toEqual([]);
  });

  it('gives the slot back when the write fails for another reason, and passes the failure on', async () => {
    const fakes = startFakes();
    const boom = new Error('table unavailable');
    fakes.deps.jobs.save = async () => {
      throw boom;
    };
    expect(await rejectionOf(startUploaded(fakes.deps, STORE, JOB))).toBe(boom);
    expect(fakes.slotUntil()).toBeUndefined();
    expect(fakes.enqueued).toEqual([]);
  });

  it('when the enqueue fails: the job waits for its start again, the slot is given back, and the retry queues it', async () => {
    const fakes = startFakes();
    const boom = new Error('queue unavailable');
    const enqueue = fakes.deps.queue.enqueue;
    fakes.deps.queue.enqueue = async () => {
      throw boom;
    };
    expect(await rejectionOf(startUploaded(fakes.deps, STORE, JOB))).toBe(boom);
    expect(fakes.job()).toMatchObject({ status: 'uploading', revision: 3 });
    expect(fakes.slotUntil()).toBeUndefined();

    fakes.deps.queue.enqueue = enqueue;
    expect(await startUploaded(fakes.deps, STORE, JOB)).toMatchObject({ jobId: JOB, status: 'queued' });
    expect(fakes.job()).toMatchObject({ status: 'queued', revision: 4 });
    expect(fakes.enqueued).toEqual([{ storeId: STORE, jobId: JOB }]);
  });

  it('when the enqueue fails but the job already changed (a message did go out and the worker took it), leaves it and the slot', async () => {
    const fakes = startFakes();
    const boom = new Error('queue timed out');
    fakes.deps.queue.enqueue = async () => {
      const job = fakes.job();
      await fakes.deps.jobs.save({ ...job, status: 'running', revision: job.revision + 1 }, job.revision);
      throw boom;
    };
    expect(await rejectionOf(startUploaded(fakes.deps, STORE, JOB))).toBe(boom);
    expect(fakes.job()).toMatchObject({ status: 'running', revision: 3 });
    expect(fakes.slotUntil()).toBeDefined();
  });

  it('when the enqueue fails and the write back fails for a moment too: tries the write back again', async () => {
    const fakes = startFakes();
    const save = fakes.deps.jobs.save;
    let failures = 0;
    fakes.deps.queue.enqueue = async () => {
      // From now on the table fails once, as a dependency does for a moment.
      fakes.deps.jobs.save = async (job, expected) => {
        if (failures++ === 0) throw new Error('table unavailable');
        return save(job, expected);
      };
      throw new Error('queue unavailable');
    };
    await rejectionOf(startUploaded(fakes.deps, STORE, JOB));
    expect(fakes.job()).toMatchObject({ status: 'uploading', revision: 3 });
    expect(fakes.slotUntil()).toBeUndefined();
  });

  it('queues again a job left queued without a message (enqueue and every write back failed) once it has waited 15 minutes', async () => {
    const fakes = startFakes();
    fakes.deps.queue.enqueue = async () => {
      fakes.deps.jobs.save = async () => {
        throw new Error('table unavailable');
      };
      throw new Error('queue unavailable');
    };
    await rejectionOf(startUploaded(fakes.deps, STORE, JOB));
    expect(fakes.job()).toMatchObject({ status: 'queued' });
    expect(fakes.enqueued).toEqual([]);

    const working = startFakes();
    fakes.deps.queue.enqueue = working.deps.queue.enqueue;
    // Soon after, a start is a repeated start; a job never started for 15 minutes is queued again.
    expect(await rejectionOf(startUploaded(fakes.deps, STORE, JOB))).toMatchObject({
      kind: 'conflict',
      message: 'The job is already queued',
    });
    fakes.advance(QUEUED_UNSTARTED_MS);
    expect(await startUploaded(fakes.deps, STORE, JOB)).toMatchObject({ jobId: JOB, status: 'queued' });
    expect(working.enqueued).toEqual([{ storeId: STORE, jobId: JOB }]);
  });

  it('two concurrent starts, however interleaved: one queues the job, the other gets a 409 or 429, one message', async () => {
    for (let lag = 0; lag <= 8; lag++) {
      const fakes = startFakes();
      const first = startUploaded(fakes.deps, STORE, JOB);
      const second = (async () => {
        for (let n = 0; n < lag; n++) await new Promise<void>((resolve) => setImmediate(resolve));
        return startUploaded(fakes.deps, STORE, JOB);
      })();
      const outcomes = await Promise.allSettled([first, second]);
      const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      const lost = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as unknown] : []));
      expect(won, `lag ${lag}`).toHaveLength(1);
      expect(won[0]?.value, `lag ${lag}`).toMatchObject({ jobId: JOB, status: 'queued' });
      expect(lost, `lag ${lag}`).toHaveLength(1);
      expect(lost[0], `lag ${lag}`).toBeInstanceOf(AppError);
      expect(['conflict', 'rate_limited'], `lag ${lag}`).toContain((lost[0] as AppError).kind);
      expect(fakes.enqueued, `lag ${lag}`).toEqual([{ storeId: STORE, jobId: JOB }]);
      expect(fakes.job(), `lag ${lag}`).toMatchObject({ status: 'queued', revision: 2 });
      // The winner's slot stays held: the loser gives back only a claim of its own.
      expect(fakes.slotUntil(), `lag ${lag}`).toBeDefined();
    }
  });
});
