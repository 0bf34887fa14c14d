/**
 * `npm run bench [-- <scenario…>] [options]`: runs the selected benchmark scenarios (all by default), prints a summary
 * table and writes `bench/results/latest.md` and `bench/results/latest.json`. Exits 0 when the scenarios ran, even if a
 * target failed (the reports say FAIL); non-zero only when the bench itself broke.
 *
 * With several scenarios, each runs in its own process (this file again, told which one by the environment): the
 * service's SDK clients and caches are built once per process, bound to the endpoints of the first local runtime
 * started, so a second runtime in the same process (new random ports) could not be reached through them. A process
 * per scenario also keeps each one's figures independent of the heap and JIT state the previous one left.
 */

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { RESULTS_DIR } from './lib/profile.ts';
import {
  environment,
  markdown,
  type Outcome,
  runTime,
  seconds,
  table,
  targetText,
  valueText,
  verdict,
  WHOLE_RUN_TARGET_MS,
} from './lib/run-summary.ts';
import { round } from './lib/stats.ts';
import { passes, type Result, type Scenario, type ScenarioOptions } from './scenario.ts';
import { backtest } from './scenarios/backtest.ts';
import { bundles } from './scenarios/bundles.ts';
import { campaign } from './scenarios/campaign.ts';
import { cost } from './scenarios/cost.ts';
import { exportScenario } from './scenarios/export.ts';
import { flows } from './scenarios/flows.ts';
import { importScenario } from './scenarios/import.ts';
import { ingest } from './scenarios/ingest.ts';
import { noisy } from './scenarios/noisy.ts';
import { segments } from './scenarios/segments.ts';
import { sending } from './scenarios/sending.ts';
import { stats } from './scenarios/stats.ts';
import { webhooks } from './scenarios/webhooks.ts';
import { worker } from './scenarios/worker.ts';

/** Every scenario, in the order `npm run bench` runs them. */
const SCENARIOS: readonly Scenario[] = [
  ingest,
  worker,
  webhooks,
  exportScenario,
  importScenario,
  bundles,
  sending,
  campaign,
  flows,
  noisy,
  segments,
  stats,
  backtest,
  cost,
];

const USAGE = `Usage: npm run bench -- [scenario…] [options]

Scenarios (default: all):
${SCENARIOS.map((s) => `  ${s.name.padEnd(12)} ${s.description}`).join('\n')}

Options:
  --seconds N        length of each measured phase (default 10)
  --count N          a fixed number of requests per measured phase instead of a duration (worker: events queued,
                     default 3000; export: contacts seeded, default 100000; import: lines of the large file,
                     default 20000, after a file of a tenth of it; bundles: module inits timed per function
                     near the 1.5 x line at most, default 5, every function once; sending: 2,000-recipient
                     sends, default 3; campaign: recipients, default 20000; stats: contacts, default 20000;
                     backtest: events a day, default 10000; flows: triggers per phase, default 1000); for
                     every selected scenario
  --count NAME=N     the same for one scenario only, e.g. --count export=100000 (repeatable)
  --scenario-limit S stop a scenario that runs longer than S seconds and report it failed (default 300; with
                     several scenarios only, each runs in its own process)
  --concurrency N    concurrent clients / loops (default 32; bundles: fresh processes at a time, default one per core)
  --stores N         stores to spread the load over (default 32: busy stores, ~20 requests/s each; ingest 128, so
                     that its offer exceeds what the gateway takes)
  --client K         load generator's HTTP client: http (node:http keep-alive Agent, default) or fetch
  --same-thread      run the load generator in the runtime's thread (default: its own worker thread, as clients
                     outside the service would be)
  --no-drain         skip the worker drain measurement after the ingest phase
  --breakdown        also time each downstream call of the path alone (rate-limit UpdateItem, event PutItem, FIFO
                     SendMessage) to show what an event's CPU time is made of
  --profile          write a CPU profile of each measured phase (runtime thread) to bench/results/*.cpuprofile;
                     summarise one with: npm exec -- node bench/profile-summary.ts <file>
  -h, --help         this text`;

