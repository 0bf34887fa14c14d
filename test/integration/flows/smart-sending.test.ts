/**
 * Smart sending end to end on the local runtime (docs/smart-sending.md): the store's settings over HTTP, the frequency
 * cap skipping a second marketing email (the reason in the explain view), a flow that waits for the cap, and quiet
 * hours deferring an email due at 03:00 in the contact's zone to the window's start, in a flow and in a campaign (one
 * contact mailed at once, the other held to 08:00 in its zone). The local clock advance makes the waits pass.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { api } from '#test/support/webhooks.ts';
import {
  address,
  awaitMails,
  definedFlow,
  ensureSender,
  event,
  eventually,
  flowRuns,
  mailsTo,
  newStore,
  SENDER,
  senderOf,
  settled,
  subscribedCustomer,
  type TestStore,
  uid,
} from './engine-support.ts';

let runtime: LocalRuntime;

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
});

afterAll(async () => {
  await runtime?.stop();
});

const H = 3600_000;

/** A marketing flow started by `flow/notify` (consent: anyone not unsubscribed), one email. */
const notifyFlow = (runtime: LocalRuntime, store: TestStore, name: string, extra: Record<string, unknown> = {}) =>
  definedFlow(runtime, store, {
    name,
    trigger: 'custom_notification',
    consent: 'not_unsubscribed',
    steps: [{ type: 'email', id: 'news', from: SENDER, subject: `${name} news`, html: '<p>News</p>' }],
    ...extra,
  });

const putSettings = async (store: TestStore, body: unknown) => {
  const answer = await api(runtime, store.apiKey, 'PUT', '/api/v1/settings/sending', body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body;
};

interface RunView {
  readonly status: string;
  readonly waitUntil?: number;
  readonly events: { type: string; reason?: string; until?: number; detail?: Record<string, unknown> }[];
}

/** The flow's one run, once `ready` holds for it. */
const runOf = (store: TestStore, flowId: string, ready: (run: RunView) => boolean) =>
  eventually(
    `a run of ${flowId}`,
    async () => {
      const [item] = (await flowRuns(runtime, store, flowId)).list;
      const run = item?.run as RunView | undefined;
      return run && ready(run) ? run : undefined;
    },
    60_000,
  );

describe('the settings', () => {
  it('answers the defaults, keeps what a PUT sets, and refuses a bad zone with a 400 naming the field', async () => {
    const store = await newStore('Settings shop');
    const read = await api(runtime, store.apiKey, 'GET', '/api/v1/settings/sending');
    expect(read.body).toEqual({
      code: 200,
      data: { timeZone: 'UTC', frequencyCap: null, quietHours: null, sendingStanding: { state: 'ok' } },
    });
    // What GET answered is a body PUT takes back (the read-only standing is ignored).
    expect(
      (await api(runtime, store.apiKey, 'PUT', '/api/v1/settings/sending', (read.body as { data: object }).data))
        .status,
    ).toBe(200);
    const saved = await putSettings(store, {
      timeZone: 'Europe/Paris',
      frequencyCap: { minHoursBetween: 16, maxPerWeek: 5 },
      quietHours: { start: '21:00', end: '08:00' },
    });
    expect(saved).toMatchObject({
      code: 200,
      data: { timeZone: 'Europe/Paris', frequencyCap: { minHoursBetween: 16, maxPerWeek: 5 } },
    });
    const refused = await api(runtime, store.apiKey, 'PUT', '/api/v1/settings/sending', { timeZone: 'Paris' });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      code: 400,
      message: 'timeZone must be an IANA time zone name, such as Europe/Paris or America/New_York',
    });
    const after = await api(runtime, store.apiKey, 'GET', '/api/v1/settings/sending');
    expect((after.body as { data: { timeZone: string } }).data.timeZone).toBe('Europe/Paris');
  });
});

