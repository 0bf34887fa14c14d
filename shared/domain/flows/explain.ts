/**
 * The explain views: every evaluation of a trigger against a flow, newest first, each `entered` one with its run's
 * current state. Scoped to the authenticated store: another store's flow answers exactly like a missing one.
 */

import { notFound, validationError } from '#shared/errors.ts';
import { possibleFlowId } from './flow-schema.ts';
import type { FlowEvaluationRepository, FlowRepository, FlowRunRepository, Page } from './ports.ts';
import { evaluationRecord, type FlowEvaluation } from './run.ts';

export interface ExplainDeps {
  readonly flows: Pick<FlowRepository, 'get'>;
  readonly evaluations: FlowEvaluationRepository;
  readonly runs: Pick<FlowRunRepository, 'getMany'>;
}

export const EXPLAIN_PAGE = { default: 20, max: 100 } as const;

export interface PageQuery {
  readonly limit?: string | undefined;
  readonly cursor?: string | undefined;
}

const pageOf = (query: PageQuery) => {
  const limit = query.limit === undefined ? EXPLAIN_PAGE.default : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > EXPLAIN_PAGE.max) {
    throw validationError(`limit must be an integer from 1 to ${EXPLAIN_PAGE.max}`);
  }
  return { limit, ...(query.cursor ? { cursor: query.cursor } : {}) };
};

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

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** `GET /api/v1/flow-activity?email=&limit=&cursor=`: every evaluation and run for the address, across flows. */
export const listContactActivity = async (
  deps: ExplainDeps,
  storeId: string,
  query: PageQuery & { readonly email?: string | undefined },
) => {
  const email = query.email?.trim().toLowerCase();
  if (!email || email.length > 254 || !EMAIL.test(email)) {
    throw validationError('email is required: the address whose flow activity to show');
  }
  return withRuns(deps, storeId, await deps.evaluations.listForContact(storeId, email, pageOf(query)));
};
