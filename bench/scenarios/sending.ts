/**
 * Sending scenario: the bulk email send of the issue ("the response time of a 2,000-recipient call and the time until
 * all mails reach the local SES"). One local runtime (in memory, random ports), one process, one store with a
 * registered (locally verified) sending domain, then `--count` runs (default 3), one after another:
 *
 * 1. `POST {sending}/api/v1/sending` with 2,000 recipients, each with its own substitution data (a name and a code),
 *    timed from the request to the HTTP answer: validation, the suppression read, ~80 batch writes of the recipients,
 *    the batch item, one SQS message;
 * 2. the local SES front announces each mail aws-ses-v2-local stored (`runtime.ses.onSent`); the time from the request
 *    to the 2,000th mail of that batch is the time until all mails reach the local SES. It includes the fan-out, 40
 *    chunks through the send worker and the pacing at `SES_SEND_RATE_PER_SECOND` (the local runtime's default 500/s,
 *    so at least 4 s for 2,000 mails: the figure is bounded by the configured rate, as it is in AWS by the quota).
 *
 * Also reported: `SendBulkEmail` calls per batch (40 = 2,000 / 50), DynamoDB operations per recipient (API and
 * worker), and a check that every recipient got exactly one mail with its own substitution.
 *
 * Targets: the "in 40 SES calls" (≤ 40 `SendBulkEmail` per 2,000 recipients) and every mail delivered once.
 * The times are context (no figure in the issue).
 */

import { countDelta, READ_OPERATIONS, sumOf, WRITE_OPERATIONS } from '#bench/lib/runtime-probes.ts';
import { round, summarize } from '#bench/lib/stats.ts';
import type { Metric, Result, Scenario, ScenarioOptions } from '#bench/scenario.ts';
import type { LocalSentMail } from '#local/emulators/ses-proxy.ts';
import { startLocalRuntime } from '#local/runtime.ts';
import { EMAIL_TAGS } from '#shared/domain/email/model.ts';
import { createStore } from '#shared/domain/stores/manage-stores.ts';
import { storeAdminDeps } from '#shared/wiring/store-admin.ts';

const RECIPIENTS = 2000;
const DEFAULT_RUNS = 3;
/** At most this long for one batch to reach the local SES. */
const ARRIVAL_LIMIT_MS = 5 * 60_000;
const DOMAIN = 'bench-shop.example';

interface Run {
  readonly batchId: string;
  readonly responseMs: number;
  readonly allInSesMs: number;
  readonly firstInSesMs: number;
  readonly mails: number;
  readonly sendBulkCalls: number;
  readonly dynamodb: Record<string, number>;
}

const body = (run: number) => ({
  subject: 'Spring offers for {{firstName}}',
  preheader: 'Up to 30 % off this week',
  html: '<html><body><h1>Hello {{firstName}}</h1><p>Your code: <b>{{code}}</b>, valid until {{until}}.</p></body></html>',
  text: 'Hello {{firstName}}, your code: {{code}}, valid until {{until}}.',
  from: { name: 'Bench Shop', email: `news@${DOMAIN}` },
  substitutionData: { until: '2026-04-30' },
  recipients: Array.from({ length: RECIPIENTS }, (_, i) => ({
    address: {
      email: `run${run}.person${i}@bench-recipients.example`,
      name: `Person ${i}`,
      substitutionData: { firstName: `P${i}`, code: `R${run}-${i}` },
    },
  })),
});