const positiveInt = (name: string, raw: string | undefined, fallback: number): number => {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} must be a positive integer, got "${raw}"`);
  return value;
};

const parse = (argv: string[]) => {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      seconds: { type: 'string' },
      count: { type: 'string', multiple: true },
      'scenario-limit': { type: 'string' },
      concurrency: { type: 'string' },
      stores: { type: 'string' },
      client: { type: 'string' },
      'same-thread': { type: 'boolean', default: false },
      'no-drain': { type: 'boolean', default: false },
      profile: { type: 'boolean', default: false },
      breakdown: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const unknown = positionals.filter((name) => !SCENARIOS.some((s) => s.name === name));
  if (unknown.length > 0) throw new Error(`Unknown scenario(s): ${unknown.join(', ')}`);
  const client = values.client ?? 'http';
  if (client !== 'http' && client !== 'fetch') throw new Error(`--client must be http or fetch, got "${client}"`);
  // `--count N` for every scenario, `--count NAME=N` for one (the later wins).
  const counts = new Map<string, number>();
  let countAll: number | undefined;
  for (const raw of values.count ?? []) {
    const match = /^([a-z-]+)=(.*)$/.exec(raw);
    if (!match) {
      countAll = positiveInt('count', raw, 1);
      continue;
    }
    const [, name = '', value] = match;
    if (!SCENARIOS.some((s) => s.name === name)) throw new Error(`--count ${raw}: unknown scenario "${name}"`);
    counts.set(name, positiveInt('count', value, 1));
  }
  const options: ScenarioOptions = {
    seconds: positiveInt('seconds', values.seconds, 10),
    count: countAll,
    concurrency: positiveInt('concurrency', values.concurrency, 32),
    stores: positiveInt('stores', values.stores, 32),
    client,
    clientThread: !values['same-thread'],
    drain: !values['no-drain'],
    profile: values.profile,
    breakdown: values.breakdown,
    // Each line with the process's age (its start-up included): where a scenario's time goes, phase by phase.
    log: (line) => process.stderr.write(`[${(performance.now() / 1000).toFixed(1).padStart(5)} s] ${line}\n`),
    given: new Set(Object.entries(values).flatMap(([key, value]) => (value === undefined ? [] : [key]))),
  };
  const selected = positionals.length === 0 ? SCENARIOS : SCENARIOS.filter((s) => positionals.includes(s.name));
  /** The options of one scenario: its own `--count`, if given. */
  const optionsFor = (name: string): ScenarioOptions => ({ ...options, count: counts.get(name) ?? countAll });
  const limitMs = positiveInt('scenario-limit', values['scenario-limit'], 300) * 1000;
  return { help: values.help, options, optionsFor, limitMs, selected };
};

/**
 * Node's compile cache for the scenarios' processes (V8's code of every module they load, kept between processes and
 * runs, checked against each file's content): each process loads the whole service, the emulators and the AWS SDK, about
 * a third less CPU at its start with the cache. The bundles scenario's fresh processes get an environment of their own,
 * without it: their module init is what that scenario measures.
 */
const COMPILE_CACHE = join(tmpdir(), 'storeflow-bench-compile-cache');

/** Set in a scenario's own process: the scenario to run, and the directory it exchanges JSON through. */
const CHILD_SCENARIO = 'STOREFLOW_BENCH_SCENARIO';
const CHILD_IO = 'STOREFLOW_BENCH_IO';

const runHere = async (scenario: Scenario, options: ScenarioOptions, earlier: Result[]): Promise<Outcome> => {
  try {
    return { scenario: scenario.name, result: await scenario.run({ ...options, earlier }) };
  } catch (error) {
    console.error(`Scenario ${scenario.name} failed:`, error);
    return { scenario: scenario.name, error: error instanceof Error ? error.message : String(error) };
  }
};

/**
 * Runs one scenario in a process of its own (same arguments); its outcome comes back as JSON. A scenario still running
 * after `limitMs` is killed with the processes it started (its own process group) and reported failed, so one that
 * hangs cannot take the whole run's time.
 */
const runInChild = async (scenario: Scenario, argv: string[], earlier: Result[], limitMs: number): Promise<Outcome> => {
  const dir = mkdtempSync(join(tmpdir(), 'storeflow-bench-'));
  let stopped = false;
  try {
    writeFileSync(join(dir, 'earlier.json'), JSON.stringify(earlier));
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, [...process.execArgv, import.meta.filename, ...argv], {
        stdio: ['ignore', 'inherit', 'inherit'],
        env: {
          ...process.env,
          [CHILD_SCENARIO]: scenario.name,
          [CHILD_IO]: dir,
          NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? COMPILE_CACHE,
        },
        detached: true,
      });
      const timer = setTimeout(() => {
        stopped = true;
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      }, limitMs);
      child.once('error', reject);
      child.once('exit', (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    if (stopped) return { scenario: scenario.name, error: `stopped after ${limitMs / 1000} s (--scenario-limit)` };
    try {
      return JSON.parse(readFileSync(join(dir, 'outcome.json'), 'utf8')) as Outcome;
    } catch {
      return { scenario: scenario.name, error: `its process exited with code ${code} before reporting` };
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

/** In a scenario's own process: runs it and writes its outcome for the parent. */
const runAsChild = async (name: string, options: ScenarioOptions): Promise<number> => {
  const dir = process.env[CHILD_IO] ?? '';
  const scenario = SCENARIOS.find((s) => s.name === name);
  const earlier = JSON.parse(readFileSync(join(dir, 'earlier.json'), 'utf8')) as Result[];
  const outcome = scenario ? await runHere(scenario, options, earlier) : { scenario: name, error: 'unknown scenario' };
  writeFileSync(join(dir, 'outcome.json'), JSON.stringify(outcome));
  return 0;
};

const main = async () => {
  const argv = process.argv.slice(2);
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (parsed.help) {
    console.log(USAGE);
    return 0;
  }
  const child = process.env[CHILD_SCENARIO];
  if (child !== undefined) return runAsChild(child, parsed.optionsFor(child));
  const env = environment(argv);
  const outcomes: Outcome[] = [];
  for (const scenario of parsed.selected) {
    const earlier = outcomes.flatMap((o) => (o.result ? [o.result] : []));
    const began = performance.now();
    const outcome =
      parsed.selected.length > 1
        ? await runInChild(scenario, argv, earlier, parsed.limitMs)
        : await runHere(scenario, parsed.optionsFor(scenario.name), earlier);
    outcomes.push({ ...outcome, elapsedMs: performance.now() - began });
    parsed.options.log(`bench: ${scenario.name} took ${seconds(performance.now() - began)}`);
  }

  const rows = outcomes.flatMap(({ scenario, result, error }) =>
    result
      ? result.metrics.map((m) => [`${scenario}: ${m.label}`, valueText(m), targetText(m), verdict(m)])
      : [[`${scenario}: FAILED`, '', '', error ?? '']],
  );
  const run = runTime(outcomes, SCENARIOS.length);
  rows.push([
    `all: wall time (${outcomes.map((o) => `${o.scenario} ${seconds(o.elapsedMs)}`).join(', ')})`,
    seconds(run.totalMs),
    run.complete ? '≤ 600 s' : '',
    run.wholeRunPass === undefined ? '' : run.wholeRunPass ? 'PASS' : 'FAIL',
  ]);
  console.log(`\n${table(['Figure', 'Value', 'Target', 'Result'], rows)}\n`);
  console.log(`${run.targets - run.failed.length} of ${run.targets} targets met.`);
  for (const { result } of outcomes) for (const note of result?.notes ?? []) console.log(`  - ${note}`);

  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, 'latest.md'), markdown(env, outcomes, SCENARIOS.length));
  const json = {
    ...env,
    options: { ...parsed.options, log: undefined },
    run: {
      totalSeconds: round(run.totalMs / 1000, 1),
      everyScenario: run.complete,
      ...(run.wholeRunPass === undefined ? {} : { targetSeconds: WHOLE_RUN_TARGET_MS / 1000, pass: run.wholeRunPass }),
      targets: run.targets,
      targetsNotMet: run.failed,
      scenariosFailed: run.scenarioErrors,
    },
    scenarios: outcomes.map(({ scenario, result, error, elapsedMs }) => ({
      scenario,
      seconds: round((elapsedMs ?? 0) / 1000, 1),
      ...(error === undefined ? {} : { error }),
      ...(result
        ? {
            metrics: Object.fromEntries(
              result.metrics.map((m) => [
                m.key,
                {
                  label: m.label,
                  value: round(m.value, 3),
                  unit: m.unit,
                  ...(m.target ? { target: m.target, pass: passes(m) } : {}),
                },
              ]),
            ),
            notes: result.notes,
            details: result.details,
          }
        : {}),
    })),
  };
  writeFileSync(join(RESULTS_DIR, 'latest.json'), `${JSON.stringify(json, null, 2)}\n`);
  console.log(`\nReports: bench/results/latest.md, bench/results/latest.json`);
  return outcomes.some((o) => o.error !== undefined) ? 1 : 0;
};

// Exits once the reports are written, without waiting for what a scenario left winding down (noisy's runtime may still
// be stopping: its attacker's bulk sends in flight sleep until their send slots).
process.exit(await main());
