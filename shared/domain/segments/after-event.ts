/**
 * The ingest worker's segment step: after an event was applied, the contact it changed has its order facts noted
 * (every order event, segments or not, so a segment made later finds them) and its segments evaluated again.
 */
import type { ContactsByEmail } from '#shared/domain/contacts/ports.ts';
import { flowsIgnored } from '#shared/domain/flows/trigger.ts';
import type { ApplyOutcome } from '#shared/domain/ingest/apply/context.ts';
import type { IngestMessage } from '#shared/domain/ingest/model.ts';
import { type MembershipDeps, type RefreshOutcome, refreshContact } from './membership.ts';
import { orderFact } from './model.ts';
import type { ContactStatsRepository } from './ports.ts';

export interface AfterEventDeps extends MembershipDeps {
  readonly stats: Pick<ContactStatsRepository, 'get' | 'recordOrder' | 'recordEngagement'>;
  readonly contacts: ContactsByEmail;
}

/** The customer ids an outcome names: its customer id, else every contact with its address. */
const contactIds = async (deps: AfterEventDeps, storeId: string, who: NonNullable<ApplyOutcome['contact']>) => {
  if (who.customerId) return [who.customerId];
  if (!who.email) return [];
  return (await deps.contacts.find(storeId, who.email)).map((contact) => contact.originId);
};

export const segmentsAfterEvent = async (
  deps: AfterEventDeps,
  message: IngestMessage,
  outcome: ApplyOutcome,
): Promise<Record<string, RefreshOutcome>> => {
  if (!outcome.contact) return {};
  const ids = await contactIds(deps, message.storeId, outcome.contact);
  const order = outcome.order;
  const results: Record<string, RefreshOutcome> = {};
  for (const customerId of ids) {
    if (order) {
      await deps.stats.recordOrder(message.storeId, customerId, order.id, (firstSeen) =>
        orderFact(order, firstSeen ?? deps.clock.now()),
      );
    }
    results[customerId] = await refreshContact(deps, message.storeId, customerId, {
      id: `event#${message.sourceId}`,
      trigger: { endpoint: message.endpoint, sourceId: message.sourceId },
      // `ignore_flow = Y` skips all automated flows (general rule 6): membership changes, no flow starts. So does an
      // event sent with the publishable key: a sign-up anyone could type in, not confirmed by the address's owner,
      // starts no flow that would mail it (not even one whose consent rule is `not_unsubscribed`).
      fire: !flowsIgnored(message.data) && message.key !== 'publishable',
    });
  }
  return results;
};

/**
 * The email-events worker's segment step: a first open or a click of a Storeflow email is noted on every contact of
 * the address (`activity.days_since_last_open` / `_click`), an opt-out changed their consent; either way their
 * segments are evaluated again.
 */
export const segmentsAfterEngagement = async (
  deps: AfterEventDeps,
  storeId: string,
  engagement: { email: string; at: number; messageId: string; kind: 'open' | 'click' | 'unsubscribe' },
): Promise<Record<string, RefreshOutcome>> => {
  const results: Record<string, RefreshOutcome> = {};
  for (const contact of await deps.contacts.find(storeId, engagement.email)) {
    if (engagement.kind !== 'unsubscribe') {
      await deps.stats.recordEngagement(storeId, contact.originId, engagement.kind, engagement.at);
    }
    results[contact.originId] = await refreshContact(deps, storeId, contact.originId, {
      id: `email#${engagement.messageId}#${engagement.kind}#${engagement.at}`,
      trigger: {},
      fire: true,
    });
  }
  return results;
};
