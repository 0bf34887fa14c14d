/** Wiring of the contact export to DynamoDB (built once per warm function). */
import type { ExportDeps } from '../domain/contacts/export-contacts.ts';
import { dynamoContactDirectory, dynamoExportPositions } from './dynamodb/contact-export.ts';

let deps: ExportDeps | undefined;

export const exportDeps = (): ExportDeps => {
  deps ??= { contacts: dynamoContactDirectory(), positions: dynamoExportPositions({ now: () => Date.now() }) };
  return deps;
};
