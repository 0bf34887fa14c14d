import { execFileSync } from 'node:child_process';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { type Metric, passes, type Result } from '#bench/scenario.ts';
import { formatNumber, round } from './stats.ts';

/** The report of a whole run: the summary table, the wall times and the markdown of `bench/results/latest.md`. */
/** Issue 8: every scenario, in one go, within 10 minutes on a 2-core machine. */
export const WHOLE_RUN_TARGET_MS = 10 * 60_000;

export const verdict = (metric: Metric) => {
  const pass = passes(metric);
  return pass === undefined ? '' : pass ? 'PASS' : 'FAIL';
};
export const targetText = (metric: Metric) =>
  metric.target ? `${metric.target.op === '>=' ? '≥' : '≤'} ${formatNumber(metric.target.value)}` : '';
export const valueText = (metric: Metric) => `${formatNumber(metric.value)}${metric.unit ? ` ${metric.unit}` : ''}`;

export const table = (header: string[], rows: string[][]) => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 1 ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
};

export const environment = (argv: string[]) => {
  let commit = 'unknown';
  try {
    const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8', stdio: 'pipe' }).trim();
    commit = git('rev-parse', '--short', 'HEAD');
    if (git('status', '--porcelain', '--untracked-files=no') !== '') commit += ' + uncommitted changes';
  } catch {
    // Not a git checkout: leave it unknown.
  }
  return {
    date: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cores: availableParallelism(),
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    memoryGiB: round(totalmem() / 2 ** 30, 1),
    /** 1-minute load average when the bench started: above ~0.5 something else was already using the CPU. */
    loadAverage: round(loadavg()[0] ?? 0),
    commit,
    command: `npm run bench${argv.length > 0 ? ` -- ${argv.join(' ')}` : ''}`,
  };
};

export type Outcome = { scenario: string; result?: Result; error?: string; elapsedMs?: number };

export const seconds = (ms: number | undefined) => (ms === undefined ? '' : `${formatNumber(round(ms / 1000, 1))} s`);

/** The whole run: wall time per scenario and in total; against the 10-minute target when every scenario ran. */
export const runTime = (outcomes: Outcome[], scenarioCount: number) => {
  const totalMs = outcomes.reduce((t, o) => t + (o.elapsedMs ?? 0), 0);
  const complete = outcomes.length === scenarioCount;
  const targeted = outcomes.flatMap(({ scenario, result }) =>
    (result?.metrics ?? []).flatMap((m) => (m.target ? [{ scenario, metric: m, pass: passes(m) === true }] : [])),
  );
  const wholeRunPass = complete ? totalMs <= WHOLE_RUN_TARGET_MS : undefined;
  return {
    totalMs,
    complete,
    wholeRunPass,
    targets: targeted.length + (wholeRunPass === undefined ? 0 : 1),
    failed: [
      ...targeted.filter((t) => !t.pass).map((t) => `${t.scenario}: ${t.metric.label}`),
      ...(wholeRunPass === false ? ['every scenario within 10 minutes'] : []),
    ],
    scenarioErrors: outcomes.filter((o) => o.error !== undefined).map((o) => o.scenario),
  };
};

export const summary = (outcomes: Outcome[], scenarioCount: number) => {
  const run = runTime(outcomes, scenarioCount);
  const out = [
    '## Summary',
    '',
    `${run.targets - run.failed.length} of ${run.targets} targets met${
      run.failed.length > 0 ? `; **not met: ${run.failed.join('; ')}**` : ''
    }${run.scenarioErrors.length > 0 ? `; **scenarios that failed to run: ${run.scenarioErrors.join(', ')}**` : ''}.`,
    '',
    '| Scenario | Figure | Value | Target | Result |',
    '|---|---|---:|---|---|',
  ];
  for (const { scenario, result, error } of outcomes) {
    if (!result) out.push(`| ${scenario} | **did not run to the end** |  |  | ${error ?? ''} |`);
    for (const m of result?.metrics ?? []) {
      if (m.target) out.push(`| ${scenario} | ${m.label} | ${valueText(m)} | ${targetText(m)} | ${verdict(m)} |`);
    }
  }
  out.push('', '| Scenario | Wall time |', '|---|---:|');
  for (const o of outcomes) out.push(`| ${o.scenario} | ${seconds(o.elapsedMs)} |`);
  out.push(
    `| **all (target ≤ 600 s${run.complete ? '' : ', when every scenario runs'})** | ${seconds(run.totalMs)}${
      run.wholeRunPass === undefined ? '' : run.wholeRunPass ? ' PASS' : ' FAIL'
    } |`,
    '',
    'Figures without a target are context: the sections below have them all, with how each was measured.',
    '',
  );
  return out;
};

export const markdown = (env: ReturnType<typeof environment>, outcomes: Outcome[], scenarioCount: number) => {
  const out = [
    '# Storeflow benchmarks',
    '',
    `- Date: ${env.date}`,
    `- Node: ${env.node} (${env.platform})`,
    `- Machine: ${env.cores} cores (${env.cpu}), ${env.memoryGiB} GiB, load average ${env.loadAverage} at start`,
    `- Commit: ${env.commit}`,
    `- Command: \`${env.command}\``,
    '',
    ...summary(outcomes, scenarioCount),
  ];
  for (const outcome of outcomes) {
    const { result } = outcome;
    if (!result) {
      out.push(`## ${outcome.scenario}`, '', `**The scenario failed:** \`${outcome.error ?? 'unknown error'}\``, '');
      continue;
    }
    out.push(
      `## ${result.scenario}: ${result.title}`,
      '',
      '| Figure | Value | Target | Result |',
      '|---|---:|---|---|',
    );
    for (const m of result.metrics) out.push(`| ${m.label} | ${valueText(m)} | ${targetText(m)} | ${verdict(m)} |`);
    out.push('', ...result.notes.map((n) => `- ${n}`), '');
    out.push('<details><summary>Details</summary>', '', '```json', JSON.stringify(result.details, null, 2), '```', '');
    out.push('</details>', '');
  }
  return out.join('\n');
};
