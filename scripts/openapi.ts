/**
 * `npm run openapi`: writes docs/openapi.json (the OpenAPI 3.1 document of the three hosts), the typed client's types
 * (shared/client/schema.d.ts, shared/client/operation-hosts.json) and the rendered API reference docs/api.html (Redocly
 * `build-docs`, one self-contained HTML file). Offline; run it after changing a route, its schema or the registry.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { undocumentedFunctions } from '#shared/http/openapi/document.ts';
import { GENERATED, generatedFiles } from '#shared/http/openapi/generate.ts';

const ROOT = resolve(import.meta.dirname, '..');

const undocumented = undocumentedFunctions();
if (undocumented.length > 0) {
  console.warn(`Not in the OpenAPI registry (shared/http/openapi/routes/), described bare: ${undocumented.join(', ')}`);
}

for (const [path, content] of Object.entries(await generatedFiles())) {
  mkdirSync(dirname(join(ROOT, path)), { recursive: true });
  writeFileSync(join(ROOT, path), content);
  console.log(`wrote ${path}`);
}

execFileSync(
  process.execPath,
  [
    join(ROOT, 'node_modules/@redocly/cli/bin/cli.js'),
    'build-docs',
    GENERATED.document,
    '--output',
    GENERATED.reference,
    '--title',
    'Storeflow API',
  ],
  {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    // No telemetry or update check: the build is offline and must not call home.
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  },
);
console.log(`wrote ${GENERATED.reference}`);
