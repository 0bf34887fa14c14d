/**
 * In-memory doubles of the imports area's ports (`shared/domain/imports/ports.ts`) and of the contact writes an import
 * makes, for unit tests of `runImport`. The file port reads through the real line reader (`readLines`), as the S3
 * adapter does, fed the file in small chunks. `startFakes` holds the ports of starting an uploaded job (`startUploaded`).
 */
import { expect } from 'vitest';
import type { Customer } from '#shared/domain/customers/model.ts';
import { readLines } from '#shared/domain/imports/line-reader.ts';
import type { ImportJob } from '#shared/domain/imports/model.ts';
import type { RunImportDeps } from '#shared/domain/imports/run-import.ts';
import type { ImportDeps } from '#shared/domain/imports/start-import.ts';
import { RevisionConflict } from '#shared/domain/repository.ts';

export const IMPORT_STORE = 'st_import_unit';
export const IMPORT_JOB = 'im_import_unit';
export const IMPORT_FILE_KEY = `${IMPORT_STORE}/${IMPORT_JOB}.jsonl`;

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** `bytes` as a stream of `chunkBytes` chunks from `offset`, each handed over after a tick, as a network stream is. */
async function* chunksOf(bytes: Buffer, offset: number, chunkBytes: number) {
  for (let at = offset; at < bytes.length; at += chunkBytes) {
    await Promise.resolve();
    yield bytes.subarray(at, Math.min(bytes.length, at + chunkBytes));
  }
}

export interface ImportFakeOptions {
  /** Size of the chunks the file arrives in (default 64 bytes: lines cross chunk ends). */
  readonly chunkBytes?: number;
  /** Called for every line the file port yields (continuation tests count them). */
  readonly onLine?: () => void;
}

/** The ports of `runImport` in memory, a queued job for `bytes`, and what they were asked. */
export const importFakes = (bytes: Buffer, options: ImportFakeOptions = {}) => {
  const jobs = new Map<string, ImportJob>();
  const contacts = new Map<string, Customer>();
  const customerSaves: { originId: string; expectedRevision: number }[] = [];
  const enqueued: { storeId: string; jobId: string }[] = [];
  const emitted: { topic: string; body: Record<string, unknown>; eventId: string }[] = [];
  const readFrom: number[] = [];
  let contactSeq = 0;

  const deps: RunImportDeps = {
    files: {
      put: async () => undefined,
      async *lines(key, offset) {
        expect(key).toBe(IMPORT_FILE_KEY);
        readFrom.push(offset);
        for await (const line of readLines(chunksOf(bytes, offset, options.chunkBytes ?? 64), offset)) {
          options.onLine?.();
          yield line;
        }
      },
      uploadUrl: async () => 'unused',
      size: async () => bytes.length,
    },
    jobs: {
      get: async (storeId, id) => {
        const job = jobs.get(`${storeId}#${id}`);
        return job && structuredClone(job);
      },
      save: async (job, expectedRevision) => {
        await tick();
        const current = jobs.get(`${job.storeId}#${job.id}`);
        if ((current?.revision ?? 0) !== expectedRevision) throw new RevisionConflict('job');
        jobs.set(`${job.storeId}#${job.id}`, structuredClone(job));
      },
      listForStore: async (storeId, page) => ({
        items: [...jobs.values()]
          .filter((job) => job.storeId === storeId)
          .sort((a, b) => b.createdAt - a.createdAt)
          .slice(0, page.limit)
          .map((job) => structuredClone(job)),
      }),
    },
    queue: {
      enqueue: async (storeId, jobId) => {
        enqueued.push({ storeId, jobId });
      },
    },
    customers: {
      get: async (storeId, originId) => {
        await tick();
        const contact = contacts.get(`${storeId}#${originId}`);
        return contact && structuredClone(contact);
      },
      save: async (contact, expectedRevision) => {
        await tick();
        const key = `${contact.storeId}#${contact.originId}`;
        if ((contacts.get(key)?.revision ?? 0) !== expectedRevision) throw new RevisionConflict('customer');
        customerSaves.push({ originId: contact.originId, expectedRevision });
        contacts.set(key, structuredClone(contact));
      },
    },
    webhooks: {
      emit: async (_storeId, topic, body, eventId) => {
        emitted.push({ topic, body, eventId });
      },
    },
    clock: { now: () => Date.now() },
    newContactId: () => `ct_${String(++contactSeq).padStart(20, '0')}`,
  };

  jobs.set(`${IMPORT_STORE}#${IMPORT_JOB}`, {
    storeId: IMPORT_STORE,
    id: IMPORT_JOB,
    endpoint: 'customers',
    storeType: 'direct',
    status: 'queued',
    fileKey: IMPORT_FILE_KEY,
    counts: { lines: 0, imported: 0, created: 0, failed: 0 },
    errors: [],
    createdAt: Date.now(),
    updatedAt: Date.now(),
    revision: 1,
  });

  return {
    deps,
    job: () => structuredClone(jobs.get(`${IMPORT_STORE}#${IMPORT_JOB}`) as ImportJob),
    contact: (originId: string) => contacts.get(`${IMPORT_STORE}#${originId}`),
    contacts,
    customerSaves,
    enqueued,
    emitted,
    readFrom,
  };
};

