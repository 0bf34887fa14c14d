/**
 * The conventions of the project's own APIs (docs/api-conventions.md), checked on docs/openapi.json: every timestamp is
 * integer epoch seconds, a contact's order count is named `orders`, a run's exit reason is at the run's top level, and
 * `from.name` is optional everywhere. The spec's own shapes are exempt (only the paths below
 * are walked). A break already known is listed in the doc and here; any other fails.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// biome-ignore lint/suspicious/noExplicitAny: the document is plain JSON walked by path; each rule checks what it reads.
type Json = Record<string, any>;

const doc: Json = JSON.parse(readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8'));

/** The project's own APIs: flows, segments, campaigns, stats, settings and an event's status. */
const OWN_PREFIXES = [
  '/api/v1/flows',
  '/api/v1/flow-activity',
  '/api/v1/stats',
  '/api/v1/segments',
  '/api/v1/campaigns',
  '/api/v1/settings',
];
const isOwn = (path: string, operation: Json): boolean =>
  OWN_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`)) ||
  operation['x-storeflow-function'] === 'event-status';

/** Breaks already known, each written in docs/api-conventions.md under "Known breaks". */
const KNOWN_BREAKS = [
  'time: BacktestJob.createdAt',
  'time: BacktestJob.finishedAt',
  'time: BacktestJob.progress.reachedAt',
  'time: BacktestJob.startedAt',
  'time: BacktestResult.runs[].delays[].until',
  'time: BacktestResult.runs[].enteredAt',
  'time: CampaignRequest.sendAt',
  'time: EventStatus.accepted_at',
  'time: EventStatus.failure.failed_at',
  'time: FlowActivityPage.list[].evaluatedAt',
  'time: FlowActivityPage.list[].run.events[].until',
  'time: FlowActivityPage.list[].run.startedAt',
  'time: FlowActivityPage.list[].run.updatedAt',
  'exit: BacktestResult.runs[].exit',
  'from: CampaignRequest.from',
];

const resolve = (s: Json): Json => {
  if (s && typeof s.$ref === 'string') {
    const name = s.$ref.split('/').pop() as string;
    return { ...doc.components.schemas[name], 'x-name': name };
  }
  return s;
};

const isTimestamp = (name: string): boolean => /(At|_at)$/.test(name) || name === 'until';

function walk(
  schema: Json,
  where: string,
  breaks: Set<string>,
  fromName: Map<string, boolean>,
  seen: Set<string>,
): void {
  const s = resolve(schema);
  if (!s || typeof s !== 'object') return;
  const label = s['x-name'] ?? where;
  if (s['x-name']) {
    if (seen.has(s['x-name'])) return;
    seen.add(s['x-name']);
  }
  for (const key of ['oneOf', 'anyOf', 'allOf']) for (const x of s[key] ?? []) walk(x, label, breaks, fromName, seen);
  if (s.items) walk(s.items, `${label}[]`, breaks, fromName, seen);
  for (const [name, raw] of Object.entries<Json>(s.properties ?? {})) {
    const p = resolve(raw);
    const at = `${label}.${name}`;
    // A read-only field a request ignores (described so, or an empty schema) is not a shape of its own.
    const ignored = /read-only: ignored/i.test(p.description ?? '') || Object.keys(p).length === 0;
    if (isTimestamp(name) && !ignored && !(p.type === 'integer' && /epoch seconds/i.test(p.description ?? '')))
      breaks.add(`time: ${at}`);
    if (/order/i.test(name) && p.type === 'integer' && name !== 'orders') breaks.add(`orders: ${at}`);
    if (name === 'exit' && p.type === 'object') breaks.add(`exit: ${at}`);
    if (name === 'from' && p.type === 'object' && p.properties?.name) {
      fromName.set(at, (p.required ?? []).includes('name'));
      if ((p.required ?? []).includes('name')) breaks.add(`from: ${at}`);
    }
    walk(p, at, breaks, fromName, seen);
  }
}

function check(): { breaks: string[]; fromName: Map<string, boolean> } {
  const breaks = new Set<string>();
  const fromName = new Map<string, boolean>();
  const seen = new Set<string>();
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const operation of Object.values<Json>(item)) {
      if (!operation || typeof operation !== 'object' || !operation.responses || !isOwn(path, operation)) continue;
      const bodies: Json[] = [];
      for (const c of Object.values<Json>(operation.requestBody?.content ?? {})) bodies.push(c.schema);
      for (const r of Object.values<Json>(operation.responses))
        for (const c of Object.values<Json>(r.content ?? {})) bodies.push(c.schema);
      for (const b of bodies) if (b) walk(b, `${path}`, breaks, fromName, seen);
    }
  }
  return { breaks: [...breaks].sort(), fromName };
}

describe("the project's own API conventions", () => {
  it('are kept, apart from the known breaks the doc lists', () => {
    expect(check().breaks).toEqual([...KNOWN_BREAKS].sort());
  });

  it('walk every sender object the own APIs take or give (from.name is checked on them)', () => {
    const { fromName } = check();
    expect([...fromName.keys()]).toEqual(
      expect.arrayContaining(['FlowStep.from', 'FlowBranchStep.from', 'CampaignRequest.from', 'CampaignRecord.from']),
    );
  });

  it('every known break is written in docs/api-conventions.md', () => {
    const text = readFileSync(new URL('../../../docs/api-conventions.md', import.meta.url), 'utf8');
    for (const b of KNOWN_BREAKS) expect(text, b).toContain(`\`${b}\``);
  });
});
