/** Wiring of the contact export to DynamoDB (built once per warm function). */

import { dynamoContactDirectory, dynamoExportPositions } from '#shared/adapters/dynamodb/contact-export.ts';
import type { ExportDeps } from '#shared/domain/contacts/export-contacts.ts';

let deps: ExportDeps | undefined;

export const exportDeps = (): ExportDeps => {
  deps ??= { contacts: dynamoContactDirectory(), positions: dynamoExportPositions({ now: () => Date.now() }) };
  return deps;
};
