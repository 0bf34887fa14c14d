/**
 * The console's contact page: find contacts by email address, phone or name (`contact-search.ts`); a
 * contact's profile (fields, consent, tags, suppression), and one timeline of what happened to its address: the events
 * that reached the flows, every flow's decision about it (entered, or skipped and why: the explain view), each run's
 * steps (waits, emails sent), and the emails sent to it with what SES reported of each (delivery, open, click, bounce,
 * complaint).
 */

import type { Clock } from '#shared/domain/clock.ts';
import { type ContactSearch, parseContactSearch, searchContacts } from '#shared/domain/contacts/contact-search.ts';
import type { ContactSearchIndex, ContactsByEmail } from '#shared/domain/contacts/ports.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import type { CustomerRepository } from '#shared/domain/customers/ports.ts';
import type { ContactEmail, EmailOutcome, MessageKind } from '#shared/domain/email/model.ts';
import type { ContactEmails, Suppressions } from '#shared/domain/email/ports.ts';
import type {
  ContactActivity,
  FlowEvaluationRepository,
  FlowRepository,
  FlowRunRepository,
} from '#shared/domain/flows/ports.ts';
import type { FlowEvaluation, FlowRun } from '#shared/domain/flows/run.ts';
import { flatSteps } from '#shared/domain/flows/split.ts';
import { AppError } from '#shared/errors.ts';

/** Evaluations and emails read for the timeline (newest first), and how far back the events go. */
export const CONTACT_EVALUATIONS = 50;
export const CONTACT_EMAILS = 50;
export const CONTACT_EVENTS_DAYS = 90;

export interface ContactViewDeps {
  readonly contacts: ContactsByEmail;
  readonly customers: Pick<CustomerRepository, 'get'>;
  readonly search: Pick<ContactSearchIndex, 'byPhone' | 'byNamePrefix'>;
  readonly emails: Pick<ContactEmails, 'latest'>;
  readonly suppressions: Pick<Suppressions, 'suppressedAmong'>;
  readonly activity: Pick<ContactActivity, 'since'>;
  readonly evaluations: Pick<FlowEvaluationRepository, 'listForContact'>;
  readonly runs: Pick<FlowRunRepository, 'getMany'>;
  readonly flows: Pick<FlowRepository, 'list'>;
  readonly clock: Clock;
}

export type TimelineEntry =
  | { readonly type: 'event'; readonly at: number; readonly kind: string; readonly subject: string }
  | {
      readonly type: 'evaluation';
      readonly at: number;
      readonly flowId?: string;
      readonly flowName?: string;
      readonly outcome: FlowEvaluation['outcome'];
      readonly reason?: string;
      readonly runStatus?: FlowRun['status'];
    }
  | {
      readonly type: 'run';
      readonly at: number;
      readonly flowName?: string;
      readonly event: string;
      /** The step's place in its flow (1 = first), as the flow's page numbers it. */
      readonly step?: number;
      readonly detail?: string;
    }
  | {
      readonly type: 'email';
      /** When it was sent. */
      readonly at: number;
      readonly kind: MessageKind;
      /** The flow run or bulk batch that sent it. */
      readonly transmissionId: string;
      readonly flowId?: string;
      readonly flowName?: string;
      /** The step's place in its flow (1 = first), as the flow's page numbers it. */
      readonly step?: number;
      readonly subject?: string;
      /** What SES reported, oldest first. */
      readonly outcomes: readonly EmailOutcomeEntry[];
    };

export interface EmailOutcomeEntry {
  readonly outcome: EmailOutcome;
  readonly at: number;
  /** A bounce's or failure's reason, the latest click's link. */
  readonly detail?: string;
  /** Clicks counted (`clicked` only). */
  readonly count?: number;
}

export interface ContactView {
  /** The address whose timeline is shown (none for a contact without one). */
  readonly email?: string;
  /** The contacts shown: every contact of the store with the address (usually one), or the one opened. */
  readonly contacts: readonly Customer[];
  readonly suppressed: boolean;
  /** Newest first. */
  readonly timeline: readonly TimelineEntry[];
}

