/**
 * The explain views: every evaluation of a trigger against a flow, newest first, each `entered` one with its run's
 * current state. Scoped to the authenticated store: another store's flow answers exactly like a missing one.
 */

import { notFound } from '#shared/errors.ts';
import { possibleFlowId } from './flow-id.ts';
import type { FlowEvaluationRepository, FlowRepository, FlowRunRepository, Page } from './ports.ts';
import { evaluationRecord, type FlowEvaluation } from './run.ts';

export interface ExplainDeps {
  readonly flows: Pick<FlowRepository, 'get'>;
  readonly evaluations: FlowEvaluationRepository;
  readonly runs: Pick<FlowRunRepository, 'getMany'>;
}

export const EXPLAIN_PAGE = { default: 20, max: 100 } as const;

/** A page as the HTTP layer read it: `limit` within `EXPLAIN_PAGE`, and the previous page's cursor. */
export interface PageQuery {
  readonly limit: number;
  readonly cursor?: string | undefined;
}

const pageOf = (query: PageQuery) => ({ limit: query.limit, ...(query.cursor ? { cursor: query.cursor } : {}) });

const withRuns = async (deps: ExplainDeps, storeId: string, page: Page<FlowEvaluation>) => {
  const runIds = page.items.map((evaluation) => evaluation.runId).filter((id): id is string => id !== undefined);
  const runs = new Map((await deps.runs.getMany(storeId, runIds)).map((run) => [run.id, run]));
  return {
    list: page.items.map((evaluation) =>
      evaluationRecord(evaluation, evaluation.runId ? runs.get(evaluation.runId) : undefined),
    ),
    ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
  };
};

/** `GET /api/v1/flows/{flowId}/runs?limit=&cursor=`: the flow's evaluations and runs, newest first. */
export const listFlowRuns = async (
  deps: ExplainDeps,
  storeId: string,
  flowId: string | undefined,
  query: PageQuery,
) => {
  const page = pageOf(query);
  if (!possibleFlowId(flowId) || !(await deps.flows.get(storeId, flowId))) throw notFound('Flow not found');
  return withRuns(deps, storeId, await deps.evaluations.listForFlow(storeId, flowId, page));
};

/** `GET /api/v1/flow-activity?email=&limit=&cursor=`: every evaluation and run for the address, across flows. */
export const listContactActivity = async (
  deps: ExplainDeps,
  storeId: string,
  query: PageQuery & { readonly email: string },
) => withRuns(deps, storeId, await deps.evaluations.listForContact(storeId, query.email, pageOf(query)));
