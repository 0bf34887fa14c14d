/** The event interfaces' business metrics: accepted, duplicate (`code: 304`) and rejected (412) events. */
import type { EventInterface } from '#shared/domain/events/endpoints.ts';
import { isAppError } from '#shared/errors.ts';
import { BUSINESS_METRICS, metrics } from '#shared/observability.ts';

/** `parse`, counting each body it refuses as a rejected event of `iface`. */
export const countingRejections =
  <T>(iface: EventInterface, parse: (body: unknown) => T) =>
  (body: unknown): T => {
    try {
      return parse(body);
    } catch (error) {
      if (isAppError(error) && error.kind === 'validation') {
        metrics.count(BUSINESS_METRICS.eventsRejected, 1, { interface: iface });
      }
      throw error;
    }
  };

/** Counts an accepted or duplicate event of `iface` and hands the outcome back. */
export const countOutcome = <O extends 'accepted' | 'duplicate'>(iface: EventInterface, outcome: O): O => {
  metrics.count(outcome === 'accepted' ? BUSINESS_METRICS.eventsAccepted : BUSINESS_METRICS.eventsDuplicate, 1, {
    interface: iface,
  });
  return outcome;
};
