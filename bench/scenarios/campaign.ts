/**
 * Campaign scenario: "a campaign of 100,000 recipients fully queued to SES at the configured rate (SES
 * calls = recipients / 50)". One local runtime (in memory, random ports), one store with a verified sending domain
 * and one segment; `--count` contacts (default 20,000; the 100,000 with `--count campaign=100000`, about 3
 * minutes alone) are seeded straight into the table as subscribed members of the segment (a segment's build is
 * measured elsewhere: this is the send), then:
 *
 * 1. `POST /api/v1/campaigns` to the segment, due now, timed to its answer;
 * 2. the local SES front announces every mail aws-ses-v2-local stored; the time from the request to the last mail of
 *    the campaign is the time to fully queue it to SES. It includes the walk (pages of 1,000: recipient claims and one
 *    send batch each), the send worker's chunks of 50 and the pacer, which holds one store to half the account rate
 *    (`STORE_SHARE`) and marketing to the rate minus the transactional reserve: the floor of that time is
 *    recipients / min(rate × 0.5, rate − reserve).
 *
 * The runtime publishes no Delivery event per mail here (`simulateDeliveries: false`): deployed, the email-events
 * worker runs on Lambdas of its own; locally its calls for every mail took more of the two cores than the send path
 * (docs/campaigns.md, "Figures").
 *
 * Reported: `SendBulkEmail` calls against recipients / 50, mails per address (each exactly once), the time to fully
 * queue against the configured rate's floor, and the campaign's own `sent` count once its chunks are recorded.
 * The rate is `SES_SEND_RATE_PER_SECOND` when set, else 2,000/s for this scenario (the local default of 500/s would
 * take over 6 minutes for 100,000 at one store's share).
 */

import { randomUUID } from 'node:crypto';
import { profiled } from '#bench/lib/profile.ts';
import { round } from '#bench/lib/stats.ts';
import type { Metric, Result, Scenario, ScenarioOptions } from '#bench/scenario.ts';
import type { LocalSentMail } from '#local/emulators/ses-proxy.ts';
import { startLocalRuntime } from '#local/runtime.ts';
import { batchPut } from '#shared/adapters/dynamodb/batch.ts';
import { customerItem } from '#shared/adapters/dynamodb/customer.repository.ts';
import { itemMeta, keys } from '#shared/adapters/dynamodb/keys.ts';
import { ENV } from '#shared/config.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import { EMAIL_TAGS } from '#shared/domain/email/model.ts';
import { slotLimits } from '#shared/domain/email/pacing.ts';
import { createStore } from '#shared/domain/stores/manage-stores.ts';
import { storeAdminDeps } from '#shared/wiring/store-admin.ts';

/**
 * Every target is per recipient (calls ≤ recipients / 50, each mailed once, the campaign's own count): 20,000 show
 * them as well as the 100,000, in a fifth of the time (the send alone is paced at one store's share of the
 * rate, 100 s for 100,000), which keeps the whole bench within 10 minutes.
 */
const DEFAULT_RECIPIENTS = 20_000;
const DEFAULT_RATE = 2000;
const DOMAIN = 'bench-campaign.example';
const TAG = 'bench-campaign';
/** Seeded per batch of writes (keeps the seeding's memory flat). */
const SEED_SLICE = 5_000;

const contactAt = (storeId: string, i: number): Customer => ({
  storeId,
  id: `ct_${randomUUID().replaceAll('-', '').slice(0, 20)}`,
  originId: `b-${String(i).padStart(7, '0')}`,
  email: `r${i}@recipients.bench-campaign.example`,
  firstName: `P${i}`,
  emailConsent: { state: 'subscribed' },
  platformTags: [TAG],
  categoryTags: [],
  attributes: {},
  createdAt: 1_700_000_000 + i,
  updatedAt: Date.now(),
  revision: 1,
});

