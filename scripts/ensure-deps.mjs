// Installs dependencies when node_modules is missing or older than the lockfile, so that `npm start`,
// `npm test` and `npm run bench` work on a fresh clone with nothing installed by hand.
// Plain .mjs on purpose: it must run on whatever Node the machine has before the pinned Node 24 exists.
import { execSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';

const stamp = 'node_modules/.package-lock.json';
const stale = () => {
  if (!existsSync(stamp)) return true;
  // npm rewrites node_modules/.package-lock.json on every install: older than the lockfile means stale.
  if (statSync('package-lock.json').mtimeMs > statSync(stamp).mtimeMs + 1000) {
    const installed = readFileSync(stamp, 'utf8');
    const wanted = JSON.parse(readFileSync('package-lock.json', 'utf8'));
    const have = JSON.parse(installed).packages ?? {};
    return Object.entries(wanted.packages ?? {}).some(
      ([path, meta]) => path !== '' && !meta.optional && have[path]?.version !== meta.version,
    );
  }
  return false;
};

if (stale()) {
  console.log('Installing dependencies (node_modules missing or stale)…');
  // `npm install`, not `npm ci`: it follows the lockfile too, and it tolerates the optional per-platform entries
  // (Biome's, esbuild's binaries) that a lockfile written on another platform may lack.
  execSync('npm install --no-audit --no-fund', { stdio: 'inherit' });
}
