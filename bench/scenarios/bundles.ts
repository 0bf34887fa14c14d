/**
 * Bundles scenario: the cold-start proxies of every function in the catalog, as the issue asks: "bundled size
 * (minified, tree-shaken, with the SDK clients bundled) and module init time in a fresh Node process". No runtime, no
 * network: for each catalog function, in catalog order,
 *
 * 1. bundle its entry with esbuild exactly as `NodejsFunction` does for the deployed stack (the settings are the one
 *    object infra/bundling.ts, which infra/constructs/service-function.ts uses too): `--bundle --platform=node
 *    --format=esm --target=node24 --main-fields=module,main --minify --sourcemap --sources-content=false`, the
 *    `createRequire` banner, nothing external (the AWS SDK clients are bundled) → `index.mjs` + `index.mjs.map`;
 * 2. record its bytes (and gzip bytes, what the deployment zip roughly costs) and, from esbuild's metafile, the bytes
 *    each input contributes, grouped by package (`@aws-sdk/client-dynamodb`, `@smithy/*`, … and `(service code)`);
 * 3. time its module init in fresh Node processes (median reported), one per core at a time: one round over every
 *    function (and the reference, 9 times), then more rounds (up to `--count`, default 5 samples in all) over the
 *    reference and the functions near the cold-start line (1.25 × the reference's init CPU or more; 1.4 × from the 4th
 *    sample): a child `node`
 *    with the Lambda's `NODE_OPTIONS=--enable-source-maps` and a Lambda-like environment (region, fake credentials, the
 *    function's variables with placeholder values) imports the bundle; the figure is `performance.now()` right before
 *    the `import()` to right after it (the module graph evaluated, the handler exported). The time from the process's
 *    start to the same point (Node's own boot included) is reported beside it as context. The same again without
 *    `--enable-source-maps` for the largest bundle: what the source-map decision costs at init.
 *
 * Targets: every bundle under 1 MB (1,000,000 bytes of `index.mjs`), every median import under 150 ms.
 * Absolute times move with the machine's load (init is CPU-bound, single-threaded); sizes are exact.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { formatNumber, round } from '#bench/lib/stats.ts';
import type { Metric, Result, Scenario, ScenarioOptions } from '#bench/scenario.ts';
import { LAMBDA_BUNDLING, LAMBDA_NODE_OPTIONS } from '#infra/bundling.ts';
import type { FunctionSpec } from '#shared/catalog/function-spec.ts';
import { FUNCTIONS } from '#shared/catalog/functions.ts';
import { QUEUES } from '#shared/catalog/queues.ts';
import { ENV } from '#shared/config.ts';

const ROOT = resolve(import.meta.dirname, '../..');
/** Issue 8's targets. */
export const MAX_BUNDLE_BYTES = 1_000_000;
export const MAX_INIT_MS = 150;
/**
 * Samples (fresh processes) per function at most, median reported (`--count bundles=N` to change it). Every function
 * is sampled once; the later rounds sample only the functions near the cold-start line, judged on their samples so far
 * against the reference's: rounds 2 and 3 those at NEAR_LINE × the reference or more, rounds 4 and up those at
 * CLOSE_TO_LINE or more. A function far below the line cannot cross it on more samples; one near it gets 3 to 5.
 */
const DEFAULT_RUNS = 5;
const NEAR_LINE = 1.25;
const CLOSE_TO_LINE = 1.4;
/** The round (0-based) from which only the functions at CLOSE_TO_LINE or more are sampled. */
const CLOSE_ROUNDS_FROM = 3;
/**
 * The first round samples the reference before every REFERENCE_EVERY functions (9 samples over 84 functions), each
 * later round once: the reference's median divides every ratio, so it gets the most samples, spread over the run.
 */
const REFERENCE_EVERY = 10;
/**
 * Fresh processes at a time (`--concurrency N` to change it): one per core, up to 4. The figure is init CPU time, which
 * a process waiting for a core does not accrue; each child is single-threaded for most of its import.
 */
