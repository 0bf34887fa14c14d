/**
 * `GET /api/v1/events?source_id=`: what became of one of the store's events. `accepted` once it is recorded and queued
 * (it applies within about a second, unless it fails); `failed` when it can never apply (an entity over its size
 * budget, an item DynamoDB refuses, a value the worker cannot use), with the reason. Another store's `source_id` answers like an unknown one.
 */

import { SOURCE_ID_MAX_CHARS } from '#shared/domain/events/endpoints.ts';
import { notFound, validationError } from '#shared/errors.ts';
import type { EventLog } from './ports.ts';

export interface EventStatusDeps {
  readonly events: Pick<EventLog, 'status'>;
}

export interface EventStatusView {
  readonly source_id: string;
  readonly endpoint: string;
  readonly interface: string;
  /** Epoch milliseconds. */
  readonly accepted_at: number;
  readonly status: 'accepted' | 'failed';
  readonly failure?: { readonly reason: string; readonly failed_at: number };
}

export const getEventStatus = async (
  deps: EventStatusDeps,
  storeId: string,
  sourceId: string,
): Promise<EventStatusView> => {
  if (sourceId.length === 0 || sourceId.length > SOURCE_ID_MAX_CHARS) {
    throw validationError(`source_id must be 1 to ${SOURCE_ID_MAX_CHARS} characters`);
  }
  const record = await deps.events.status(storeId, sourceId);
  if (!record) throw notFound('Event not found');
  return {
    source_id: sourceId,
    endpoint: record.endpoint,
    interface: record.interface,
    accepted_at: record.acceptedAt,
    status: record.failure ? 'failed' : 'accepted',
    ...(record.failure ? { failure: { reason: record.failure.reason, failed_at: record.failure.failedAt } } : {}),
  };
};
