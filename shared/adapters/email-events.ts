/** Wiring of the email-event and unsubscribe use cases to their adapters (built once per warm function). */
import type { EmailEventDeps } from '../domain/email/email-events.ts';
import type { UnsubscribeDeps } from '../domain/email/unsubscribe.ts';
import { webhookEmitter } from '../domain/webhooks/emit.ts';
import { dynamoContactsByEmail } from './dynamodb/contacts-by-email.ts';
import { dynamoCustomerRepository } from './dynamodb/customer.repository.ts';
import { dynamoSentMessages, dynamoSuppressions } from './dynamodb/email.repositories.ts';
import { dynamoStoreRepository } from './dynamodb/store.repository.ts';
import { emitDeps } from './webhooks.ts';

const clock = { now: () => Date.now() };

let unsubscribeWiring: UnsubscribeDeps | undefined;
let emailEventWiring: EmailEventDeps | undefined;

export const unsubscribeDeps = (): UnsubscribeDeps => {
  unsubscribeWiring ??= {
    customers: dynamoCustomerRepository(),
    contactsByEmail: dynamoContactsByEmail(),
    stores: dynamoStoreRepository(),
    suppressions: dynamoSuppressions(),
    webhooks: webhookEmitter(emitDeps()),
    clock,
  };
  return unsubscribeWiring;
};

export const emailEventDeps = (): EmailEventDeps => {
  emailEventWiring ??= { ...unsubscribeDeps(), sentMessages: dynamoSentMessages() };
  return emailEventWiring;
};
