/** Wiring of the segment use cases to their adapters (built once per warm function). */

import { dynamoContactsByEmail } from '#shared/adapters/dynamodb/contacts-by-email.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import {
  dynamoContactStats,
  dynamoSegmentMembers,
  dynamoSegmentStates,
  dynamoSegments,
  dynamoStoreContacts,
} from '#shared/adapters/dynamodb/segments.repositories.ts';
import { dynamoTimerBuckets } from '#shared/adapters/dynamodb/timer-buckets.ts';
import { schedulerTimers } from '#shared/adapters/scheduler/timers.ts';
import { queuedFlowTriggers } from '#shared/adapters/sqs/flow-queue.ts';
import { sqsSegmentQueue } from '#shared/adapters/sqs/segment-queue.ts';
import { systemClock } from '#shared/clock.ts';
import type { AfterEventDeps } from '#shared/domain/segments/after-event.ts';
import type { SegmentWorkerDeps } from '#shared/domain/segments/build.ts';
import type { ManageSegmentDeps } from '#shared/domain/segments/manage-segments.ts';
import { refreshContact } from '#shared/domain/segments/membership.ts';
import type { Segment, SegmentState } from '#shared/domain/segments/model.ts';
import type { SegmentTimerPayload } from '#shared/domain/timers/model.ts';
import { wheelTimers } from '#shared/domain/timers/wheel.ts';
import { lazy } from '#shared/lazy.ts';
import { LIMITS } from '#shared/limits.ts';
import { followUp } from '#shared/queue/follow-up.ts';
import { batchReads } from './batch-reads.ts';

export const manageSegmentDeps = /* @__PURE__ */ lazy(
  (): ManageSegmentDeps => ({
    segments: dynamoSegments(),
    states: dynamoSegmentStates(),
    members: dynamoSegmentMembers(),
    queue: sqsSegmentQueue(),
    clock: systemClock,
  }),
);

/** Time-window re-evaluations through the timer wheel: one Scheduler schedule per store and due minute. */
const segmentTimers = () =>
  wheelTimers({
    buckets: dynamoTimerBuckets(),
    schedules: schedulerTimers(),
    clock: systemClock,
    waitingRunsCap: LIMITS.waitingRunsPerStore,
  });

/**
 * The store's segments and their build status as the ingest worker's current batch first read them (as the flow
 * worker reads flows): a batch of one store's events reads them once, not once per event. Forgotten at the batch's
 * end (`afterSegmentBatch`): a segment saved meanwhile applies from the next batch, seconds later.
 */
const batchSegments = /* @__PURE__ */ lazy(() => {
  const segments = dynamoSegments();
  const states = dynamoSegmentStates();
  const lists = batchReads<Segment[]>();
  const stateMaps = batchReads<Map<string, SegmentState>>();
  return {
    segments: { list: (storeId: string) => lists.read(storeId, () => segments.list(storeId)) },
    // Always asked for all the store's segments (refreshContact), so the store keys the answer.
    states: {
      getMany: (storeId: string, ids: readonly string[]) => stateMaps.read(storeId, () => states.getMany(storeId, ids)),
    },
    forget: () => {
      lists.forget();
      stateMaps.forget();
    },
  };
});

/** The end of an ingest-worker batch: the segments it read are forgotten. */
export const forgetBatchSegments = (): void => batchSegments().forget();

/** The ingest worker's segment step (`segmentsAfterEvent`). */
export const segmentEventDeps = /* @__PURE__ */ lazy(
  (): AfterEventDeps => ({
    segments: batchSegments().segments,
    states: batchSegments().states,
    customers: dynamoCustomerRepository(),
    contacts: dynamoContactsByEmail(),
    stats: dynamoContactStats(),
    members: dynamoSegmentMembers(),
    triggers: queuedFlowTriggers(),
    timers: segmentTimers(),
    clock: systemClock,
  }),
);

/**
 * The import worker's segment step for one written contact: evaluated as an event's contact is, firing nothing (a
 * batch import starts no flow). A failure no retry can fix is logged and the line stays imported.
 */
export const segmentsAfterImport = async (storeId: string, customerId: string, lineId: string): Promise<void> => {
  await followUp(
    'Segment step',
    () => refreshContact(segmentEventDeps(), storeId, customerId, { id: lineId, trigger: {}, fire: false }),
    { storeId, customerId },
  );
};

/** The segments queue's worker: builds, purges, timed re-evaluations. */
export const segmentWorkerDeps = /* @__PURE__ */ lazy(
  (): SegmentWorkerDeps => ({
    segments: dynamoSegments(),
    states: dynamoSegmentStates(),
    customers: dynamoCustomerRepository(),
    contacts: dynamoStoreContacts(),
    stats: dynamoContactStats(),
    members: dynamoSegmentMembers(),
    triggers: queuedFlowTriggers(),
    timers: segmentTimers(),
    queue: sqsSegmentQueue(),
    clock: systemClock,
  }),
);

/** Where the timer worker hands a contact whose time window flipped. */
export const segmentRechecks = /* @__PURE__ */ lazy(() => {
  const queue = sqsSegmentQueue();
  return {
    recheck: (timer: SegmentTimerPayload) =>
      queue.send({ v: 1, type: 'contact', storeId: timer.storeId, customerId: timer.customerId, at: timer.at }),
  };
});
