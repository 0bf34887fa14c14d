/**
 * A campaign killed during its walk comes back within minutes, not after its queue's twelve-minute timeout: the local
 * runtime runs in a child process on its own state (`child-runtime.ts`), a campaign to 3,000 subscribed contacts is
 * created, the child gets SIGKILL as soon as the campaign is sending, and is started again on the same state. The
 * campaign queue keeps the catalog's timeout; the pass's heartbeat (a minute at a time, `WORK_HEARTBEAT`) is what brings
 * the walk back. Then every recipient is sent to, from the position recorded on the campaign.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { WORK_HEARTBEAT } from '#shared/catalog/queues.ts';
import { newStore } from '#test/support/local.ts';
import { type ChildInfo, childRuntime } from './child-runtime.ts';
import { sleep } from './support.ts';

const CONTACTS = 3000;

let runtime: Awaited<ReturnType<typeof childRuntime>>;

beforeAll(async () => {
  runtime = await childRuntime({});
});

afterAll(async () => {
  await runtime?.dispose();
});

interface Campaign {
  readonly status: string;
  readonly progress: { recipients: number; queued: number; sent: number; failed: number; skipped: number };
}

const call = async (info: ChildInfo, apiKey: string, method: string, path: string, body?: unknown) => {
  try {
    const response = await fetch(`${info.urls.main}${path}`, {
      method,
      headers: {
        'x-service-access-token': apiKey,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as { data?: Record<string, unknown> } };
  } catch {
    return { status: 0, body: {} };
  }
};

const until = async <T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> => {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(100);
  }
};

it('resumes a campaign killed during its walk within the heartbeat, every recipient sent to', async () => {
  let info = await runtime.start();
  Object.assign(process.env, info.env);
  const store = await newStore('Campaign kill');
  const domain = `${store.storeId.toLowerCase().replace(/[^a-z0-9]/g, '-')}.acme.example`;
  expect((await call(info, store.apiKey, 'POST', '/api/v1/senders', { domain })).status).toBe(200);

  const lines = Array.from({ length: CONTACTS }, (_, i) =>
    JSON.stringify({
      id: `ck-${i}`,
      email: `ck${i}@example.com`,
      created_at: 1_700_000_000,
      first_name: 'Kim',
      email_marketing_consent: { state: 'subscribed' },
      tags: ['kill'],
    }),
  ).join('\n');
  const form = new FormData();
  form.append('dataFile', new Blob([lines], { type: 'application/x-ndjson' }), 'customers.jsonl');
  const posted = await fetch(`${info.urls.main}/api/v1/batch/customers?append=update`, {
    method: 'POST',
    headers: { 'x-service-access-token': store.apiKey },
    body: form,
  });
  const postedBody = (await posted.json()) as { data: { jobId: string } };
  expect(posted.status, JSON.stringify(postedBody)).toBe(200);
  const jobId = postedBody.data.jobId;
  await until('import finished', 300_000, async () => {
    const job = (await call(info, store.apiKey, 'GET', `/api/v1/batch/${jobId}`)).body.data;
    return job?.status === 'finished' ? job : undefined;
  });
  const segment = await call(info, store.apiKey, 'POST', '/api/v1/segments', {
    name: 'Everyone',
    conditions: { match: 'all', conditions: [{ field: 'contact.tags', op: 'contains', value: 'kill' }] },
  });
  expect(segment.status, JSON.stringify(segment.body)).toBe(200);
  const segmentId = String(segment.body.data?.id);
  await until('segment built', 300_000, async () => {
    const count = (await call(info, store.apiKey, 'GET', `/api/v1/segments/${segmentId}`)).body.data?.count;
    return count === CONTACTS ? true : undefined;
  });

  const created = await call(info, store.apiKey, 'POST', '/api/v1/campaigns', {
    from: { email: `shop@${domain}`, name: 'Acme' },
    name: 'Kill',
    subject: 'Sale',
    html: '<p>Hello</p>',
    text: 'Hello',
    segments: [segmentId],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  const campaignId = String(created.body.data?.id);
  const read = async () =>
    (await call(info, store.apiKey, 'GET', `/api/v1/campaigns/${campaignId}`)).body.data as Campaign | undefined;

  // Killed as soon as the walk is under way, before it has reached every recipient.
  const atKill = await until('campaign sending', 120_000, async () => {
    const campaign = await read();
    return campaign?.status === 'sending' ? campaign : undefined;
  });
  await runtime.kill('SIGKILL');
  const killedAt = Date.now();
  if (atKill.progress.recipients >= CONTACTS && atKill.progress.queued === 0) {
    throw new Error(`the walk ended before the kill; make it longer: ${JSON.stringify(atKill)}`);
  }

  info = await runtime.start();
  let campaign: Campaign | undefined;
  for (;;) {
    campaign = await read();
    if (campaign?.status === 'sent' && campaign.progress.sent + campaign.progress.failed >= CONTACTS) break;
    // Without the heartbeat the message stays hidden for the queue's twelve minutes: give up long before. The bound:
    // the heartbeat's minute and the rest of the send, with room for a loaded machine.
    if (Date.now() - killedAt > WORK_HEARTBEAT.seconds * 1000 + 180_000) {
      throw new Error(`the campaign did not resume: ${JSON.stringify({ atKill, campaign })}`);
    }
    await sleep(1000);
  }
  expect(campaign.progress).toMatchObject({ recipients: CONTACTS, sent: CONTACTS, failed: 0 });
  console.log(
    `campaign killed at ${JSON.stringify(atKill.progress)}, sent to all ${Math.round((Date.now() - killedAt) / 1000)} s after the kill`,
  );
}, 600_000);
