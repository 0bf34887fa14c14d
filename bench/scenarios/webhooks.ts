import { availableParallelism } from 'node:os';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { profiled } from '#bench/lib/profile.ts';
import { pausePollers, queueDepth, READ_OPERATIONS, sumOf, WRITE_OPERATIONS } from '#bench/lib/runtime-probes.ts';
import { cpuText, formatNumber, listText, round, roundedLatency, sleep, summarize } from '#bench/lib/stats.ts';
import type { Metric, Result, Scenario, ScenarioOptions } from '#bench/scenario.ts';
import { REGION } from '#local/resources.ts';
import { startLocalRuntime } from '#local/runtime.ts';
import { applyIngestQueue, arrivalCounts, deliverQueued, deliveryRecords, idleSamples } from './webhooks-phases.ts';
import {
  createSubscribedStores,
  credentials,
  DEFAULT_COUNT,
  DELIVER_LIMIT_MS,
  DELIVERY_WORKER,
  eventOf,
  IDLE_SAMPLES,
  INGEST_WORKER,
  LOG_LEVEL,
  SETTLE_LIMIT_MS,
  sendAll,
  startReceiver,
  TOPIC,
} from './webhooks-setup.ts';

// ---- Throughput phase -----------------------------------------------------------------------------------------------

const _queueArnOf = async (sqs: SQSClient, queueUrl: string) => {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
  );
  return Attributes?.QueueArn ?? '';
};

// ---- Report ---------------------------------------------------------------------------------------------------------

type Sent = Awaited<ReturnType<typeof sendAll>>;
type Applied = Awaited<ReturnType<typeof applyIngestQueue>>;
type Delivered = Awaited<ReturnType<typeof deliverQueued>>;
type Idle = Awaited<ReturnType<typeof idleSamples>>;

interface Measured {
  readonly stores: number;
  readonly count: number;
  readonly sent: Sent;
  readonly applied: Applied;
  readonly delivered: Delivered;
  readonly arrivals: ReturnType<typeof arrivalCounts>;
  readonly records: Awaited<ReturnType<typeof deliveryRecords>>;
  readonly idle: Idle;
  readonly idleArrivals: ReturnType<typeof arrivalCounts>;
  readonly dlq: { webhooks: number; ingest: number; timers: number };
}