const defaultParallelism = () => Math.max(1, Math.min(4, availableParallelism()));
/** Packages (or `(service code)`) listed per function, largest first. */
const TOP_INPUTS = 6;
const CHILD_TIMEOUT_MS = 30_000;
/** Issue 16: no function's median init CPU over this many times the reference's (a handler importing only DynamoDB). */
export const MAX_INIT_CPU_RATIO = 1.5;
const REFERENCE = { name: 'reference-dynamodb-only', entry: 'bench/lib/reference-handler.ts' } as const;

/** The bundle of one function, built as the CDK stack builds it, with esbuild's account of what is in it. */
export interface Bundle {
  readonly name: string;
  readonly file: string;
  readonly bytes: number;
  readonly gzipBytes: number;
  readonly mapBytes: number;
  /** Bytes in the output per package, largest first (all of them). */
  readonly packages: readonly { readonly name: string; readonly bytes: number }[];
}

/** `node_modules/@aws-sdk/client-sqs/dist-es/…` → `@aws-sdk/client-sqs`; the service's own files → `(service code)`. */
export const packageOf = (input: string): string => {
  const at = input.lastIndexOf('node_modules/');
  if (at === -1) return '(service code)';
  const [first = '', second = ''] = input.slice(at + 'node_modules/'.length).split('/');
  return first.startsWith('@') ? `${first}/${second}` : first;
};

/**
 * Bundles catalog functions into `outDir/<name>/index.mjs` with the deployed settings, in one esbuild call with an
 * entry point per function: without code splitting, each output is linked (and tree-shaken) on its own, self-contained
 * as `NodejsFunction` builds it, but the inputs they share (the AWS SDK, the service's code) are parsed once instead of
 * once per function (84 separate builds took most of a minute).
 */
export const bundleFunctions = async (
  specs: readonly Pick<FunctionSpec, 'name' | 'entry'>[],
  outDir: string,
): Promise<Bundle[]> => {
  const { metafile } = await build({
    absWorkingDir: ROOT,
    entryPoints: specs.map((spec) => ({ in: join(ROOT, spec.entry), out: join(spec.name, 'index') })),
    outdir: outDir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: false,
    platform: 'node',
    format: LAMBDA_BUNDLING.format,
    target: LAMBDA_BUNDLING.target,
    mainFields: [...LAMBDA_BUNDLING.mainFields],
    banner: { js: LAMBDA_BUNDLING.banner },
    minify: LAMBDA_BUNDLING.minify,
    sourcemap: LAMBDA_BUNDLING.sourceMap,
    sourcesContent: LAMBDA_BUNDLING.sourcesContent,
    // bundleAwsSDK: nothing is external, as NodejsFunction does then.
    external: [],
    metafile: true,
    logLevel: 'silent',
  });
  const outputs = Object.entries((metafile as Metafile).outputs);
  return specs.map((spec) => {
    const file = join(outDir, spec.name, 'index.mjs');
    const output = outputs.find(([path]) => resolve(ROOT, path) === file)?.[1];
    if (!output) throw new Error(`esbuild wrote no index.mjs for ${spec.name}`);
    const byPackage = new Map<string, number>();
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      byPackage.set(packageOf(input), (byPackage.get(packageOf(input)) ?? 0) + bytesInOutput);
    }
    const code = readFileSync(file);
    return {
      name: spec.name,
      file,
      bytes: code.length,
      gzipBytes: gzipSync(code).length,
      mapBytes: statSync(`${file}.map`).size,
      packages: [...byPackage].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes),
    };
  });
};

/** Bundles one catalog function into `outDir/<name>/index.mjs` with the deployed settings. */
export const bundleFunction = async (spec: Pick<FunctionSpec, 'name' | 'entry'>, outDir: string): Promise<Bundle> =>
  (await bundleFunctions([spec], outDir))[0] as Bundle;

