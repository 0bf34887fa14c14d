/** Wiring of the flow engine and the explain views to their AWS adapters (built once per warm function). */
import { requireVerifiedSender } from '../domain/email/senders.ts';
import type { EngineDeps } from '../domain/flows/engine.ts';
import type { TriggerLog } from '../domain/flows/engine-ports.ts';
import type { ExplainDeps } from '../domain/flows/explain.ts';
import { dynamoCartRepository, dynamoCheckoutRepository } from './dynamodb/commerce.repositories.ts';
import { dynamoContactsByEmail } from './dynamodb/contacts-by-email.ts';
import { dynamoCustomerRepository } from './dynamodb/customer.repository.ts';
import { dynamoSentMessages, dynamoSuppressions } from './dynamodb/email.repositories.ts';
import { dynamoFlows } from './dynamodb/flow.repositories.ts';
import {
  dynamoContactActivity,
  dynamoFlowEntries,
  dynamoFlowEvaluations,
  dynamoFlowRuns,
  dynamoRecoveryMarks,
  dynamoTriggerLog,
} from './dynamodb/flow-runs.repositories.ts';
import { cachedPerStore } from './dynamodb/store.repository.ts';
import { senderDeps } from './email/sending.ts';
import { unsubscribeLinks } from './email/unsubscribe-links.ts';
import { schedulerTimers } from './scheduler/timers.ts';
import { sesMailer } from './ses/mailer.ts';

const clock = { now: () => Date.now() };

let engine: (EngineDeps & { triggers: TriggerLog }) | undefined;
let explain: ExplainDeps | undefined;

export const flowEngineDeps = (): EngineDeps & { triggers: TriggerLog } => {
  engine ??= {
    flows: dynamoFlows(),
    triggers: dynamoTriggerLog(),
    runs: dynamoFlowRuns(),
    evaluations: dynamoFlowEvaluations(),
    entries: dynamoFlowEntries(),
    activity: dynamoContactActivity(),
    marks: dynamoRecoveryMarks(),
    customers: dynamoCustomerRepository(),
    contacts: dynamoContactsByEmail(),
    carts: dynamoCartRepository(),
    checkouts: dynamoCheckoutRepository(),
    // Store names change rarely: emails of one store in a warm worker read the store once a minute.
    stores: { get: cachedPerStore(clock, 60_000, (store) => store) },
    suppressions: dynamoSuppressions(),
    mailer: sesMailer(),
    sent: dynamoSentMessages(),
    timers: schedulerTimers(),
    unsubscribe: unsubscribeLinks(),
    senders: { requireVerified: (storeId, fromEmail) => requireVerifiedSender(senderDeps(), storeId, fromEmail) },
    clock,
  };
  return engine;
};

export const explainDeps = (): ExplainDeps => {
  explain ??= { flows: dynamoFlows(), evaluations: dynamoFlowEvaluations(), runs: dynamoFlowRuns() };
  return explain;
};
