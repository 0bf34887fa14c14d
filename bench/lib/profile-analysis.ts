/**
 * Where a `.cpuprofile`'s (V8 format) thread time went: by area (our code by file, each npm package, Node internals, GC,
 * idle), by owner (the same, with Node internals and builtins charged to the nearest caller of ours), by component (the
 * parts of the local stack a benchmark cares about), and by function, self and inclusive. Read by
 * `bench/profile-summary.ts` (the command line) and by the scenarios that put a profile's summary in the report.
 */
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}
interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}
export interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const ROOT = resolve(import.meta.dirname, '..', '..');

const pathOf = (url: string) => {
  if (!url.startsWith('file://')) return url;
  return relative(ROOT, fileURLToPath(url));
};

/** Our files by path, npm packages by name, Node's own modules, and V8's pseudo-frames. */
const areaOf = (frame: CallFrame): string => {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native / V8 builtins)';
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0] ?? ''}`;
  const path = pathOf(url);
  const modules = path.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const parts = path.slice(modules + 'node_modules/'.length).split('/');
    return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] ?? path);
  }
  return path;
};

const label = (frame: CallFrame) => {
  const where = frame.url ? `${pathOf(frame.url)}:${frame.lineNumber + 1}` : '';
  return `${frame.functionName || '(anonymous)'}${where ? `  ${where}` : ''}`;
};

/** Owners grouped into the parts of the local stack a benchmark cares about. */
const COMPONENTS: readonly [RegExp, string][] = [
  [/^@(smithy|aws-sdk|aws-crypto)\//, 'AWS SDK clients'],
  [/^(dynalite|.*level.*|lock|big\.js|lazy|once)$/, 'DynamoDB emulator (dynalite)'],
  [
    /^(fauxqs|fastify|@fastify\/.*|avvio|find-my-way|light-my-request|pino.*|@pinojs\/.*|fast-.*)$/,
    'SQS emulator (fauxqs)',
  ],
  [/^infra\/local\/gateway\.ts$/, 'Local HTTP gateway'],
  [/^(@middy\/.*|@aws-lambda-powertools\/.*|valibot|shared\/.*|functions\/.*)$/, 'Handler (middy, route, domain)'],
  [/^bench\//, 'Bench load generator'],
  [/^infra\//, 'Local runtime (other)'],
  [/^\(garbage collector\)/, 'GC'],
  [/^\(idle\)/, 'Idle'],
];
const componentOf = (owner: string) => COMPONENTS.find(([pattern]) => pattern.test(owner))?.[1] ?? `Other: ${owner}`;

/** A profile's time, in µs, by what it went to. */
export interface ProfileTimes {
  readonly totalUs: number;
  readonly busyUs: number;
  readonly samples: number;
  readonly components: ReadonlyMap<string, number>;
  readonly areas: ReadonlyMap<string, number>;
  readonly owners: ReadonlyMap<string, number>;
  readonly selfByFunction: ReadonlyMap<string, number>;
  readonly totalByFunction: ReadonlyMap<string, number>;
}

export const profileTimes = (profile: Profile): ProfileTimes => {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  // Sample weights: the time delta that follows each sample (V8 convention: delta[i] precedes sample i).
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i] ?? 0;
    const weight = profile.timeDeltas[i + 1] ?? 0;
    selfUs.set(id, (selfUs.get(id) ?? 0) + weight);
  }
  const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const idleUs = [...selfUs].reduce(
    (a, [id, us]) => (byId.get(id)?.callFrame.functionName === '(idle)' ? a + us : a),
    0,
  );

  /**
   * The nearest caller that is a file of ours or of a package: Node internals and V8 builtins (HTTP parsing, socket
   * writes, crypto, JSON) are charged to whoever called them. Samples with no such caller stay as they are (GC, idle,
   * or socket callbacks that run straight from the event loop).
   */
  const ownerOf = (id: number): string => {
    for (let cursor: number | undefined = id; cursor !== undefined; cursor = parent.get(cursor)) {
      const frame = byId.get(cursor)?.callFrame;
      if (frame?.url.startsWith('file://')) return areaOf(frame);
    }
    const leaf = byId.get(id)?.callFrame;
    return leaf ? `${areaOf(leaf)} (no caller of ours)` : '?';
  };

  const areas = new Map<string, number>();
  const owners = new Map<string, number>();
  const components = new Map<string, number>();
  const selfByFunction = new Map<string, number>();
  const totalByFunction = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    const area = areaOf(node.callFrame);
    areas.set(area, (areas.get(area) ?? 0) + us);
    const owner = ownerOf(id);
    owners.set(owner, (owners.get(owner) ?? 0) + us);
    const component = componentOf(owner);
    components.set(component, (components.get(component) ?? 0) + us);
    const key = label(node.callFrame);
    selfByFunction.set(key, (selfByFunction.get(key) ?? 0) + us);
    // Inclusive time: every distinct function on the stack gets the sample once.
    const seen = new Set<string>();
    for (let cursor: number | undefined = id; cursor !== undefined; cursor = parent.get(cursor)) {
      const frame = byId.get(cursor)?.callFrame;
      if (!frame || frame.functionName === '(root)') continue;
      const name = label(frame);
      if (seen.has(name)) continue;
      seen.add(name);
      totalByFunction.set(name, (totalByFunction.get(name) ?? 0) + us);
    }
  }
  return {
    totalUs,
    busyUs: totalUs - idleUs,
    samples: profile.samples.length,
    components,
    areas,
    owners,
    selfByFunction,
    totalByFunction,
  };
};

/** The `limit` largest of `rows`, largest first. */
export const largest = (rows: ReadonlyMap<string, number>, limit: number): [string, number][] =>
  [...rows].sort((a, b) => b[1] - a[1]).slice(0, limit);

/**
 * One line for a report: the busy time, then the largest components and functions (self time) as shares of it, idle
 * left out; `per` adds µs per unit of work (e.g. per applied event).
 */
export const profileLine = (times: ProfileTimes, options: { readonly per?: number; readonly top?: number } = {}) => {
  const top = options.top ?? 6;
  const share = (us: number) => `${((100 * us) / times.busyUs).toFixed(1)} %`;
  const perUnit = (us: number) => (options.per ? `, ${Math.round(us / options.per)} µs each` : '');
  const rows = (map: ReadonlyMap<string, number>) =>
    largest(new Map([...map].filter(([name]) => !/^(Idle|\(idle\))/.test(name))), top)
      .map(([name, us]) => `${name.replace(/ {2}/, ' ')} ${share(us)}`)
      .join('; ');
  return `busy ${(times.busyUs / 1e6).toFixed(2)} s of ${(times.totalUs / 1e6).toFixed(2)} s${perUnit(times.busyUs)}; by component: ${rows(times.components)}; top functions by self time: ${rows(times.selfByFunction)}`;
};