/**
 * The environment of a deployed function, with placeholders: the variables the stack sets (table, queues, bucket,
 * secret, scheduler…) so that nothing the module does at load time finds one missing, and a region and credentials so
 * that SDK clients built at load time do not look further. Nothing is called: only the import is timed.
 */
const lambdaEnvironment = (spec: Pick<FunctionSpec, 'name'>, sourceMaps: boolean): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '',
    AWS_REGION: 'us-east-1',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_LAMBDA_FUNCTION_NAME: `storeflow-bench-${spec.name}`,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '256',
    POWERTOOLS_SERVICE_NAME: 'storeflow',
    POWERTOOLS_LOG_LEVEL: 'INFO',
    [ENV.stage]: 'bench',
    [ENV.tableName]: 'storeflow-bench',
    [ENV.importsBucket]: 'storeflow-bench-imports',
    [ENV.masterKeySecretId]: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:storeflow-bench',
    [ENV.scheduleGroup]: 'storeflow-bench',
    [ENV.schedulerRoleArn]: 'arn:aws:iam::000000000000:role/storeflow-bench-scheduler',
    [ENV.timersQueueArn]: 'arn:aws:sqs:us-east-1:000000000000:storeflow-bench-timers',
  };
  for (const [name, queue] of Object.entries(QUEUES)) {
    env[queue.urlEnv] = `https://sqs.us-east-1.amazonaws.com/000000000000/storeflow-bench-${name}`;
  }
  if (sourceMaps) env.NODE_OPTIONS = LAMBDA_NODE_OPTIONS;
  return env;
};

/** What the child prints: ms from before `import()` to after it, and from the process's start to after it. */
const CHILD = `
const cpu = process.cpuUsage();
const before = performance.now();
await import(process.argv[1]);
const after = performance.now();
const used = process.cpuUsage(cpu);
process.stdout.write(JSON.stringify({
  importMs: after - before,
  cpuMs: (used.user + used.system) / 1000,
  sinceStartMs: after,
}));
`;

export interface InitSample {
  /** Wall time of the import: what a cold start waits for. */
  readonly importMs: number;
  /** CPU time of the import (user + system, all threads): steadier than wall time when other processes compete. */
  readonly cpuMs: number;
  readonly sinceStartMs: number;
}

/** Imports the bundle in a fresh Node process (the same Node as this one) and returns its timings. */
export const timeInit = (
  bundle: Pick<Bundle, 'name' | 'file'>,
  options: { sourceMaps: boolean },
): Promise<InitSample> =>
  new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '--eval', CHILD, bundle.file], {
      env: lambdaEnvironment(bundle, options.sourceMaps),
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: CHILD_TIMEOUT_MS,
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.once('error', reject);
    child.once('close', (code) => {
      try {
        if (code !== 0) throw new Error(`exit code ${code}`);
        resolvePromise(JSON.parse(out) as InitSample);
      } catch (error) {
        reject(new Error(`init of ${bundle.name} failed (${(error as Error).message}): ${err.trim().slice(0, 500)}`));
      }
    });
  });

/** Runs `work` over `items`, at most `limit` at a time. */
const forEachLimit = async <T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>) => {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  });
  await Promise.all(lanes);
};

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

