/** Wiring of the email-event and unsubscribe use cases to their adapters (built once per warm function). */

import { dynamoContactsByEmail } from '#shared/adapters/dynamodb/contacts-by-email.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { dynamoSentMessages, dynamoSuppressions } from '#shared/adapters/dynamodb/email.repositories.ts';
import { dynamoStoreRepository } from '#shared/adapters/dynamodb/store.repository.ts';
import type { EmailEventDeps } from '#shared/domain/email/email-events.ts';
import type { UnsubscribeDeps } from '#shared/domain/email/unsubscribe.ts';
import { webhookEmitter } from '#shared/domain/webhooks/emit.ts';
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