/** The message that runs the fakes' job. */
export const importMessage = { storeId: IMPORT_STORE, jobId: IMPORT_JOB } as const;

/** What a start-fakes hook may do to the stored job (as another request would). */
export interface StartFakeHooks {
  /** Called inside `files.size`, between the use case's read of the job and its slot claim and write. */
  readonly onSize?: (store: { job: () => ImportJob; set: (job: ImportJob) => void }) => void;
}

/**
 * The ports of `startUploaded` in memory: an `uploading` job whose file was uploaded, the store's import slot (with the
 * adapter's semantics: free when absent or lapsed; a release frees only the claim whose id it is given), and what was queued.
 * They serve a direct upload (`startImport`) too: its new job is among `otherJobs()`.
 */
export const startFakes = (hooks: StartFakeHooks = {}) => {
  const key = `${IMPORT_STORE}#${IMPORT_JOB}`;
  const jobs = new Map<string, ImportJob>();
  const slots = new Map<string, { until: number; claimId: string }>();
  let claimSeq = 0;
  const enqueued: { storeId: string; jobId: string }[] = [];
  const emitted: { storeId: string; topic: string; body: Record<string, unknown>; eventId: string }[] = [];
  let now = 1_700_000_000_000;
  const bytes = 100;
  const stored = {
    job: () => structuredClone(jobs.get(key) as ImportJob),
    set: (job: ImportJob) => jobs.set(key, job),
  };

  const deps: ImportDeps = {
    files: {
      put: async () => undefined,
      lines: () => {
        throw new Error('not read by a start');
      },
      uploadUrl: async () => 'unused',
      size: async () => {
        await tick();
        hooks.onSize?.(stored);
        return bytes;
      },
    },
    jobs: {
      get: async (storeId, id) => {
        await tick();
        const job = jobs.get(`${storeId}#${id}`);
        return job && structuredClone(job);
      },
      save: async (job, expectedRevision) => {
        await tick();
        const current = jobs.get(`${job.storeId}#${job.id}`);
        if ((current?.revision ?? 0) !== expectedRevision) throw new RevisionConflict('importJob');
        jobs.set(`${job.storeId}#${job.id}`, structuredClone(job));
      },
      listForStore: async () => ({ items: [] }),
    },
    queue: {
      enqueue: async (storeId, jobId) => {
        await tick();
        enqueued.push({ storeId, jobId });
      },
    },
    throttle: {
      claim: async (storeId, seconds) => {
        await tick();
        const held = slots.get(storeId);
        if (held !== undefined && held.until > now) return { claimed: false, retryAfterSeconds: seconds };
        const claimId = `claim-${++claimSeq}`;
        slots.set(storeId, { until: now + seconds * 1000, claimId });
        return { claimed: true, claimId };
      },
      release: async (storeId, claimId) => {
        await tick();
        if (slots.get(storeId)?.claimId === claimId) slots.delete(storeId);
      },
    },
    webhooks: {
      emit: async (storeId, topic, body, eventId) => {
        emitted.push({ storeId, topic, body, eventId });
      },
    },
    clock: { now: () => now },
  };

  jobs.set(key, {
    storeId: IMPORT_STORE,
    id: IMPORT_JOB,
    endpoint: 'customers',
    storeType: 'direct',
    status: 'uploading',
    fileKey: IMPORT_FILE_KEY,
    uploadBytes: bytes,
    counts: { lines: 0, imported: 0, created: 0, failed: 0 },
    errors: [],
    createdAt: now,
    updatedAt: now,
    revision: 1,
  });

  return {
    deps,
    job: stored.job,
    /** Every stored job of the store but the fakes' own uploading one (those a direct upload made). */
    otherJobs: () => [...jobs.entries()].filter(([at]) => at !== key).map(([, job]) => structuredClone(job)),
    enqueued,
    /** Webhook events emitted by a start (a direct upload's job that ended FAIL before it ran). */
    emitted,
    /** Until when the store's slot is held (epoch ms), or undefined when free. */
    slotUntil: () => {
      const held = slots.get(IMPORT_STORE);
      return held !== undefined && held.until > now ? held.until : undefined;
    },
    /** Holds the store's slot, as another import just started would. */
    holdSlot: (seconds = 10) => slots.set(IMPORT_STORE, { until: now + seconds * 1000, claimId: 'another import' }),
    advance: (ms: number) => {
      now += ms;
    },
  };
};
