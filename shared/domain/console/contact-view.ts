/**
 * The console's contact page (issue 17): find a contact by email address; its profile (fields, consent, tags,
 * suppression), and one timeline of what happened to the address: the events that reached the flows, every flow's
 * decision about it (entered, or skipped and why: the explain view) and each run's steps (waits, emails sent).
 */

import type { Clock } from '#shared/domain/clock.ts';
import type { ContactsByEmail } from '#shared/domain/contacts/ports.ts';
import type { Customer } from '#shared/domain/customers/model.ts';
import type { Suppressions } from '#shared/domain/email/ports.ts';
import { normalEmail } from '#shared/domain/flows/contact-facts.ts';
import type {
  ContactActivity,
  FlowEvaluationRepository,
  FlowRepository,
  FlowRunRepository,
} from '#shared/domain/flows/ports.ts';
import type { FlowEvaluation, FlowRun } from '#shared/domain/flows/run.ts';
import { validationError } from '#shared/errors.ts';

/** Evaluations read for the timeline (newest first), and how far back the events go. */
export const CONTACT_EVALUATIONS = 50;
export const CONTACT_EVENTS_DAYS = 90;
const MAX_EMAIL_CHARS = 254;

export interface ContactViewDeps {
  readonly contacts: ContactsByEmail;
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
      readonly stepId?: string;
      readonly detail?: string;
    };

export interface ContactView {
  readonly email: string;
  /** Every contact of the store with the address (usually one). */
  readonly contacts: readonly Customer[];
  readonly suppressed: boolean;
  /** Newest first. */
  readonly timeline: readonly TimelineEntry[];
}

/** The contact page for `email` (trimmed, any case); 400 for something that is not an address. */
export const contactView = async (deps: ContactViewDeps, storeId: string, email: string): Promise<ContactView> => {
  const address = normalEmail(email);
  if (!address || address.length > MAX_EMAIL_CHARS || !/^[^\s@]+@[^\s@]+$/.test(address)) {
    throw validationError('email must be an email address');
  }
  const since = deps.clock.now() - CONTACT_EVENTS_DAYS * 86_400_000;
  const [contacts, suppressed, events, page, flows] = await Promise.all([
    deps.contacts.find(storeId, address),
    deps.suppressions.suppressedAmong(storeId, [address]),
    deps.activity.since(storeId, address, since),
    deps.evaluations.listForContact(storeId, address, { limit: CONTACT_EVALUATIONS }),
    deps.flows.list(storeId),
  ]);
  const names = new Map(flows.map((flow) => [flow.id, flow.name]));
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
            ...(event.stepId ? { stepId: event.stepId } : {}),
            ...(event.reason ? { detail: event.reason } : {}),
          };
        }),
    ),
  ].sort((a, b) => b.at - a.at);
  return { email: address, contacts, suppressed: suppressed.has(address), timeline };
};
