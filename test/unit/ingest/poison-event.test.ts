/**
 * An event whose data the worker cannot use (a headless `customers/create` queued with `tag_value: 5`, `tags: {}` or
 * `gender: []`, as the edge let through before it checked those fields) fails the same way on every attempt. The
 * ingest worker's composition with in-memory ports (`functions/ingest-worker/handler.ts`: the FIFO wrapper,
 * `applyEvent`, `failEvent` on a permanent failure): the `TypeError` is recorded as the event's failure, with a reason
 * the store reads from `GET /api/v1/events?source_id=`, and acknowledged, so the customer's next update (same FIFO
 * group) applies in the same batch; a throttling error is still retried, holding its group as before.
 */
import { describe, expect, it } from 'vitest';
import type { Customer } from '#shared/domain/customers/model.ts';
import type { ApplyDeps } from '#shared/domain/ingest/apply-event.ts';
import { applyEvent } from '#shared/domain/ingest/apply-event.ts';
import { getEventStatus } from '#shared/domain/ingest/event-status.ts';
import { failEvent } from '#shared/domain/ingest/fail-event.ts';
import { parseIngestMessage } from '#shared/domain/ingest/ingest-message.ts';
import type { IngestMessage } from '#shared/domain/ingest/model.ts';
import { fifoQueueWorker } from '#shared/queue/batch.ts';
import { lambdaContext, sqsEvent } from '#test/support/events.ts';
import { MemoryEventLog } from '#test/support/memory/ingest.ts';

const STORE = 'st_AAAAAAAAAAAAAAAAAAAA';
const NOW = 1_700_000_000_000;

const setup = () => {
  const customers = new Map<string, Customer>();
  const events = new MemoryEventLog();
  const failedCounts: string[] = [];
  /** Errors `customers.get` throws, one per call, before it reads. */
  const readFailures: Error[] = [];
  const deps = {
    customers: {
      async get(_storeId: string, originId: string) {
        const failure = readFailures.shift();
        if (failure) throw failure;
        return customers.get(originId);
      },
      async save(customer: Customer) {
        customers.set(customer.originId, customer);
      },
    },
    webhooks: { emit: async () => {} },
    triggers: { fire: async () => {} },
    clock: { now: () => NOW },
    newContactId: () => `ct_${customers.size + 1}`,
  } as unknown as ApplyDeps;
  // As the ingest worker: apply each event; one that fails permanently is recorded as failed on its event record.
  const worker = fifoQueueWorker({
    queue: { maxReceiveCount: 5 },
    parse: parseIngestMessage,
    handle: async (message) => {
      await applyEvent(deps, message);
    },
    onPermanent: async (message, error) => {
      await failEvent(
        { events, clock: deps.clock, count: (event) => failedCounts.push(event.sourceId) },
        message,
        error,
      );
    },
  });
  const message = (
    sourceId: string,
    endpoint: string,
    iface: 'general' | 'headless',
    data: Record<string, unknown>,
  ): IngestMessage => ({
    v: 1,
    storeId: STORE,
    sourceId,
    endpoint,
    interface: iface,
    acceptedAt: NOW,
    storeType: 'direct',
    data,
  });
  /** Records the events as the edge did, then hands them to the worker as one batch of one FIFO group. */
  const deliver = async (messages: IngestMessage[]) => {
    for (const m of messages) await events.record(m, 'hash');
    return worker(sqsEvent(messages, { fifo: true, groupId: `${STORE}#customer#c1` }), lambdaContext());
  };
  return { customers, events, failedCounts, readFailures, message, deliver };
};

const subscription = (extra: Record<string, unknown>) => ({
  id: 'c1',
  created_at: 1_700_000_000,
  email: 'ada@example.com',
  ...extra,
});

describe('the ingest worker and an event whose data it cannot use', () => {
  it.each([
    ['tag_value: 5', { tag_value: 5 }],
    ['tags: {}', { tags: {} }],
    ['gender: []', { gender: [] }],
  ])(
    'records a headless customers/create with %s as failed, and the next update of the customer applies',
    async (_, poison) => {
      const { customers, events, failedCounts, message, deliver } = setup();
      const answer = await deliver([
        message('poison-1', 'customers/create', 'headless', subscription(poison)),
        message('update-1', 'customers/update', 'general', { id: 'c1', first_name: 'Ada' }),
      ]);

      // Neither record goes back to the queue: the poison is not retried and holds nothing behind it.
      expect(answer.batchItemFailures).toEqual([]);
      expect(customers.get('c1')?.firstName).toBe('Ada');
      expect(failedCounts).toEqual(['poison-1']);

      // The store reads what became of it: failed, with a reason it can act on (no code names, no stack).
      const status = await getEventStatus({ events }, STORE, 'poison-1');
      expect(status).toMatchObject({ status: 'failed', endpoint: 'customers/create', interface: 'headless' });
      expect(status.failure).toEqual({
        reason:
          "the event's data could not be applied: a value has a type or form the service cannot use (TypeError); " +
          'send the corrected data under a new source_id',
        failed_at: NOW,
      });
      expect((await getEventStatus({ events }, STORE, 'update-1')).status).toBe('accepted');
    },
  );

  it('retries a throttled read: the event and the rest of its group go back to the queue, nothing is recorded failed', async () => {
    const { customers, events, failedCounts, readFailures, message, deliver } = setup();
    readFailures.push(
      Object.assign(new Error('Rate exceeded'), {
        name: 'ProvisionedThroughputExceededException',
        $retryable: { throttling: true },
        $metadata: { httpStatusCode: 400 },
      }),
    );
    const answer = await deliver([
      message('create-1', 'customers/create', 'general', subscription({})),
      message('update-1', 'customers/update', 'general', { id: 'c1', first_name: 'Ada' }),
    ]);

    expect(answer.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['m1', 'm2']);
    expect(customers.size).toBe(0);
    expect(failedCounts).toEqual([]);
    expect((await getEventStatus({ events }, STORE, 'create-1')).status).toBe('accepted');
  });
});
