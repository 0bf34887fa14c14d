/** Wiring of the ingestion use cases to their AWS adapters (built once per warm function). */
import { newId } from '../domain/ids.ts';
import type { AcceptDeps } from '../domain/ingest/accept-event.ts';
import type { ApplyDeps } from '../domain/ingest/apply-event.ts';
import { logger } from '../observability.ts';
import { dynamoCustomerRepository } from './dynamodb/customer.repository.ts';
import { dynamoEventLog } from './dynamodb/event-log.repository.ts';
import { dynamoProductRepository } from './dynamodb/product.repository.ts';
import { sqsIngestQueue } from './sqs/ingest-queue.ts';

const clock = { now: () => Date.now() };

let accept: AcceptDeps | undefined;
let apply: ApplyDeps | undefined;

export const ingestDeps = (): AcceptDeps => {
  accept ??= {
    events: dynamoEventLog(),
    queue: sqsIngestQueue(),
    clock,
    onLostRecord: (error, detail) =>
      logger.error('Event recorded but neither queued nor removed; a retry will be answered 304', { ...detail, error }),
  };
  return accept;
};

export const applyDeps = (): ApplyDeps => {
  apply ??= {
    customers: dynamoCustomerRepository(),
    products: dynamoProductRepository(),
    clock,
    newContactId: () => newId('ct'),
  };
  return apply;
};
