/**
 * Summarises a `.cpuprofile` (V8 format, e.g. from `npm run bench -- ingest --profile`): where the thread's time went,
 * by area (our code by file, each npm package, Node internals, GC, idle), by owner (the same, with Node internals
 * charged to their caller), then the top functions by self time and by total (inclusive) time
 * (`lib/profile-analysis.ts`).
 *
 *   npm exec -- node bench/profile-summary.ts bench/results/ingest-gateway.cpuprofile [--top 30] [--per 5000] [--match gateway]
 *
 * `--per N` adds a column of µs per unit, e.g. per accepted event of the profiled phase; `--match REGEX` lists the
 * inclusive time of every function whose name or file matches.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { largest, type Profile, profileTimes } from './lib/profile-analysis.ts';

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
const times = profileTimes(JSON.parse(readFileSync(file, 'utf8')) as Profile);
const { totalUs, busyUs } = times;

const ms = (us: number) => (us / 1000).toFixed(0).padStart(7);
const pct = (us: number, of: number) => `${((100 * us) / of).toFixed(1).padStart(5)}%`;

const perUnit = values.per === undefined ? undefined : Number(values.per);
const print = (title: string, rows: ReadonlyMap<string, number>, limit: number) => {
  console.log(`\n${title}`);
  console.log(`${'ms'.padStart(7)}  ${'busy'.padStart(6)}${perUnit ? `  ${'µs/unit'.padStart(7)}` : ''}  what`);
  for (const [name, us] of largest(rows, limit)) {
    const each = perUnit ? `  ${(us / perUnit).toFixed(0).padStart(7)}` : '';
    console.log(`${ms(us)}  ${pct(us, busyUs)}${each}  ${name}`);
  }
};

console.log(
  `${file}: ${(totalUs / 1e6).toFixed(2)} s profiled, ${(busyUs / 1e6).toFixed(2)} s busy (${pct(busyUs, totalUs).trim()}), ${times.samples} samples`,
);
print('By component (self time, charged as in "by owner")', times.components, top);
print('By area (self time)', times.areas, top);
print(
  'By owner (self time, Node internals and builtins charged to the nearest package or file of ours)',
  times.owners,
  top,
);
print('Top functions by self time', times.selfByFunction, top);
print('Top functions by total time (inclusive)', times.totalByFunction, top);
if (values.match) {
  // Inclusive time is exact for synchronous work only: an async function's time after its first await is charged
  // to whatever resumed it (the microtask queue), not to the function.
  const pattern = new RegExp(values.match);
  const matching = new Map([...times.totalByFunction].filter(([name]) => pattern.test(name)));
  print(`Functions matching /${values.match}/ by total time (inclusive, synchronous part)`, matching, matching.size);
}
