import type { Stage } from '#shared/catalog/stage.ts';

/** `events-ingest` → `EventsIngest`, `main` → `Main`: construct ids and output keys are PascalCase. */
export const pascalCase = (kebab: string): string =>
  kebab
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');

/**
 * The physical name of a stage's resource: `storeflow-<stage>-<name>`. Functions, queues, the schedule group and the
 * configuration set are named so, which is what lets one stack find another's resource by name alone (a weak
 * reference: no CloudFormation export that would pin the producer). A named resource cannot be replaced in place, so a
 * change that needs a replacement is a rename.
 */
export const physicalName = (stage: Stage, name: string): string => `storeflow-${stage}-${name}`;

/** `emailEvents` → `email-events`. */
const kebabCase = (camel: string): string => camel.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** A catalog queue's name (`.fifo` for a FIFO queue, as SQS requires), and its dead-letter queue's. */
export const queueNames = (stage: Stage, name: string, fifo: boolean) => {
  const suffix = fifo ? '.fifo' : '';
  const base = physicalName(stage, kebabCase(name));
  return { queue: `${base}${suffix}`, dlq: `${base}-dlq${suffix}` };
};

/** The stage's CloudWatch dashboard (`-ops`: the pre-release layout's `storeflow-<stage>` may still exist beside it). */
export const dashboardName = (stage: string): string => `storeflow-${stage}-ops`;