/** An email's outcomes, oldest first. */
export const outcomesOf = (email: ContactEmail): EmailOutcomeEntry[] => {
  const entries: (EmailOutcomeEntry | undefined)[] = [
    email.deliveredAt === undefined ? undefined : { outcome: 'delivered', at: email.deliveredAt },
    email.openedAt === undefined ? undefined : { outcome: 'opened', at: email.openedAt },
    email.clickedAt === undefined
      ? undefined
      : {
          outcome: 'clicked',
          at: email.clickedAt,
          ...(email.link ? { detail: email.link } : {}),
          ...(email.clicks === undefined ? {} : { count: email.clicks }),
        },
    email.bouncedAt === undefined
      ? undefined
      : { outcome: 'bounced', at: email.bouncedAt, ...(email.bounce ? { detail: email.bounce } : {}) },
    email.complainedAt === undefined ? undefined : { outcome: 'complained', at: email.complainedAt },
    email.unsubscribedAt === undefined ? undefined : { outcome: 'unsubscribed', at: email.unsubscribedAt },
    email.failedAt === undefined
      ? undefined
      : { outcome: 'failed', at: email.failedAt, ...(email.failure ? { detail: email.failure } : {}) },
  ];
  return entries.filter((e): e is EmailOutcomeEntry => e !== undefined).sort((a, b) => a.at - b.at);
};

/** The timeline of one address in the store, and whether the store suppressed it. */
const timelineOf = async (
  deps: ContactViewDeps,
  storeId: string,
  address: string,
): Promise<{ suppressed: boolean; timeline: TimelineEntry[] }> => {
  const since = deps.clock.now() - CONTACT_EVENTS_DAYS * 86_400_000;
  const [suppressed, events, page, emails, flows] = await Promise.all([
    deps.suppressions.suppressedAmong(storeId, [address]),
    deps.activity.since(storeId, address, since),
    deps.evaluations.listForContact(storeId, address, { limit: CONTACT_EVALUATIONS }),
    deps.emails.latest(storeId, address, CONTACT_EMAILS),
    deps.flows.list(storeId),
  ]);
  const names = new Map(flows.map((flow) => [flow.id, flow.name]));
  // A step as the merchant sees it on the flow's page: its place in the flow (1 = first), not its id.
  const positions = new Map(
    flows.flatMap((flow) => flatSteps(flow.steps).map((step, index) => [`${flow.id}#${step.id}`, index + 1] as const)),
  );
  const stepNumber = (flowId: string | undefined, stepId: string | undefined) =>
    flowId && stepId ? positions.get(`${flowId}#${stepId}`) : undefined;
  const runIds = page.items.map((e) => e.runId).filter((id): id is string => id !== undefined);
  const runs = new Map((await deps.runs.getMany(storeId, runIds)).map((run) => [run.id, run]));

  const timeline: TimelineEntry[] = [
    ...events.map(
      (entry): TimelineEntry => ({
        type: 'event',
        at: entry.at,
        kind: entry.kind,
        subject: `${entry.subject.type} ${entry.subject.id}${entry.status ? ` (${entry.status})` : ''}`,
      }),
    ),
    ...page.items.map((evaluation): TimelineEntry => {
      const run = evaluation.runId ? runs.get(evaluation.runId) : undefined;
      const flowName = evaluation.flowId ? names.get(evaluation.flowId) : undefined;
      return {
        type: 'evaluation',
        at: evaluation.evaluatedAt,
        ...(evaluation.flowId ? { flowId: evaluation.flowId } : {}),
        ...(flowName ? { flowName } : {}),
        outcome: evaluation.outcome,
        ...(evaluation.reason ? { reason: evaluation.reason } : {}),
        ...(run ? { runStatus: run.status } : {}),
      };
    }),
    ...[...runs.values()].flatMap((run) =>
      run.events
        .filter((event) => event.type !== 'entered')
        .map((event): TimelineEntry => {
          const flowName = names.get(run.flowId);
          return {
            type: 'run',
            at: event.at,
            ...(flowName ? { flowName } : {}),
            event: event.type,
            ...(stepNumber(run.flowId, event.stepId) ? { step: stepNumber(run.flowId, event.stepId) as number } : {}),
            ...(event.reason ? { detail: event.reason } : event.branch ? { detail: `branch ${event.branch}` } : {}),
          };
        }),
    ),
    ...emails.map((email): TimelineEntry => {
      const flowName = email.flowId ? names.get(email.flowId) : undefined;
      return {
        type: 'email',
        at: email.sentAt,
        kind: email.kind,
        transmissionId: email.transmissionId,
        ...(email.flowId ? { flowId: email.flowId } : {}),
        ...(flowName ? { flowName } : {}),
        ...(stepNumber(email.flowId, email.stepId) ? { step: stepNumber(email.flowId, email.stepId) as number } : {}),
        ...(email.subject ? { subject: email.subject } : {}),
        outcomes: outcomesOf(email),
      };
    }),
  ].sort((a, b) => b.at - a.at);
  return { suppressed: suppressed.has(address), timeline };
};