export const sending: Scenario = {
  name: 'sending',
  description: 'bulk email: response time of a 2,000-recipient call, time until all mails reach the local SES',
  async run(options: ScenarioOptions): Promise<Result> {
    const runtime = await startLocalRuntime({ logLevel: 'ERROR' });
    try {
      const { apiKey } = await createStore(storeAdminDeps(), { name: 'Bench sender', type: 'direct' });
      const headers = { 'content-type': 'application/json', 'x-service-access-token': apiKey };
      const registered = await fetch(`${runtime.urls.main}/api/v1/senders`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ domain: DOMAIN }),
      });
      if (registered.status !== 200) throw new Error(`registering ${DOMAIN}: ${registered.status}`);

      const arrivals = new Map<string, { first?: number; last?: number; count: number; done?: () => void }>();
      const mailsByAddress = new Map<string, number>();
      runtime.ses.onSent((mails: LocalSentMail[]) => {
        const now = performance.now();
        for (const mail of mails) {
          const batch = arrivals.get(mail.tags[EMAIL_TAGS.transmission] ?? '');
          if (!batch) continue;
          batch.first ??= now;
          batch.count += 1;
          for (const to of mail.to) mailsByAddress.set(to, (mailsByAddress.get(to) ?? 0) + 1);
          if (batch.count >= RECIPIENTS) {
            batch.last ??= now;
            batch.done?.();
          }
        }
      });

      const runs: Run[] = [];
      const count = options.count ?? DEFAULT_RUNS;
      for (let r = 0; r < count; r++) {
        const payload = JSON.stringify(body(r));
        const sesBefore = runtime.sesCalls().SendBulkEmail ?? 0;
        const dynamoBefore = runtime.dynamodbCalls();
        const started = performance.now();
        const response = await fetch(`${runtime.urls.sending}/api/v1/sending`, {
          method: 'POST',
          headers,
          body: payload,
        });
        const answered = performance.now();
        const answer = (await response.json()) as Record<string, unknown>;
        if (response.status !== 200 || answer.totalAccepted !== RECIPIENTS) {
          throw new Error(`send ${r}: ${response.status} ${JSON.stringify(answer).slice(0, 300)}`);
        }
        const batchId = String(answer.id);
        const state = arrivals.get(batchId) ?? { count: 0 };
        arrivals.set(batchId, state);
        await new Promise<void>((resolve, reject) => {
          if (state.count >= RECIPIENTS) return resolve();
          const timer = setTimeout(
            () =>
              reject(new Error(`batch ${batchId}: ${state.count} of ${RECIPIENTS} mails after ${ARRIVAL_LIMIT_MS} ms`)),
            ARRIVAL_LIMIT_MS,
          );
          state.done = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        // The worker records each chunk's outcome just after SES answers: wait for the batch to read `sent`.
        for (let tries = 0; tries < 200; tries++) {
          const read = await fetch(`${runtime.urls.sending}/api/v1/sending/${batchId}`, { headers });
          if (((await read.json()) as Record<string, unknown>).status === 'sent') break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        const run: Run = {
          batchId,
          responseMs: answered - started,
          allInSesMs: (state.last ?? performance.now()) - started,
          firstInSesMs: (state.first ?? performance.now()) - started,
          mails: state.count,
          sendBulkCalls: (runtime.sesCalls().SendBulkEmail ?? 0) - sesBefore,
          dynamodb: countDelta(dynamoBefore, runtime.dynamodbCalls()),
        };
        runs.push(run);
        options.log(
          `sending: run ${r + 1}/${count}: answered in ${round(run.responseMs)} ms, all ${run.mails} mails in SES after ${round(run.allInSesMs)} ms, ${run.sendBulkCalls} SendBulkEmail calls`,
        );
      }

      const stored = (await (await fetch(`${runtime.urls.mail}/store`)).json()) as {
        emails: { destination: { to: string[] }; subject: string }[];
      };
      const expected = count * RECIPIENTS;
      const once = [...mailsByAddress.values()].filter((n) => n === 1).length;
      const sampleOk = stored.emails.filter((m) => {
        const match = /person(\d+)@/.exec(m.destination.to[0] ?? '');
        return match && m.subject === `Spring offers for P${match[1]}`;
      }).length;

      const response = summarize(runs.map((r) => r.responseMs));
      const allIn = summarize(runs.map((r) => r.allInSesMs));
      const callsPerBatch = Math.max(...runs.map((r) => r.sendBulkCalls));
      const writes = sumOf(
        runs.reduce<Record<string, number>>((acc, r) => {
          for (const [k, v] of Object.entries(r.dynamodb)) acc[k] = (acc[k] ?? 0) + v;
          return acc;
        }, {}),
        WRITE_OPERATIONS,
      );
      const reads = runs.reduce((total, r) => total + sumOf(r.dynamodb, READ_OPERATIONS), 0);
      const rate = Number(process.env.SES_SEND_RATE_PER_SECOND ?? 0);

      const metrics: Metric[] = [
        {
          key: 'responseMsP50',
          label: 'POST 2,000 recipients: response time (median)',
          value: round(response.p50),
          unit: 'ms',
        },
        {
          key: 'responseMsMax',
          label: 'POST 2,000 recipients: response time (slowest)',
          value: round(response.max),
          unit: 'ms',
        },
        {
          key: 'allInSesMsP50',
          label: 'Request → all 2,000 mails in the local SES (median)',
          value: round(allIn.p50),
          unit: 'ms',
        },
        {
          key: 'mailsPerSecond',
          label: 'Mails per second into the local SES',
          value: round((RECIPIENTS / allIn.p50) * 1000, 1),
          unit: '/s',
        },
        {
          key: 'sendBulkCallsPerBatch',
          label: 'SendBulkEmail calls per 2,000 recipients',
          value: callsPerBatch,
          unit: '',
          target: { op: '<=', value: RECIPIENTS / 50 },
        },
        {
          key: 'mailsDeliveredOnce',
          label: 'Recipients with exactly one mail',
          value: once,
          unit: '',
          target: { op: '>=', value: expected },
        },
        {
          key: 'substitutedMails',
          label: 'Mails with their own substitution',
          value: sampleOk,
          unit: '',
          target: { op: '>=', value: expected },
        },
        {
          key: 'writesPerRecipient',
          label: 'DynamoDB writes per recipient (API + worker)',
          value: round(writes / expected, 3),
          unit: '',
        },
        {
          key: 'readsPerRecipient',
          label: 'DynamoDB reads per recipient (API + worker)',
          value: round(reads / expected, 3),
          unit: '',
        },
      ];
      return {
        scenario: 'sending',
        title: 'Bulk email: a 2,000-recipient call and its mails reaching the local SES',
        metrics,
        notes: [
          `${count} runs of ${RECIPIENTS} recipients, one after another; local send rate ${rate || 'default'} messages/s (SES_SEND_RATE_PER_SECOND), which bounds the time to all mails (≥ ${rate ? round(RECIPIENTS / rate, 1) : '?'} s)`,
          'The mail time runs from the request to the 2,000th mail stored by aws-ses-v2-local (announced by the local SES front).',
        ],
        details: {
          runs: runs.map((r) => ({
            ...r,
            responseMs: round(r.responseMs),
            allInSesMs: round(r.allInSesMs),
            firstInSesMs: round(r.firstInSesMs),
          })),
          sesCalls: runtime.sesCalls(),
        },
      };
    } finally {
      await runtime.stop();
    }
  },
};
