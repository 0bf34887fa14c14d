/**
 * The committed output of `npm run openapi` is what the generator makes now: the document, the client's types and
 * host map (so neither can drift from the catalog and the schemas), and the rendered reference of that document.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GENERATED, generatedFiles } from '#shared/http/openapi/generate.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const committed = (path: string) => readFileSync(join(ROOT, path), 'utf8');

describe('npm run openapi output', () => {
  it('is up to date: docs/openapi.json, shared/client/schema.d.ts and operation-hosts.json', async () => {
    const files = await generatedFiles();
    expect(Object.keys(files).sort()).toEqual([GENERATED.document, GENERATED.hosts, GENERATED.types].sort());
    for (const [path, content] of Object.entries(files)) {
      expect(committed(path) === content, `${path} is stale: run npm run openapi`).toBe(true);
    }
  });

  it('renders the same document as a self-contained reference page', () => {
    const html = committed(GENERATED.reference);
    const document = JSON.parse(committed(GENERATED.document)) as { info: { version: string } };
    expect(html).toContain('Storeflow API');
    // Redoc embeds the document it rendered; every operation of it is on the page.
    for (const operationId of ['eventsIngest', 'headlessEvents', 'contactsExport', 'webhooksCreate']) {
      expect(html).toContain(operationId);
    }
    expect(html).toContain(document.info.version);
    // Self-contained: no script or stylesheet loaded from elsewhere.
    expect(html).not.toMatch(/<script[^>]+src=["']https?:/i);
    expect(html).not.toMatch(/<link[^>]+rel=["']stylesheet["'][^>]+href=["']https?:/i);
  });
});