/**
 * A public sign-up's double opt-in on the timeline, from the contact itself: the confirmation asked
 * (`confirmation_requested`) and its owner's confirmation (`email_confirmed`).
 */
export const confirmationEntries = (contact: Customer): TimelineEntry[] => {
  const asked = contact.emailConfirmation;
  if (!asked) return [];
  const subject = `customer ${contact.originId}`;
  return [
    { type: 'event', at: asked.requestedAt, kind: 'confirmation_requested', subject },
    ...(asked.confirmedAt === undefined
      ? []
      : [{ type: 'event' as const, at: asked.confirmedAt, kind: 'email_confirmed', subject }]),
  ];
};

const withConfirmations = (timeline: readonly TimelineEntry[], contacts: readonly Customer[]): TimelineEntry[] =>
  [...timeline, ...contacts.flatMap(confirmationEntries)].sort((a, b) => b.at - a.at);

/** The contact page for an address (any case): every contact of the store with it, and its timeline. */
export const contactView = async (deps: ContactViewDeps, storeId: string, address: string): Promise<ContactView> => {
  const [contacts, { suppressed, timeline }] = await Promise.all([
    deps.contacts.find(storeId, address),
    timelineOf(deps, storeId, address),
  ]);
  return { email: address, contacts, suppressed, timeline: withConfirmations(timeline, contacts) };
};

/** One contact's page: its profile, and the timeline of its address (none without one). */
export const contactProfile = async (deps: ContactViewDeps, contact: Customer): Promise<ContactView> => {
  const address = contact.email?.trim().toLowerCase();
  if (!address) return { contacts: [contact], suppressed: false, timeline: [] };
  const { suppressed, timeline } = await timelineOf(deps, contact.storeId, address);
  return { email: address, contacts: [contact], suppressed, timeline: withConfirmations(timeline, [contact]) };
};

/** The contact page's query: a search (`q`, or `email`, `phone`, `name`), a contact (`id`), a page (`cursor`). */
export interface ContactPageQuery {
  readonly q?: string | undefined;
  readonly email?: string | undefined;
  readonly phone?: string | undefined;
  readonly name?: string | undefined;
  readonly id?: string | undefined;
  readonly cursor?: string | undefined;
}

/** What the contact page shows. */
export type ContactPageView =
  | { readonly type: 'form' }
  /** A malformed search or cursor, and why (400). */
  | { readonly type: 'refused'; readonly message: string }
  | { readonly type: 'profile'; readonly search?: ContactSearch; readonly view: ContactView }
  | { readonly type: 'missing'; readonly id: string }
  | {
      readonly type: 'results';
      readonly search: Exclude<ContactSearch, { kind: 'email' }>;
      readonly contacts: readonly Customer[];
      readonly nextCursor?: string;
    };

/**
 * The contact page: a contact by id; the contacts with an address; or a page of the contacts with a phone number or a
 * name prefix, straight to the profile when the first page holds exactly one and no other follows. 400 for a search
 * that is malformed or too long.
 */
export const contactPageView = async (
  deps: ContactViewDeps,
  storeId: string,
  query: ContactPageQuery,
): Promise<ContactPageView> => {
  try {
    return await pageView(deps, storeId, query);
  } catch (error) {
    if (error instanceof AppError && error.kind === 'validation') return { type: 'refused', message: error.message };
    throw error;
  }
};

const pageView = async (deps: ContactViewDeps, storeId: string, query: ContactPageQuery): Promise<ContactPageView> => {
  if (query.id !== undefined) {
    const contact = await deps.customers.get(storeId, query.id);
    return contact ? { type: 'profile', view: await contactProfile(deps, contact) } : { type: 'missing', id: query.id };
  }
  const search = parseContactSearch(query);
  if (!search) return { type: 'form' };
  if (search.kind === 'email') return { type: 'profile', search, view: await contactView(deps, storeId, search.email) };
  const page = await searchContacts(deps.search, storeId, search, query.cursor);
  const [only] = page.items;
  if (!query.cursor && !page.nextCursor && only && page.items.length === 1) {
    return { type: 'profile', search, view: await contactProfile(deps, only) };
  }
  return {
    type: 'results',
    search,
    contacts: page.items,
    ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
  };
};