export const campaign: Scenario = {
  name: 'campaign',
  description:
    'a 20,000-recipient campaign (--count, the issue: 100,000): SES calls vs recipients / 50, time to fully queue vs the configured rate',
  async run(options: ScenarioOptions): Promise<Result> {
    const recipients = options.count ?? DEFAULT_RECIPIENTS;
    process.env[ENV.sesSendRatePerSecond] ??= String(DEFAULT_RATE);
    const rate = Number(process.env[ENV.sesSendRatePerSecond]);
    const limits = slotLimits(rate, 'marketing');
    const storeRate = Math.min(limits.account, limits.store);
    // No simulated Delivery event per mail: deployed, the email-events worker has Lambdas of its own; here its
    // reads and writes for each mail would take a share of the same two cores as the walk and the send worker.
    const runtime = await startLocalRuntime({ logLevel: 'ERROR', simulateDeliveries: false });
    try {
      const { apiKey, store } = await createStore(storeAdminDeps(), { name: 'Bench campaign', type: 'direct' });
      const { storeId } = store;
      const headers = { 'content-type': 'application/json', 'x-service-access-token': apiKey };
      const call = async (method: string, path: string, body?: unknown) => {
        const response = await fetch(`${runtime.urls.main}${path}`, {
          method,
          headers,
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: response.status, json: (await response.json()) as { data: Record<string, unknown> } };
      };
      const sender = await call('POST', '/api/v1/senders', { domain: DOMAIN });
      if (sender.status !== 200) throw new Error(`registering ${DOMAIN}: ${sender.status}`);
      // Built while the store has no contacts: ready at once. Its members are then seeded with the contacts.
      const segment = await call('POST', '/api/v1/segments', {
        name: 'Everyone',
        conditions: { match: 'all', conditions: [{ field: 'contact.tags', op: 'contains', value: TAG }] },
      });
      const segmentId = String(segment.json.data.id);
      for (let tries = 0; ; tries++) {
        if ((await call('GET', `/api/v1/segments/${segmentId}`)).json.data.status === 'ready') break;
        if (tries > 200) throw new Error('the segment was not built');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const seedStart = performance.now();
      for (let start = 0; start < recipients; start += SEED_SLICE) {
        const contacts = Array.from({ length: Math.min(SEED_SLICE, recipients - start) }, (_, k) =>
          contactAt(storeId, start + k),
        );
        // The contact items and their memberships in one stream of batch writes (25 items each, 8 in flight). Only
        // what the walk reads: the contacts (by id) and the segment's members; not the search lookups or the export
        // counters `seedContacts` also writes, which no part of a campaign reads.
        await batchPut([
          ...contacts.map(customerItem),
          ...contacts.map((c) => ({
            ...keys.segmentMember(storeId, segmentId, c.originId),
            ...itemMeta('segmentMember'),
            customerId: c.originId,
            email: c.email,
            enteredAt: 1_700_000_000,
          })),
        ]);
      }
      options.log(
        `campaign: seeded ${recipients} subscribed members in ${round((performance.now() - seedStart) / 1000, 1)} s`,
      );

      const perAddress = new Map<string, number>();
      let last = 0;
      let first = 0;
      let allIn: () => void = () => undefined;
      const arrived = new Promise<void>((resolve) => {
        allIn = resolve;
      });
      runtime.ses.onSent((mails: LocalSentMail[]) => {
        const now = performance.now();
        for (const mail of mails) {
          if (!mail.tags[EMAIL_TAGS.campaign]) continue;
          first ||= now;
          last = now;
          for (const to of mail.to) perAddress.set(to, (perAddress.get(to) ?? 0) + 1);
        }
        if (perAddress.size >= recipients) allIn();
      });

      const sesBefore = runtime.sesCalls().SendBulkEmail ?? 0;
      const started = performance.now();
      const created = await call('POST', '/api/v1/campaigns', {
        name: 'Bench campaign',
        segments: [segmentId],
        from: { email: `news@${DOMAIN}`, name: 'Bench' },
        subject: 'Hello {{ contact.first_name }}',
        html: '<p>Hello {{ contact.first_name }}, 20% off this week. <a href="{{ unsubscribe_url }}">Unsubscribe</a></p>',
      });
      const answered = performance.now();
      if (created.status !== 202) throw new Error(`campaign: ${created.status} ${JSON.stringify(created.json)}`);
      const campaignId = String(created.json.data.id);
      const limitMs = Math.max(1_200_000, (recipients / storeRate) * 10_000);
      // Walked (handed to the send path) against sent: which of the two sets the pace.
      const walked: { atMs: number; queued: number; inSes: number }[] = [];
      const progress = setInterval(() => {
        void call('GET', `/api/v1/campaigns/${campaignId}`).then(({ json }) => {
          const queued = Number((json.data.progress as { queued?: number } | undefined)?.queued ?? 0);
          walked.push({ atMs: round(performance.now() - started), queued, inSes: perAddress.size });
          options.log(`campaign: ${queued} walked, ${perAddress.size} of ${recipients} mails in SES`);
        });
      }, 10_000);
      // Cleared once the mails are in: a pending 20-minute timer kept the process alive after its report, so run with
      // other scenarios (each in its own process) this one was killed at the scenario limit however fast it was.
      let giveUp: NodeJS.Timeout | undefined;
      try {
        await profiled(options.profile, 'campaign-send', () =>
          Promise.race([
            arrived,
            new Promise((_, reject) => {
              giveUp = setTimeout(
                () => reject(new Error(`${perAddress.size} of ${recipients} mails after ${limitMs} ms`)),
                limitMs,
              );
            }),
          ]),
        );
      } finally {
        clearTimeout(giveUp);
        clearInterval(progress);
      }
      const queuedMs = last - started;
      const sendBulkCalls = (runtime.sesCalls().SendBulkEmail ?? 0) - sesBefore;
      let view: Record<string, unknown> = {};
      for (let tries = 0; tries < 400; tries++) {
        view = (await call('GET', `/api/v1/campaigns/${campaignId}`)).json.data;
        if (view.status === 'sent') break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const once = [...perAddress.values()].filter((n) => n === 1).length;
      const floorMs = (recipients / storeRate) * 1000;
      options.log(
        `campaign: ${perAddress.size} mails in ${round(queuedMs / 1000, 1)} s (floor ${round(floorMs / 1000, 1)} s at ${storeRate}/s), ${sendBulkCalls} SendBulkEmail calls`,
      );

      const metrics: Metric[] = [
        {
          key: 'sendBulkCalls',
          label: `SendBulkEmail calls for ${recipients} recipients`,
          value: sendBulkCalls,
          unit: '',
          target: { op: '<=', value: Math.ceil(recipients / 50) },
        },
        {
          key: 'recipientsOnce',
          label: 'Recipients with exactly one mail',
          value: once,
          unit: '',
          target: { op: '>=', value: recipients },
        },
        {
          key: 'answerMs',
          label: 'POST /api/v1/campaigns: response time',
          value: round(answered - started),
          unit: 'ms',
        },
        {
          key: 'firstInSesMs',
          label: 'Request → first mail in the local SES',
          value: round(first - started),
          unit: 'ms',
        },
        { key: 'queuedMs', label: 'Request → every mail in the local SES', value: round(queuedMs), unit: 'ms' },
        {
          key: 'floorMs',
          label: "The configured rate's floor for that (recipients / store rate)",
          value: round(floorMs),
          unit: 'ms',
        },
        {
          key: 'rateShare',
          label: "Mails per second reached, as a share of the store's configured rate",
          value: round(recipients / (queuedMs / 1000) / storeRate, 3),
          unit: '',
        },
        {
          key: 'campaignSent',
          label: "The campaign's own sent count once its chunks are recorded",
          value: Number((view.progress as { sent?: number } | undefined)?.sent ?? 0),
          unit: '',
          target: { op: '>=', value: recipients },
        },
      ];
      return {
        scenario: 'campaign',
        title: `Campaign: ${recipients} recipients fully queued to the local SES`,
        metrics,
        notes: [
          `SES_SEND_RATE_PER_SECOND ${rate}: marketing may use ${limits.account}/s, one store ${limits.store}/s, so one campaign ${storeRate}/s`,
          'The members are seeded into the table as the segment build would write them; the walk reads them a page (1,000) at a time.',
          'No Delivery event is simulated per mail (deployed, the email-events worker runs on Lambdas of its own): the walk and the send worker have the two cores.',
        ],
        details: {
          campaign: view,
          progress: walked,
          sesCalls: runtime.sesCalls(),
          // What the one process spent its time on: handler invocations (count, summed ms) and DynamoDB calls.
          invocations: runtime.invocations(),
          dynamodbCalls: runtime.dynamodbCalls(),
        },
      };
    } finally {
      await runtime.stop();
    }
  },
};
