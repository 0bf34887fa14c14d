/**
 * An accepted event the worker can never apply (an entity over its size budget, an item DynamoDB refuses): recorded as
 * failed on the store's event record with its reason and counted, then acknowledged, so it is never retried and never
 * holds back the events queued behind it in its group.
 */
import type { Clock } from '#shared/domain/clock.ts';
import type { AcceptedEvent } from './model.ts';
import type { EventLog } from './ports.ts';

export interface FailEventDeps {
  readonly events: Pick<EventLog, 'markFailed'>;
  readonly clock: Clock;
  readonly count: (event: AcceptedEvent) => void;
}

/** The reason as the store reads it: the error's own message, never a stack or a dependency's internals. */
const reasonOf = (error: unknown): string => {
  const message = error instanceof Error ? error.message : String(error);
  if ((error as { name?: unknown })?.name === 'ValidationException') {
    return `the stored record was refused by the database: ${message}`;
  }
  return message;
};

export const failEvent = async (deps: FailEventDeps, event: AcceptedEvent, error: unknown): Promise<void> => {
  await deps.events.markFailed(event.storeId, event.sourceId, { reason: reasonOf(error), failedAt: deps.clock.now() });
  deps.count(event);
};
