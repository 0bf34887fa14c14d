/**
 * The console's flow page (issue 17): one flow with its funnel per email step over a range of days, its latest
 * evaluations (who entered, who was skipped and why), and each email previewed as the flow's latest run would have it:
 * rendered for that run's real contact and the cart, checkout, order or product its trigger carried.
 */
import { flowStats, type StatsDeps } from '#shared/domain/attribution/attribute.ts';
import type { Clock } from '#shared/domain/clock.ts';
import { type ContactLookup, findContact } from '#shared/domain/flows/contact-facts.ts';
import type { Flow, FlowStep } from '#shared/domain/flows/flow.ts';
import { possibleFlowId } from '#shared/domain/flows/flow-id.ts';
import type { FlowEvaluationRepository, FlowRepository, FlowRunRepository } from '#shared/domain/flows/ports.ts';
import { renderEmail, TemplateError } from '#shared/domain/flows/render.ts';
import type { FlowEvaluation, FlowRun } from '#shared/domain/flows/run.ts';
import { buildTemplateContext } from '#shared/domain/flows/template-context.ts';
import { notFound } from '#shared/errors.ts';

/** Evaluations listed on the page, newest first. */
export const RECENT_EVALUATIONS = 10;

/** Where the preview's unsubscribe link points: nowhere (a preview must not unsubscribe anyone). */
export const PREVIEW_UNSUBSCRIBE_URL = 'https://unsubscribe.invalid/preview';

export interface FlowDetailDeps extends ContactLookup {
  readonly attribution: StatsDeps['attribution'];
  readonly flows: Pick<FlowRepository, 'get'>;
  readonly evaluations: Pick<FlowEvaluationRepository, 'listForFlow'>;
  readonly runs: Pick<FlowRunRepository, 'getMany'>;
  readonly clock: Clock;
}

export interface EmailPreview {
  readonly stepId: string;
  /** The rendered parts, or why the templates did not render for this run. */
  readonly rendered: { readonly subject: string; readonly html?: string; readonly text?: string } | { error: string };
}

export interface FlowDetail {
  readonly flow: Flow;
  readonly stats: Awaited<ReturnType<typeof flowStats>>;
  readonly recent: readonly { readonly evaluation: FlowEvaluation; readonly run?: FlowRun }[];
  /** The emails as the latest run that entered would get them; undefined before any run. */
  readonly preview?: { readonly run: FlowRun; readonly emails: readonly EmailPreview[] };
}

const previewOf = async (
  deps: FlowDetailDeps,
  store: { storeId: string; name: string },
  flow: Flow,
  run: FlowRun,
): Promise<FlowDetail['preview']> => {
  const contact = await findContact(deps, store.storeId, run.trigger.contact, run.email);
  const context = buildTemplateContext({
    trigger: run.trigger,
    contact,
    store: { id: store.storeId, name: store.name },
    unsubscribeUrl: PREVIEW_UNSUBSCRIBE_URL,
  });
  const emails = await Promise.all(
    flow.steps
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
  return { run, emails };
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
  const latest = recent.find((entry) => entry.run !== undefined)?.run;
  const preview = latest ? await previewOf(deps, store, flow, latest) : undefined;
  return { flow, stats, recent, ...(preview ? { preview } : {}) };
};