/** Bytes of the bundle that are the AWS SDK and its runtime. */
const sdkBytes = (bundle: Bundle): number =>
  bundle.packages.filter((p) => /^@(aws-sdk|smithy|aws-crypto)\//.test(p.name)).reduce((sum, p) => sum + p.bytes, 0);

const kb = (bytes: number) => `${formatNumber(round(bytes / 1000, 1))} kB`;

interface Measured extends Bundle {
  readonly importMs: readonly number[];
  readonly cpuMs: readonly number[];
  readonly sinceStartMs: readonly number[];
}

const run = async (options: ScenarioOptions): Promise<Result> => {
  const runs = options.count ?? DEFAULT_RUNS;
  const outDir = mkdtempSync(join(tmpdir(), 'storeflow-bundles-'));
  try {
    const bundleStart = performance.now();
    const [reference, ...bundled] = await bundleFunctions(
      [REFERENCE, ...(FUNCTIONS as readonly FunctionSpec[])],
      outDir,
    );
    if (!reference) throw new Error('esbuild bundled nothing');
    options.log(
      `  ${bundled.length + 1} bundles (the reference too) in ${round((performance.now() - bundleStart) / 1000, 1)} s`,
    );
    const sampleStart = performance.now();
    const parallel = options.given.has('concurrency') ? options.concurrency : defaultParallelism();
    // One unmeasured import first, of the reference: it brings Node's own files into the OS cache. The bundles are
    // already there (esbuild has just written them), as a Lambda's package is on local disk.
    await timeInit(reference, { sourceMaps: true });
    // Rounds over the functions, `parallel` fresh processes at a time, the reference among them (see REFERENCE_EVERY):
    // whatever else the machine does during the scenario falls on the reference and the functions alike. The first
    // round samples every function once; the later ones (up to `runs`) only those near the line (see DEFAULT_RUNS).
    const samples = new Map<string, InitSample[]>();
    const sampled = (name: string) => samples.get(name) ?? [];
    const ratioSoFar = (name: string) =>
      median(sampled(name).map((s) => s.cpuMs)) / median(sampled(reference.name).map((s) => s.cpuMs));
    let processes = 0;
    for (let pass = 0; pass < runs; pass++) {
      const floor = pass >= CLOSE_ROUNDS_FROM ? CLOSE_TO_LINE : NEAR_LINE;
      const those = pass === 0 ? bundled : bundled.filter((bundle) => ratioSoFar(bundle.name) >= floor);
      if (those.length === 0) break;
      const queue =
        pass === 0
          ? those.flatMap((b, i) => (i % REFERENCE_EVERY === 0 ? [reference, b] : [b]))
          : [reference, ...those];
      await forEachLimit(queue, parallel, async (bundle) => {
        const sample = await timeInit(bundle, { sourceMaps: true });
        samples.set(bundle.name, [...sampled(bundle.name), sample]);
      });
      processes += queue.length;
    }
    options.log(
      `  ${processes} fresh processes, ${parallel} at a time, in ${round((performance.now() - sampleStart) / 1000, 1)} s`,
    );
    const measured: Measured[] = bundled.map((bundle) => {
      const of = samples.get(bundle.name) ?? [];
      const entry: Measured = {
        ...bundle,
        importMs: of.map((s) => s.importMs),
        cpuMs: of.map((s) => s.cpuMs),
        sinceStartMs: of.map((s) => s.sinceStartMs),
      };
      options.log(
        `  ${bundle.name.padEnd(28)} ${kb(bundle.bytes).padStart(9)}  init ${round(median(entry.importMs), 1)} ms, ` +
          `CPU ${round(median(entry.cpuMs), 1)} ms (${round(median(entry.sinceStartMs), 1)} ms from process start)`,
      );
      return entry;
    });

    // The reference, timed the same way in the same rounds.
    const referenceSamples = samples.get(reference.name) ?? [];
    const referenceCpu = median(referenceSamples.map((s) => s.cpuMs));
    const cpuRatio = (m: Measured) => median(m.cpuMs) / referenceCpu;
    const overReference = measured
      .filter((m) => cpuRatio(m) > MAX_INIT_CPU_RATIO)
      .sort((a, b) => cpuRatio(b) - cpuRatio(a));
    options.log(
      `  ${REFERENCE.name.padEnd(28)} ${kb(reference.bytes).padStart(9)}  init CPU ${round(referenceCpu, 1)} ms (reference)`,
    );

    const bySize = [...measured].sort((a, b) => b.bytes - a.bytes);
    const byInit = [...measured].sort((a, b) => median(b.importMs) - median(a.importMs));
    const byCpu = [...measured].sort((a, b) => median(b.cpuMs) - median(a.cpuMs));
    const largest = bySize[0];
    const slowest = byInit[0];
    const costliest = byCpu[0];
    if (!largest || !slowest || !costliest) throw new Error('the catalog has no function');

    // The source-map decision: the largest bundle's init without --enable-source-maps, as many samples as with.
    const withoutMaps: InitSample[] = [];
    await forEachLimit(
      Array.from({ length: largest.cpuMs.length }, () => largest),
      parallel,
      async (bundle) => {
        withoutMaps.push(await timeInit(bundle, { sourceMaps: false }));
      },
    );

    const share = (bundle: Bundle) =>
      bundle.packages
        .slice(0, TOP_INPUTS)
        .map((p) => `${p.name} ${kb(p.bytes)} (${Math.round((p.bytes / bundle.bytes) * 100)} %)`)
        .join(', ');

    const metrics: Metric[] = [
      {
        key: 'largestBundleBytes',
        label: `Largest bundle (${largest.name})`,
        value: largest.bytes,
        unit: 'bytes',
        target: { op: '<=', value: MAX_BUNDLE_BYTES },
      },
      {
        key: 'bundlesOverTarget',
        label: `Bundles over ${formatNumber(MAX_BUNDLE_BYTES)} bytes`,
        value: measured.filter((m) => m.bytes > MAX_BUNDLE_BYTES).length,
        unit: `of ${measured.length}`,
        target: { op: '<=', value: 0 },
      },
      {
        key: 'slowestInitMs',
        label: `Slowest median module init (${slowest.name})`,
        value: round(median(slowest.importMs), 1),
        unit: 'ms',
        target: { op: '<=', value: MAX_INIT_MS },
      },
      {
        key: 'costliestInitCpuMs',
        label: `Most CPU in module init, median (${costliest.name})`,
        value: round(median(costliest.cpuMs), 1),
        unit: 'ms',
        target: { op: '<=', value: MAX_INIT_MS },
      },
      {
        key: 'initsOverTarget',
        label: `Functions with median init over ${MAX_INIT_MS} ms`,
        value: measured.filter((m) => median(m.importMs) > MAX_INIT_MS).length,
        unit: `of ${measured.length}`,
        target: { op: '<=', value: 0 },
      },
      {
        key: 'initCpuOverReference',
        label: `Functions whose median init CPU is over ${MAX_INIT_CPU_RATIO} × the DynamoDB-only reference's (${round(referenceCpu, 1)} ms)`,
        value: overReference.length,
        unit: `of ${measured.length}`,
        target: { op: '<=', value: 0 },
      },
      {
        key: 'medianBundleBytes',
        label: 'Median bundle',
        value: median(measured.map((m) => m.bytes)),
        unit: 'bytes',
      },
      {
        key: 'sourceMapInitCpuMs',
        label: `CPU --enable-source-maps adds to ${largest.name}'s init`,
        value: round(median(largest.cpuMs) - median(withoutMaps.map((s) => s.cpuMs)), 1),
        unit: 'ms',
      },
    ];

    const notes = [
      `${measured.length} functions bundled as deployed (esbuild ESM, node24, minified, tree-shaken, AWS SDK bundled, ` +
        `linked source map without sources); init = median of fresh \`node\` processes importing the bundle with ` +
        `NODE_OPTIONS=--enable-source-maps, ${parallel} at a time, after one unmeasured import: every function once, ` +
        `then up to ${runs} samples for those at ${NEAR_LINE} × the reference's init CPU or more (${CLOSE_TO_LINE} × ` +
        `from the ${CLOSE_ROUNDS_FROM + 1}th): ${measured.filter((m) => m.cpuMs.length > 1).length} of ` +
        `${measured.length}; ${processes} processes), ${process.version}.`,
      `Largest: ${largest.name}, ${kb(largest.bytes)} (${kb(largest.gzipBytes)} gzip): ${share(largest)}.`,
      `Why: ${Math.round((sdkBytes(largest) / largest.bytes) * 100)} % of it is the AWS SDK (@aws-sdk/*, @smithy/*, ` +
        `@aws-crypto/*): the clients ${largest.packages
          .filter((p) => /^@aws-sdk\/(client-|s3-request-presigner)/.test(p.name))
          .map((p) => p.name.replace('@aws-sdk/', ''))
          .join(', ')} and the core they share; the service's own code is ` +
        `${kb(largest.packages.find((p) => p.name === '(service code)')?.bytes ?? 0)}.`,
      `${largest.name} init with --enable-source-maps: ${round(median(largest.importMs), 1)} ms wall, ` +
        `${round(median(largest.cpuMs), 1)} ms CPU; without: ${round(median(withoutMaps.map((s) => s.importMs)), 1)} ms ` +
        `wall, ${round(median(withoutMaps.map((s) => s.cpuMs)), 1)} ms CPU (the source-map decision, infra/bundling.ts).`,
      'Wall time is what a cold start waits for, but on a shared machine it includes waiting for a core: when the ' +
        "load average is above the core count, compare the CPU figures, which other processes' work does not inflate.",
      `Reference (a handler importing only @aws-sdk/client-dynamodb, bundled and timed the same way): ` +
        `${kb(reference.bytes)}, init CPU ${round(referenceCpu, 1)} ms. Over ${MAX_INIT_CPU_RATIO} × it: ` +
        (overReference.length === 0
          ? 'none.'
          : `${overReference.map((m) => `${m.name} ${round(cpuRatio(m), 2)}×`).join(', ')}.`),
      `Per function (bytes, median init wall / CPU ms): ${measured
        .map((m) => `${m.name} ${kb(m.bytes)} ${round(median(m.importMs), 1)}/${round(median(m.cpuMs), 1)}`)
        .join('; ')}.`,
    ];

    return {
      scenario: 'bundles',
      title: 'Function bundles: size and module init (cold-start proxies)',
      metrics,
      notes,
      details: {
        runs,
        nearLine: NEAR_LINE,
        closeToLine: CLOSE_TO_LINE,
        referenceSamples: referenceSamples.length,
        parallel,
        processes,
        node: process.version,
        functions: measured.map((m) => ({
          name: m.name,
          bytes: m.bytes,
          gzipBytes: m.gzipBytes,
          mapBytes: m.mapBytes,
          initMedianMs: round(median(m.importMs), 1),
          initSamplesMs: m.importMs.map((v) => round(v, 1)),
          initCpuMedianMs: round(median(m.cpuMs), 1),
          initCpuSamplesMs: m.cpuMs.map((v) => round(v, 1)),
          sinceProcessStartMedianMs: round(median(m.sinceStartMs), 1),
          topPackages: m.packages.slice(0, TOP_INPUTS).map((p) => ({ name: p.name, bytes: p.bytes })),
        })),
        reference: {
          bytes: reference.bytes,
          initCpuMedianMs: round(referenceCpu, 1),
          initCpuSamplesMs: referenceSamples.map((s) => round(s.cpuMs, 1)),
        },
        initCpuRatios: Object.fromEntries(measured.map((m) => [m.name, round(cpuRatio(m), 2)])),
        largestWithoutSourceMaps: withoutMaps.map((s) => ({ wallMs: round(s.importMs, 1), cpuMs: round(s.cpuMs, 1) })),
      },
    };
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
};

export const bundles: Scenario = {
  name: 'bundles',
  description: 'Every function bundled as deployed (esbuild ESM, SDK bundled): bytes, top inputs, module init time',
  run,
};