describe('the frequency cap', () => {
  it('skips a second marketing email within 16 hours, with the reason in the explain view', async () => {
    const store = await newStore('Cap shop');
    await putSettings(store, { frequencyCap: { minHoursBetween: 16 } });
    const first = await notifyFlow(runtime, store, 'First');
    const second = await notifyFlow(runtime, store, 'Second');
    const email = address('capped');
    await event(runtime, store, 'flow/notify', { flow_id: first.id, email });
    await awaitMails(runtime, email);
    await event(runtime, store, 'flow/notify', { flow_id: second.id, email });

    const run = await runOf(store, second.id, (r) => r.status !== 'active');
    expect(run.status).toBe('exited');
    expect(run.events.at(-1)).toMatchObject({
      type: 'exited',
      reason: 'frequency_cap',
      detail: { stepId: 'news', rule: 'min_hours_between', minHoursBetween: 16, sentThisWeek: 1 },
    });
    await settled(runtime);
    expect((await mailsTo(runtime, email)).map((mail) => mail.subject)).toEqual(['First news']);
  });

  it('waits for the cap in a flow that says so, and sends once the 16 hours have passed', async () => {
    const store = await newStore('Patient shop');
    await putSettings(store, { frequencyCap: { minHoursBetween: 16 } });
    const first = await notifyFlow(runtime, store, 'Earlier');
    const patient = await notifyFlow(runtime, store, 'Patient', { onFrequencyCap: 'wait' });
    const email = address('patient');
    await event(runtime, store, 'flow/notify', { flow_id: first.id, email });
    await awaitMails(runtime, email);
    const sentAt = Date.now();
    await event(runtime, store, 'flow/notify', { flow_id: patient.id, email });

    const waiting = await runOf(store, patient.id, (r) => r.status === 'waiting');
    const deferred = waiting.events.at(-1);
    expect(deferred).toMatchObject({ type: 'deferred', reason: 'frequency_cap' });
    // 16 hours after the first email (sent between the event and the mail's arrival).
    expect(deferred?.until).toBeGreaterThan(sentAt + 16 * H - 60_000);
    expect(deferred?.until).toBeLessThanOrEqual(sentAt + 16 * H);
    expect(waiting.waitUntil).toBe(deferred?.until);
    await settled(runtime);
    expect(await mailsTo(runtime, email)).toHaveLength(1);

    await runtime.advanceClock(16 * 3600 + 120);
    const mails = await awaitMails(runtime, email, 2);
    expect(mails.map((mail) => mail.subject).sort()).toEqual(['Earlier news', 'Patient news']);
    const done = await runOf(store, patient.id, (r) => r.status === 'completed');
    expect(done.events.map((e) => e.type)).toEqual(['entered', 'deferred', 'resumed', 'emailed', 'completed']);
  });
});

/** An IANA zone (`Etc/GMT…`, whole hours) in which it is now `hour`:xx. */
const zoneAtHour = (hour: number) => {
  let offset = (((hour - new Date(runtime.clock.now()).getUTCHours()) % 24) + 24) % 24;
  if (offset > 14) offset -= 24;
  // `Etc/GMT-9` is UTC+9: the sign is POSIX's, the opposite of ISO's.
  return offset === 0 ? 'Etc/GMT' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
};

/** An IANA zone in which it is now 03:xx by the runtime's clock, and the next 08:00 there (epoch ms). */
const zoneAtThreeAm = () => ({
  zone: zoneAtHour(3),
  windowStart: Math.floor(runtime.clock.now() / H) * H + 5 * H,
});

describe('quiet hours', () => {
  it('defers a marketing email due at 03:00 in the contact’s zone to 08:00 there, then sends it', async () => {
    const store = await newStore('Quiet shop');
    await putSettings(store, { quietHours: { start: '21:00', end: '08:00' } });
    const flow = await notifyFlow(runtime, store, 'Night');
    const { zone, windowStart } = zoneAtThreeAm();
    const email = address('sleeper');
    // The contact's own zone (sent on the customer as `time_zone`) wins over the store's (UTC here).
    await subscribedCustomer(runtime, store, uid('cust'), email, { time_zone: zone });
    await settled(runtime);
    await event(runtime, store, 'flow/notify', { flow_id: flow.id, email });

    const waiting = await runOf(store, flow.id, (r) => r.status === 'waiting');
    expect(waiting.waitUntil).toBe(windowStart);
    expect(waiting.events.at(-1)).toMatchObject({
      type: 'deferred',
      reason: 'quiet_hours',
      until: windowStart,
      detail: { timeZone: zone, zoneFrom: 'contact', quietHours: { start: '21:00', end: '08:00' } },
    });
    expect(String(waiting.events.at(-1)?.detail?.localTime)).toMatch(/^0[34]:\d\d$/);
    await settled(runtime);
    expect(await mailsTo(runtime, email)).toHaveLength(0);

    await runtime.advanceClock(5 * 3600 + 120);
    const [mail] = await awaitMails(runtime, email);
    expect(mail?.subject).toBe('Night news');
    const done = await runOf(store, flow.id, (r) => r.status === 'completed');
    expect(done.events.map((e) => e.type)).toEqual(['entered', 'deferred', 'resumed', 'emailed', 'completed']);
  });
});

