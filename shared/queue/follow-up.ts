/**
 * A follow-up step of a message already handled (the segments an applied event changed): a transient failure throws,
 * so the queue retries the message (handling it again changes nothing); one no retry can fix (`PermanentError`, a
 * dependency's refusal, an error retrying cannot cure such as a `TypeError`) is logged and answered `undefined`, so it
 * never turns the message itself into a failure (an applied event recorded as failed).
 */
import { isPermanentDependencyError, isUncurableError, PermanentError } from '#shared/errors.ts';
import { logger } from '#shared/observability.ts';

export const followUp = async <T>(what: string, step: () => Promise<T>, context: Record<string, unknown>) => {
  try {
    return await step();
  } catch (error) {
    if (!(error instanceof PermanentError || isPermanentDependencyError(error) || isUncurableError(error))) throw error;
    logger.error(`${what} failed for good; the message stays handled`, { ...context, error });
    return undefined;
  }
};
