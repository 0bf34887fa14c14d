/**
 * Starting a direct upload (`startImport`, `POST /api/v1/batch/customers`), unit level with in-memory ports: a start
 * that fails after claiming the store's import slot gives the slot back, so the client's retry is not held off 10
 * seconds with 429; and when the enqueue fails after the job was saved `queued`, the job (whose id the client never
 * got) ends `FAIL` with the reason instead of staying `queued` forever, and the retry makes a job that runs.
 */
import { describe, expect, it } from 'vitest';
import { startImport } from '#shared/domain/imports/start-import.ts';
import type { AuthenticatedStore } from '#shared/domain/stores/model.ts';
import { IMPORT_STORE, startFakes } from '#test/support/memory/imports.ts';

const STORE: AuthenticatedStore = { storeId: IMPORT_STORE, type: 'direct' };
const FILE = { filename: 'customers.jsonl', content: Buffer.from('{"id":"c1","email":"a@example.com"}\n') };

/** The rejection of `promise` (failing the test when it resolves). */
const rejectionOf = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
};

describe('startImport', () => {
  it('queues a new job and holds the store’s slot', async () => {
    const fakes = startFakes();
    const view = await startImport(fakes.deps, STORE, FILE);
    expect(view).toMatchObject({ status: 'queued' });
    expect(fakes.otherJobs()).toEqual([expect.objectContaining({ id: view.jobId, status: 'queued', revision: 1 })]);
    expect(fakes.enqueued).toEqual([{ storeId: IMPORT_STORE, jobId: view.jobId }]);
    expect(fakes.slotUntil()).toBeDefined();
  });

  it('gives the slot back when the file cannot be stored, and passes the failure on', async () => {
    const fakes = startFakes();
    const boom = new Error('bucket unavailable');
    fakes.deps.files.put = async () => {
      throw boom;
    };
    expect(await rejectionOf(startImport(fakes.deps, STORE, FILE))).toBe(boom);
    expect(fakes.slotUntil()).toBeUndefined();
    expect(fakes.otherJobs()).toEqual([]);
    expect(fakes.enqueued).toEqual([]);
  });

  it('gives the slot back when the job cannot be saved, and passes the failure on', async () => {
    const fakes = startFakes();
    const boom = new Error('table unavailable');
    fakes.deps.jobs.save = async () => {
      throw boom;
    };
    expect(await rejectionOf(startImport(fakes.deps, STORE, FILE))).toBe(boom);
    expect(fakes.slotUntil()).toBeUndefined();
    expect(fakes.enqueued).toEqual([]);
  });

  it('when the enqueue fails: the job ends FAIL with the reason, announced by bulk_operations/finish, the slot is given back, the retry queues a new job', async () => {
    const fakes = startFakes();
    const boom = new Error('queue unavailable');
    const enqueue = fakes.deps.queue.enqueue;
    fakes.deps.queue.enqueue = async () => {
      throw boom;
    };
    expect(await rejectionOf(startImport(fakes.deps, STORE, FILE))).toBe(boom);
    const [failed] = fakes.otherJobs();
    expect(failed).toMatchObject({
      status: 'finished',
      result: 'FAIL',
      errors: [{ line: 0, reason: 'the import could not be queued; nothing was imported: send the file again' }],
      revision: 2,
    });
    expect(failed?.finishedAt).toBeDefined();
    expect(fakes.emitted).toEqual([
      {
        storeId: IMPORT_STORE,
        topic: 'bulk_operations/finish',
        body: { endpoint: 'customers', status: 'FAIL' },
        eventId: `import#${failed?.id}`,
      },
    ]);
    expect(fakes.slotUntil()).toBeUndefined();

    fakes.deps.queue.enqueue = enqueue;
    const retried = await startImport(fakes.deps, STORE, FILE);
    expect(retried).toMatchObject({ status: 'queued' });
    expect(fakes.enqueued).toEqual([{ storeId: IMPORT_STORE, jobId: retried.jobId }]);
  });

  it('when the enqueue fails and so does the announcement, still ends the job FAIL and passes the enqueue failure on', async () => {
    const fakes = startFakes();
    const boom = new Error('queue unavailable');
    fakes.deps.queue.enqueue = async () => {
      throw boom;
    };
    fakes.deps.webhooks.emit = async () => {
      throw new Error('webhook queue unavailable too');
    };
    expect(await rejectionOf(startImport(fakes.deps, STORE, FILE))).toBe(boom);
    expect(fakes.otherJobs()).toEqual([expect.objectContaining({ status: 'finished', result: 'FAIL' })]);
    expect(fakes.slotUntil()).toBeUndefined();
  });

  it('when the enqueue fails but the job already changed (a message did go out and the worker took it), leaves it and the slot', async () => {
    const fakes = startFakes();
    const boom = new Error('queue timed out');
    fakes.deps.queue.enqueue = async (storeId, jobId) => {
      const job = fakes.otherJobs().find((candidate) => candidate.id === jobId);
      if (!job) throw new Error('no job');
      await fakes.deps.jobs.save({ ...job, status: 'running', revision: job.revision + 1 }, job.revision);
      expect(storeId).toBe(IMPORT_STORE);
      throw boom;
    };
    expect(await rejectionOf(startImport(fakes.deps, STORE, FILE))).toBe(boom);
    expect(fakes.otherJobs()).toEqual([expect.objectContaining({ status: 'running', revision: 2 })]);
    expect(fakes.slotUntil()).toBeDefined();
    expect(fakes.emitted).toEqual([]);
  });
});
