/**
 * Summarises a `.cpuprofile` (V8 format, e.g. from `npm run bench -- ingest --profile`): where the thread's time went,
 * by area (our code by file, each npm package, Node internals, GC, idle), by owner (the same, with Node internals
 * charged to their caller), then the top functions by self time and by total (inclusive) time.
 *
 *   npm exec -- node bench/profile-summary.ts bench/results/ingest-gateway.cpuprofile [--top 30] [--per 5000] [--match gateway]
 *
 * `--per N` adds a column of µs per unit, e.g. per accepted event of the profiled phase; `--match REGEX` lists the
 * inclusive time of every function whose name or file matches.
 */
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

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
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const ROOT = resolve(import.meta.dirname, '..');

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '25' }, per: { type: 'string' }, match: { type: 'string' } },
});
const file = positionals[0];
if (!file) {
  console.error(
    'Usage: npm exec -- node bench/profile-summary.ts <file.cpuprofile> [--top N] [--per UNITS] [--match REGEX]',
  );
  process.exit(2);
}
const top = Number(values.top);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

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
const idleUs = [...selfUs].reduce((a, [id, us]) => (byId.get(id)?.callFrame.functionName === '(idle)' ? a + us : a), 0);
const busyUs = totalUs - idleUs;

const ms = (us: number) => (us / 1000).toFixed(0).padStart(7);
const pct = (us: number, of: number) => `${((100 * us) / of).toFixed(1).padStart(5)}%`;

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

const perUnit = values.per === undefined ? undefined : Number(values.per);
const print = (title: string, rows: Map<string, number>, limit: number) => {
  console.log(`\n${title}`);
  console.log(`${'ms'.padStart(7)}  ${'busy'.padStart(6)}${perUnit ? `  ${'µs/unit'.padStart(7)}` : ''}  what`);
  for (const [name, us] of [...rows].sort((a, b) => b[1] - a[1]).slice(0, limit)) {
    const each = perUnit ? `  ${(us / perUnit).toFixed(0).padStart(7)}` : '';
    console.log(`${ms(us)}  ${pct(us, busyUs)}${each}  ${name}`);
  }
};

console.log(
  `${file}: ${(totalUs / 1e6).toFixed(2)} s profiled, ${(busyUs / 1e6).toFixed(2)} s busy (${pct(busyUs, totalUs).trim()}), ${profile.samples.length} samples`,
);
print('By component (self time, charged as in "by owner")', components, top);
print('By area (self time)', areas, top);
print('By owner (self time, Node internals and builtins charged to the nearest package or file of ours)', owners, top);
print('Top functions by self time', selfByFunction, top);
print('Top functions by total time (inclusive)', totalByFunction, top);
if (values.match) {
  // Inclusive time is exact for synchronous work only: an async function's time after its first await is charged
  // to whatever resumed it (the microtask queue), not to the function.
  const pattern = new RegExp(values.match);
  const matching = new Map([...totalByFunction].filter(([name]) => pattern.test(name)));
  print(`Functions matching /${values.match}/ by total time (inclusive, synchronous part)`, matching, matching.size);
}
