/**
 * What a flow or step id may be, apart from the flow schema: the routes and stats that only look a flow up need this,
 * not the schema's template validation (which loads the template engine: a cold start pays for it).
 */

/** Ids of flows and steps: they travel in URLs and SES message tags, which allow only these characters. */
export const SAFE_ID = /^[A-Za-z0-9_-]+$/;

/** Whether a path id could name a flow at all: one that cannot is simply not found (never a validation error). */
export const possibleFlowId = (id: string | undefined): id is string =>
  id !== undefined && id.length <= 64 && SAFE_ID.test(id);