interface CampaignView {
  readonly status: string;
  readonly progress: { recipients: number; queued: number; deferred: number; sent: number };
}

describe('quiet hours in a campaign', () => {
  it('mails a contact at noon at once and holds one at 03:00 to 08:00 in its zone, then sends it once', async () => {
    const store = await newStore('Quiet campaign shop');
    await ensureSender(runtime, store);
    await putSettings(store, { quietHours: { start: '21:00', end: '08:00' } });
    const tag = uid('qh');
    const segment = await api(runtime, store.apiKey, 'POST', '/api/v1/segments', {
      name: 'Night and day',
      conditions: { match: 'all', conditions: [{ field: 'contact.tags', op: 'contains', value: tag }] },
    });
    expect(segment.status, JSON.stringify(segment.body)).toBe(200);
    const segmentId = (segment.body as { data: { id: string } }).data.id;
    const { zone, windowStart } = zoneAtThreeAm();
    const awake = address('awake');
    const sleeper = address('asleep');
    await subscribedCustomer(runtime, store, 'qh-1', awake, { tags: [tag], time_zone: zoneAtHour(12) });
    await subscribedCustomer(runtime, store, 'qh-2', sleeper, { tags: [tag], time_zone: zone });
    await eventually(
      'both contacts in the segment',
      async () => {
        const read = await api(runtime, store.apiKey, 'GET', `/api/v1/segments/${segmentId}`);
        return (read.body as { data?: { count: number } }).data?.count === 2 ? true : undefined;
      },
      60_000,
    );

    const created = await api(runtime, store.apiKey, 'POST', '/api/v1/campaigns', {
      name: 'Night sale',
      segments: [segmentId],
      from: senderOf(store),
      subject: 'Night sale',
      html: '<p>Sale</p>',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const id = (created.body as { data: { id: string } }).data.id;
    const campaign = (ready: (c: CampaignView) => boolean) =>
      eventually(
        `campaign ${id}`,
        async () => {
          const read = await api(runtime, store.apiKey, 'GET', `/api/v1/campaigns/${id}`);
          const view = (read.body as { data?: CampaignView }).data;
          return view && ready(view) ? view : undefined;
        },
        60_000,
      );

    await awaitMails(runtime, awake);
    const walked = await campaign((c) => c.progress.sent === 1 && c.progress.deferred === 1);
    expect(walked).toMatchObject({ status: 'sending', progress: { recipients: 2, queued: 2, deferred: 1, sent: 1 } });
    const recipients = await api(runtime, store.apiKey, 'GET', `/api/v1/campaigns/${id}/recipients`);
    const held = (recipients.body as { data: { list: Record<string, unknown>[] } }).data.list.find(
      (r) => r.email === sleeper,
    );
    expect(held).toMatchObject({
      status: 'deferred',
      reason: 'quiet_hours',
      until: windowStart / 1000,
      timeZone: zone,
      zoneFrom: 'contact',
    });
    expect(String(held?.localTime)).toMatch(/^0[34]:\d\d$/);
    expect(await mailsTo(runtime, sleeper)).toHaveLength(0);

    await runtime.advanceClock(5 * 3600 + 120);
    const [mail] = await awaitMails(runtime, sleeper);
    expect(mail?.subject).toBe('Night sale');
    const done = await campaign((c) => c.status === 'sent');
    expect(done.progress).toMatchObject({ recipients: 2, queued: 2, deferred: 1, sent: 2 });
    expect(await mailsTo(runtime, sleeper)).toHaveLength(1);
    expect(await mailsTo(runtime, awake)).toHaveLength(1);
  });
});
