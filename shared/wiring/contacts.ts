/** Wiring of the contact export to DynamoDB (built once per warm function). */

import { dynamoContactCounts, recountContacts } from '#shared/adapters/dynamodb/contact-counts.ts';
import { dynamoContactDirectory, dynamoExportPositions } from '#shared/adapters/dynamodb/contact-export.ts';
import { dynamoContactSearchIndex } from '#shared/adapters/dynamodb/contact-search.ts';
import { dynamoStoreRepository } from '#shared/adapters/dynamodb/store.repository.ts';
import { systemClock } from '#shared/clock.ts';
import type { RecountDeps } from '#shared/domain/contacts/contact-counts.ts';
import type { IndexContactsDeps } from '#shared/domain/contacts/contact-search.ts';
import type { ExportDeps } from '#shared/domain/contacts/export-contacts.ts';
import { lazy } from '#shared/lazy.ts';

export const exportDeps = /* @__PURE__ */ lazy(
  (): ExportDeps => ({
    contacts: dynamoContactDirectory(),
    positions: dynamoExportPositions(systemClock),
    counts: dynamoContactCounts(),
    largePages: largePagesOnDemand,
  }),
);

/**
 * Pages too large for one response go to S3 (docs/contacts.md): rare, so the S3 client and the presigner are loaded at
 * the first such page, not at every cold start of the export (init CPU).
 */
const largePagesOnDemand: ExportDeps['largePages'] = {
  publish: async (storeId, json) =>
    (await import('#shared/adapters/s3/export-pages.ts')).s3ExportPages().publish(storeId, json),
};

/** Counting a store's contacts again (the admin command). */
export const recountDeps = (): RecountDeps => ({ stores: dynamoStoreRepository(), recount: recountContacts });

/** Indexing a store's contacts for the console's search (the admin command). */
export const indexContactsDeps = (): IndexContactsDeps => ({
  stores: dynamoStoreRepository(),
  index: dynamoContactSearchIndex(),
});
