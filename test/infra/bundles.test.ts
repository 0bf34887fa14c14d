/**
 * What a function's bundle carries (cold starts): bundled with the deployed settings (`bench/scenarios/
 * bundles.ts`, `infra/bundling.ts`), a function loads only the SDK clients and libraries its requests use. The
 * factories of the clients and of the wiring are marked pure for this; without the mark every function loaded every
 * client, and the template engine came in through the flow-id check.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleFunction } from '#bench/scenarios/bundles.ts';
import { FUNCTIONS } from '#shared/catalog/functions.ts';

const outDir = mkdtempSync(join(tmpdir(), 'storeflow-bundle-test-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

const packagesOf = async (name: string) => {
  const spec = FUNCTIONS.find((fn) => fn.name === name);
  if (!spec) throw new Error(`no function ${name}`);
  return (await bundleFunction(spec, outDir)).packages.map((p) => p.name);
};

describe('function bundles', () => {
  it('keeps the template engine and the SES client out of routes that neither render nor send', async () => {
    for (const name of ['stats', 'event-status', 'webhooks-create', 'contacts-export']) {
      const packages = await packagesOf(name);
      expect(packages, name).toContain('@aws-sdk/util-dynamodb');
      expect(packages, name).not.toContain('liquidjs');
      expect(packages, name).not.toContain('@aws-sdk/client-sesv2');
    }
  });

  it('keeps the template engine out of flow and campaign routes that import the renderer without parsing', async () => {
    // The engines are built on the first parse (shared/domain/flows/render.ts): a function that imports the module
    // for its types and checks but never parses or renders drops LiquidJS (82 kB) from its bundle.
    for (const name of ['flows-get', 'flow-backtest-get', 'campaign-worker', 'console-campaigns']) {
      expect(await packagesOf(name), name).not.toContain('liquidjs');
    }
    for (const name of ['flows-update', 'flow-backtest', 'campaigns-create']) {
      expect(await packagesOf(name), name).toContain('liquidjs');
    }
  });

  it("reaches DynamoDB through the service's own document client, not the SDK's client and document client", async () => {
    // shared/adapters/dynamodb-client.ts (issues 13 and 16): the SDK's DynamoDB client brings the schema of every
    // shape of the service and its endpoint rules; the service's client needs only the marshaller and the SDK's parts.
    for (const name of ['stats', 'event-status', 'ingest-worker', 'flow-worker', 'contacts-export']) {
      const packages = await packagesOf(name);
      expect(packages, name).toEqual(expect.arrayContaining(['@aws-sdk/util-dynamodb', '@smithy/signature-v4']));
      expect(packages, name).not.toContain('@aws-sdk/client-dynamodb');
      expect(packages, name).not.toContain('@aws-sdk/lib-dynamodb');
    }
  });

  it("sends to and reads from SQS through the service's own client, not the SDK's SQS client", async () => {
    // shared/adapters/sqs-client.ts: @aws-sdk/client-sqs brings its whole schema, endpoint rules and
    // middlewares; the service's client is made of the parts the DynamoDB client already brings.
    for (const name of ['events-ingest', 'ingest-worker', 'flow-worker', 'send-worker', 'webhook-delivery-worker']) {
      const packages = await packagesOf(name);
      expect(packages, name).toEqual(expect.arrayContaining(['@smithy/signature-v4', '@smithy/node-http-handler']));
      expect(packages, name).not.toContain('@aws-sdk/client-sqs');
      expect(packages, name).not.toContain('@aws-sdk/middleware-sdk-sqs');
    }
  });

  it("reaches S3 through the service's own small client, not the SDK's S3 client, presigner or checksums", async () => {
    // shared/adapters/s3/client.ts is made of the SDK parts every DynamoDB client already brings (signer, HTTP handler,
    // retries, credentials): @aws-sdk/client-s3 with its checksum and S3-specific middlewares was ~150 kB of each of
    // these bundles (the cold-start pass: import-worker and batch-upload-* were over 1.5 × the reference's init CPU).
    for (const name of ['import-worker', 'batch-import', 'batch-upload-url', 'batch-upload-start', 'contacts-export']) {
      const packages = await packagesOf(name);
      expect(packages, name).toEqual(expect.arrayContaining(['@smithy/signature-v4', '@smithy/node-http-handler']));
      for (const heavy of [
        '@aws-sdk/client-s3',
        '@aws-sdk/s3-request-presigner',
        '@aws-sdk/checksums',
        '@aws-sdk/middleware-sdk-s3',
      ]) {
        expect(packages, name).not.toContain(heavy);
      }
    }
  });

  it("sends mail and checks sender domains through the service's own small SESv2 client, not the SDK's", async () => {
    // shared/adapters/ses/client.ts: @aws-sdk/client-sesv2 was ~63 kB of each of these bundles (its whole model).
    for (const name of ['flow-worker', 'send-worker', 'campaigns-create', 'senders-create', 'sending-create']) {
      expect(await packagesOf(name), name).not.toContain('@aws-sdk/client-sesv2');
    }
    expect(await packagesOf('flow-worker')).toContain('liquidjs');
  });
});