const report = (m: Measured): Result => {
  const { delivered, idle } = m;
  const incomplete = delivered.complete ? '' : ' (incomplete)';
  const queuePath = summarize(idle.samples.map((s) => s.queuePathMs));
  const endToEnd = summarize(idle.samples.map((s) => s.endToEndMs));
  const toRecorded = summarize(idle.samples.map((s) => s.acceptedToRecordedMs));
  const accept = summarize(idle.samples.map((s) => s.acceptMs));
  const post = summarize(idle.samples.map((s) => s.postMs).filter((v) => Number.isFinite(v)));
  const perDelivery = (value: number) => value / (delivered.received || 1);
  const reads = sumOf(delivered.dynamodbCalls, READ_OPERATIONS);
  const writes = sumOf(delivered.dynamodbCalls, WRITE_OPERATIONS);
  const batch = DELIVERY_WORKER?.kind === 'queue' ? DELIVERY_WORKER.batchSize : undefined;

  const metrics: Metric[] = [
    {
      key: 'deliveriesPerSecond',
      label: `Webhook deliveries/s to a local receiver (${m.count} queued)${incomplete}`,
      value: delivered.perSecond,
      unit: '/s',
    },
    {
      key: 'deliveredExactlyOnce',
      label: `Deliveries received exactly once (of ${m.count})`,
      value: m.arrivals.exactlyOnce,
      unit: '',
      target: { op: '>=', value: m.count },
    },
    {
      key: 'cpuPerDelivery',
      label: 'CPU per delivery (whole process)',
      value: perDelivery(delivered.cpu.processMs),
      unit: 'ms',
    },
    {
      key: 'queuePathP50',
      label: 'Queue path delay p50 (delivery recorded → received, idle)',
      value: queuePath.p50,
      unit: 'ms',
    },
    {
      key: 'queuePathP99',
      label: 'Queue path delay p99 (delivery recorded → received, idle)',
      value: queuePath.p99,
      unit: 'ms',
    },
    { key: 'endToEndP50', label: 'Event accepted → webhook received p50 (idle)', value: endToEnd.p50, unit: 'ms' },
    { key: 'endToEndP99', label: 'Event accepted → webhook received p99 (idle)', value: endToEnd.p99, unit: 'ms' },
  ];

  const dlqText = `DLQs: webhooks ${m.dlq.webhooks}, ingest ${m.dlq.ingest}, timers ${m.dlq.timers}`;
  const notes: string[] = [
    `Local runtime in memory, one process on ${availableParallelism()} cores: the workers, dynalite, fauxqs and the receiver (node:http on 127.0.0.1, same event loop; it answers 200 once the body is read, records the arrival time and x-service-delivery-id, checks no signature) share one event loop. ${m.stores} stores each subscribe ${TOPIC} to their own path of the receiver; a headless customers/create also emits customer/marketing (the form subscribes the email), which is logged but not subscribed, so each event makes exactly one delivery.`,
    `Fill (not measured): ${m.count} headless customers/create events sent with every poller paused (all accepted) in ${round(m.sent.elapsedMs / 1000, 1)} s; then the ingest worker's handler applied them through a poller of the bench's own (2 receive loops × ${INGEST_WORKER?.kind === 'queue' ? INGEST_WORKER.batchSize : '?'}, like the runtime's) while the runtime's pollers stayed paused: ${round(m.applied.elapsedMs / 1000, 1)} s${m.applied.complete ? '' : ' (INCOMPLETE)'} (${formatNumber(m.count / (m.applied.elapsedMs / 1000))} events/s), leaving ${m.applied.webhooksQueued} deliveries queued for ${m.count} events.`,
    `Deliveries/s = (deliveries received − 1) ÷ time from the first to the last distinct arrival at the receiver, after the runtime's pollers resumed with the webhook queue full and every other queue empty: the delivery worker's steady rate (2 receive loops × batches of ${batch ?? '?'}, the records of a batch in parallel), each delivery a read of the record and the subscription, the HMAC, the POST, the record's update and the batched delete. Resume → first arrival ${formatNumber(delivered.firstArrivalMs ?? Number.NaN)} ms, → last ${round((delivered.lastArrivalMs ?? Number.NaN) / 1000, 2)} s (${formatNumber(delivered.perSecondFromResume)}/s counted from the resume); queue read empty ${delivered.settledMs === undefined ? `NOT within ${SETTLE_LIMIT_MS / 1000} s (${delivered.queueLeft} left)` : `at ${round(delivered.settledMs / 1000, 2)} s`}.`,
    `Exactly once: ${m.arrivals.exactlyOnce} of ${m.count} expected deliveries received once, ${m.arrivals.duplicated} more than once, ${m.arrivals.missing} never; ${m.arrivals.unexpected} unexpected requests, ${m.arrivals.wrongPath} on another store's path, ${m.arrivals.wrongTopic} with another topic. Delivery records: ${listText(m.records.statuses)}; attempts ${listText(m.records.attempts)}. ${dlqText}.`,
    `DynamoDB operations per delivery: ${listText(delivered.dynamodbCalls, (n) => formatNumber(perDelivery(n)))} (reads ${formatNumber(perDelivery(reads))}, writes ${formatNumber(perDelivery(writes))}; the store key is read once per store, then cached for a minute). CPU, in cores, from the resume to the queue read empty: ${cpuText(delivered.cpu)}.${delivered.cpu.otherCores >= 0.25 ? ' Other processes took a noticeable share of the CPU: the rate is disturbed (the CPU per delivery much less); run again on a quiet machine.' : ''}`,
    `Idle: ${idle.samples.length} of ${IDLE_SAMPLES} events sent one at a time (store after store, 50–250 ms apart), each waited for at the receiver and until its record settled${idle.failures.length > 0 ? `; ${idle.failures.length} failed: ${idle.failures.slice(0, 3).join(' | ')}` : ''}. Queue path delay = arrival at the receiver − the delivery record's createdAt (the ingest worker's emit stamps it just before the record's PutItem and the SendMessage): the record's write, the send, the pickup, the worker's reads, the HMAC and the POST up to the receiver's request headers; both are Date.now() of this process (1 ms resolution). Exactly once: ${idle.samples.length > 0 ? `${m.idleArrivals.exactlyOnce} of ${idle.expected.size}, ${m.idleArrivals.duplicated} duplicated` : 'n/a'}.`,
    `End-to-end = arrival − the client's HTTP 200 for the event: adds the ingest queue (FIFO) pickup and the apply (customer upsert, event log, customer/marketing log, the subscription-welcome trigger) up to the emit: accepted → recorded p50 ${formatNumber(toRecorded.p50)} ms (p99 ${formatNumber(toRecorded.p99)}), recorded → received p50 ${formatNumber(queuePath.p50)} ms; the event's own HTTP request took p50 ${formatNumber(accept.p50)} ms, the worker's POST to the receiver p50 ${formatNumber(post.p50)} ms.`,
    `Pickup: the local pollers long-poll with WaitTimeSeconds 1, 2 loops per queue (a loop busy with a batch does not receive). fauxqs answers a waiting receive as soon as a message is sent, so on an idle queue the pickup is not a polling interval; the 1 s only bounds a receive that finds nothing, after which the loop asks again at once. The idle delays here are processing, not polling (slowest queue path ${formatNumber(queuePath.max)} ms, far below the 1 s wait); Lambda's event source mapping picks up on its own schedule and is not measured here. p99 is nearest-rank: of ${idle.samples.length} samples, the ${idle.samples.length >= 100 ? 'second slowest' : 'slowest'}.`,
    'No target: the issue sets none for these figures (context); the exactly-once count is checked against the number of deliveries queued.',
  ];

  return {
    scenario: 'webhooks',
    title: 'Webhook delivery throughput and the added delay of the queue path',
    metrics,
    notes,
    details: {
      stores: m.stores,
      topic: TOPIC,
      fill: { ...m.sent, elapsedMs: round(m.sent.elapsedMs) },
      applyIngest: { ...m.applied, elapsedMs: round(m.applied.elapsedMs) },
      deliveries: {
        ...delivered,
        firstArrivalMs: delivered.firstArrivalMs === undefined ? undefined : round(delivered.firstArrivalMs),
        lastArrivalMs: delivered.lastArrivalMs === undefined ? undefined : round(delivered.lastArrivalMs),
        spanMs: round(delivered.spanMs),
        perSecond: round(delivered.perSecond, 1),
        perSecondFromResume: round(delivered.perSecondFromResume, 1),
        settledMs: delivered.settledMs === undefined ? undefined : round(delivered.settledMs),
        reads,
        writes,
      },
      arrivals: m.arrivals,
      records: m.records,
      dlq: m.dlq,
      idle: {
        samples: idle.samples.length,
        failures: idle.failures,
        arrivals: m.idleArrivals,
        queuePathMs: roundedLatency(queuePath),
        endToEndMs: roundedLatency(endToEnd),
        acceptedToRecordedMs: roundedLatency(toRecorded),
        acceptMs: roundedLatency(accept),
        postMs: roundedLatency(post),
        statuses: idle.samples.reduce<Record<string, number>>((acc, s) => {
          acc[s.status] = (acc[s.status] ?? 0) + 1;
          return acc;
        }, {}),
      },
    },
  };
};

