/**
 * The console's flow page: one flow with its funnel per email step over a range of days, its latest
 * evaluations (who entered, who was skipped and why), and each email previewed as the flow's latest run would have it
 * (or, before any run, the latest recorded trigger of its kind): rendered for a real contact of the store and the cart,
 * checkout, order or product its trigger carried.
 */
import { flowStats, type StatsDeps } from '#shared/domain/attribution/attribute.ts';
import type { Clock } from '#shared/domain/clock.ts';
import { type ContactLookup, findContact } from '#shared/domain/flows/contact-facts.ts';
import { noFlowPartition } from '#shared/domain/flows/enter-run.ts';
import type { Flow, FlowStep } from '#shared/domain/flows/flow.ts';
import { possibleFlowId } from '#shared/domain/flows/flow-id.ts';
import type {
  FlowEvaluationRepository,
  FlowRepository,
  FlowRunRepository,
  TriggerLog,
} from '#shared/domain/flows/ports.ts';
import { renderEmail, TemplateError } from '#shared/domain/flows/render.ts';
import type { FlowEvaluation, FlowRun } from '#shared/domain/flows/run.ts';
import { flatSteps } from '#shared/domain/flows/split.ts';
import { buildTemplateContext } from '#shared/domain/flows/template-context.ts';
import type { FlowTrigger } from '#shared/domain/flows/trigger.ts';
import { notFound } from '#shared/errors.ts';

/** Evaluations listed on the page, newest first. */
export const RECENT_EVALUATIONS = 10;

/** Where the preview's unsubscribe link points: nowhere (a preview must not unsubscribe anyone). */
export const PREVIEW_UNSUBSCRIBE_URL = 'https://unsubscribe.invalid/preview';

export interface FlowDetailDeps extends PreviewDeps {
  readonly attribution: StatsDeps['attribution'];
  readonly clock: Clock;
}

/** Where the previews come from: the flow's latest run, or the latest recorded trigger of its kind. */
export interface PreviewDeps extends ContactLookup {
  readonly flows: Pick<FlowRepository, 'get' | 'list'>;
  readonly evaluations: Pick<FlowEvaluationRepository, 'listForFlow'>;
  readonly runs: Pick<FlowRunRepository, 'getMany'>;
  readonly triggers: Pick<TriggerLog, 'get'>;
}

export interface EmailPreview {
  readonly stepId: string;
  /** The rendered parts, or why the templates did not render for this run. */
  readonly rendered: { readonly subject: string; readonly html?: string; readonly text?: string } | { error: string };
}

/** Whom a preview is for: a real trigger of the store (its contact, and the cart or order it carried). */
export interface PreviewSource {
  readonly trigger: FlowTrigger;
  readonly email: string;
  readonly at: number;
  /** The flow's own run it comes from, when it does. */
  readonly runId?: string;
}

export interface FlowDetail {
  readonly flow: Flow;
  readonly stats: Awaited<ReturnType<typeof flowStats>>;
  readonly recent: readonly { readonly evaluation: FlowEvaluation; readonly run?: FlowRun }[];
  /** The emails as the preview's source would get them; undefined when the store has no trigger of the kind yet. */
  readonly preview?: { readonly source: PreviewSource; readonly emails: readonly EmailPreview[] };
}

/** Evaluations looked at per partition when looking for a recorded trigger of the kind. */
const SOURCE_CANDIDATES = 5;

/**
 * The preview's source: the flow's latest run; else the latest trigger of the flow's kind still recorded (`TriggerLog`,
 * kept a while) that another flow of the kind evaluated, or that no flow took. Undefined when there is none.
 */
export const previewSource = async (
  deps: PreviewDeps,
  storeId: string,
  flow: Flow,
  latestRun?: FlowRun,
): Promise<PreviewSource | undefined> => {
  if (latestRun) {
    return { trigger: latestRun.trigger, email: latestRun.email, at: latestRun.startedAt, runId: latestRun.id };
  }
  const others = (await deps.flows.list(storeId)).filter((f) => f.trigger === flow.trigger).map((f) => f.id);
  for (const partition of [flow.id, ...others.filter((id) => id !== flow.id), noFlowPartition(flow.trigger)]) {
    const page = await deps.evaluations.listForFlow(storeId, partition, { limit: SOURCE_CANDIDATES });
    for (const evaluation of page.items) {
      if (!evaluation.email) continue;
      const trigger = await deps.triggers.get(storeId, evaluation.triggerId);
      if (trigger) return { trigger, email: evaluation.email, at: trigger.at };
    }
  }
  return undefined;
};

/** Each email step of `steps` rendered for `source` (a template that does not render says why). */
export const renderPreviews = async (
  deps: ContactLookup,
  store: { storeId: string; name: string },
  steps: readonly FlowStep[],
  source: PreviewSource,
): Promise<EmailPreview[]> => {
  const contact = await findContact(deps, store.storeId, source.trigger.contact, source.email);
  const context = buildTemplateContext({
    trigger: source.trigger,
    contact,
    store: { id: store.storeId, name: store.name },
    unsubscribeUrl: PREVIEW_UNSUBSCRIBE_URL,
  });
  return Promise.all(
    flatSteps(steps)
      .filter((step): step is Extract<FlowStep, { type: 'email' }> => step.type === 'email')
      .map(async (step): Promise<EmailPreview> => {
        try {
          return { stepId: step.id, rendered: await renderEmail(step, context) };
        } catch (error) {
          if (!(error instanceof TemplateError)) throw error;
          return { stepId: step.id, rendered: { error: error.message } };
        }
      }),
  );
};

/** The flow page of `flowId` in `store` for `from`…`to`; 404 for a flow the store does not have. */
export const flowDetail = async (
  deps: FlowDetailDeps,
  store: { storeId: string; name: string },
  flowId: string,
  query: { from?: string | undefined; to?: string | undefined },
): Promise<FlowDetail> => {
  const flow = possibleFlowId(flowId) ? await deps.flows.get(store.storeId, flowId) : undefined;
  if (!flow) throw notFound('Flow not found');
  const [stats, page] = await Promise.all([
    flowStats(deps, store.storeId, flowId, query),
    deps.evaluations.listForFlow(store.storeId, flowId, { limit: RECENT_EVALUATIONS }),
  ]);
  const runIds = page.items.map((e) => e.runId).filter((id): id is string => id !== undefined);
  const runs = new Map((await deps.runs.getMany(store.storeId, runIds)).map((run) => [run.id, run]));
  const recent = page.items.map((evaluation) => {
    const run = evaluation.runId ? runs.get(evaluation.runId) : undefined;
    return run ? { evaluation, run } : { evaluation };
  });
  const source = await previewSource(deps, store.storeId, flow, recent.find((entry) => entry.run)?.run);
  const preview = source ? { source, emails: await renderPreviews(deps, store, flow.steps, source) } : undefined;
  return { flow, stats, recent, ...(preview ? { preview } : {}) };
};
