/**
 * An accepted event the worker can never apply (an entity over its size budget, an item DynamoDB refuses, data the
 * code cannot use: a `TypeError`): recorded as failed on the store's event record with its reason and counted, then
 * acknowledged, so it is never retried and never holds back the events queued behind it in its group.
 */
import type { Clock } from '#shared/domain/clock.ts';
import { isAppError, isUncurableError } from '#shared/errors.ts';
import type { AcceptedEvent } from './model.ts';
import type { EventLog } from './ports.ts';

export interface FailEventDeps {
  readonly events: Pick<EventLog, 'markFailed'>;
  readonly clock: Clock;
  readonly count: (event: AcceptedEvent) => void;
}

/**
 * The reason as the store reads it: the error's own message, never a stack or a dependency's internals. A JavaScript
 * error's message names the code's variables (`tagValue.split is not a function`), so the store reads what happened
 * and the error's name; the log line of the dropped message keeps the whole error for the operator.
 */
const reasonOf = (error: unknown): string => {
  const message = error instanceof Error ? error.message : String(error);
  if ((error as { name?: unknown })?.name === 'ValidationException') {
    return `the stored record was refused by the database: ${message}`;
  }
  if (isUncurableError(error) && !isAppError(error)) {
    return (
      `the event's data could not be applied: a value has a type or form the service cannot use ` +
      `(${(error as Error).name}); send the corrected data under a new source_id`
    );
  }
  return message;
};

export const failEvent = async (deps: FailEventDeps, event: AcceptedEvent, error: unknown): Promise<void> => {
  await deps.events.markFailed(event.storeId, event.sourceId, { reason: reasonOf(error), failedAt: deps.clock.now() });
  deps.count(event);
};