// ---- The scenario ---------------------------------------------------------------------------------------------------

export const webhooks: Scenario = {
  name: 'webhooks',
  description: 'Webhook deliveries/s to a local receiver (--count, default 1,000) and the queue path delay',
  async run(options: ScenarioOptions) {
    const { log } = options;
    const count = options.count ?? DEFAULT_COUNT;
    log('webhooks: starting the local runtime (in memory) and the receiver');
    const runtime = await startLocalRuntime({ logLevel: LOG_LEVEL });
    const pollsOver = pausePollers(runtime);
    const sqs = new SQSClient({ region: REGION, credentials, endpoint: runtime.urls.sqs });
    const receiver = await startReceiver();
    try {
      log(`webhooks: creating ${options.stores} stores subscribing ${TOPIC}`);
      const stores = await createSubscribedStores(runtime, receiver.url, options.stores);
      // A receive already waiting when the pollers paused may still pick up a message: let it time out (1 s poll).
      await pollsOver();

      log(`webhooks: sending ${count} headless customers/create events (pollers paused)`);
      const sent = await sendAll(runtime, stores, count, options.concurrency);
      const accepted = sent.outcomes.accepted ?? 0;
      if (accepted !== count) {
        throw new Error(
          `webhooks: ${count - accepted} of ${count} events were not accepted (${listText(sent.outcomes)}); first: ${sent.samples.join(' | ')}`,
        );
      }
      const expected = new Map<string, number>();
      for (let n = 0; n < count; n++) {
        const event = eventOf(stores, 'wh', n);
        expected.set(event.deliveryId, event.storeIndex);
      }

      log('webhooks: applying the ingest queue (runtime pollers paused, deliveries pile up in the webhook queue)');
      const applied = await applyIngestQueue(runtime, sqs, count);
      if (applied.webhooksQueued !== count) {
        log(`webhooks: warning, ${applied.webhooksQueued} deliveries queued for ${count} events`);
      }

      log(`webhooks: delivering ${applied.webhooksQueued} queued deliveries (at most ${DELIVER_LIMIT_MS / 1000} s)`);
      const delivered = await profiled(options.profile, 'webhooks-deliveries', () =>
        deliverQueued(runtime, sqs, receiver, expected),
      );
      const records = await deliveryRecords(stores, expected);
      const phaseAArrivals = receiver.arrivals.length;

      log(`webhooks: idle phase, ${IDLE_SAMPLES} events one at a time`);
      const idle = await idleSamples(runtime, receiver, stores, IDLE_SAMPLES, log);
      // Anything late (a retry, a duplicate) shows in the counts below.
      await sleep(500);
      const [webhooksDlq, ingestDlq, timersDlq] = await Promise.all([
        queueDepth(sqs, runtime.dlqUrls.webhooks),
        queueDepth(sqs, runtime.dlqUrls.ingest),
        queueDepth(sqs, runtime.dlqUrls.timers),
      ]);
      const arrivals = arrivalCounts(receiver.arrivals, expected, stores, idle.expected);
      const idleArrivals = arrivalCounts(receiver.arrivals, idle.expected, stores, expected);
      log(`webhooks: ${phaseAArrivals} requests in the throughput phase, ${receiver.arrivals.length} in all`);
      return report({
        stores: stores.length,
        count,
        sent,
        applied,
        delivered,
        arrivals,
        records,
        idle,
        idleArrivals,
        dlq: { webhooks: webhooksDlq.total, ingest: ingestDlq.total, timers: timersDlq.total },
      });
    } finally {
      sqs.destroy();
      await runtime.stop();
      await receiver.close();
    }
  },
};
