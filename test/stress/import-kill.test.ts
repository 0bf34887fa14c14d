/**
 * An import killed mid-run comes back within minutes, not after its queue's half-hour timeout: the local runtime runs in
 * a child process on its own state (`child-runtime.ts`), a 20,000-line import is posted, the child gets SIGKILL once
 * the job has made progress, and is started again on the same state. The import queue keeps the catalog's timeout
 * (30 minutes); the run's heartbeat (a minute at a time, `WORK_HEARTBEAT`) is what brings the job back. Then the job
 * finishes from its last saved place with every line counted once, within the heartbeat's minute plus the import's
 * own time.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { WORK_HEARTBEAT } from '#shared/catalog/queues.ts';
import { newStore } from '#test/support/local.ts';
import { type ChildInfo, childRuntime } from './child-runtime.ts';
import { sleep } from './support.ts';

const LINES = 20_000;

let runtime: Awaited<ReturnType<typeof childRuntime>>;

beforeAll(async () => {
  runtime = await childRuntime({});
});

afterAll(async () => {
  await runtime?.dispose();
});

interface Job {
  readonly status: string;
  readonly counts: { lines: number; imported: number; created: number; failed: number };
}

const jobOf = async (info: ChildInfo, apiKey: string, jobId: string): Promise<Job | undefined> => {
  try {
    const response = await fetch(`${info.urls.main}/api/v1/batch/${jobId}`, {
      headers: { 'x-service-access-token': apiKey },
    });
    return ((await response.json()) as { data: Job }).data;
  } catch {
    return undefined;
  }
};

it('resumes an import killed mid-run within the heartbeat, from its saved place, every line once', async () => {
  let info = await runtime.start();
  Object.assign(process.env, info.env);
  const store = await newStore('Import kill');
  const lines = Array.from({ length: LINES }, (_, i) =>
    JSON.stringify({ id: `k-${i}`, email: `k${i}@example.com`, created_at: 1_700_000_000, first_name: 'Kim' }),
  ).join('\n');
  const form = new FormData();
  form.append('dataFile', new Blob([lines], { type: 'application/x-ndjson' }), 'customers.jsonl');
  const posted = await fetch(`${info.urls.main}/api/v1/batch/customers?append=update`, {
    method: 'POST',
    headers: { 'x-service-access-token': store.apiKey },
    body: form,
  });
  const jobId = ((await posted.json()) as { data: { jobId: string } }).data.jobId;

  // Killed once the run is under way (its progress saved at least once), well before it ends.
  for (let job = await jobOf(info, store.apiKey, jobId); (job?.counts.imported ?? 0) < 1000; ) {
    if (job?.status === 'finished') throw new Error('the import finished before the kill; make it longer');
    await sleep(100);
    job = await jobOf(info, store.apiKey, jobId);
  }
  await runtime.kill('SIGKILL');
  const killedAt = Date.now();

  info = await runtime.start();
  let job: Job | undefined;
  for (;;) {
    job = await jobOf(info, store.apiKey, jobId);
    if (job?.status === 'finished') break;
    // Without the heartbeat the message stays hidden for the queue's 30 minutes: give up long before. The bound: the
    // heartbeat's minute and the rest of the import (some 20 s here), with room for a loaded machine.
    if (Date.now() - killedAt > WORK_HEARTBEAT.seconds * 1000 + 180_000) {
      throw new Error(`the import did not resume: ${JSON.stringify(job)}`);
    }
    await sleep(1000);
  }
  // Lines written after the last saved place and before the kill are written again, as updates.
  expect(job.counts).toMatchObject({ lines: LINES, imported: LINES, failed: 0 });
  expect(job.counts.created).toBeLessThanOrEqual(LINES);
  console.log(`import resumed and finished ${Math.round((Date.now() - killedAt) / 1000)} s after the kill`);
});
