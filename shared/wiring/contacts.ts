/** Wiring of the contact export to DynamoDB (built once per warm function). */

import { dynamoContactDirectory, dynamoExportPositions } from '#shared/adapters/dynamodb/contact-export.ts';
import type { ExportDeps } from '#shared/domain/contacts/export-contacts.ts';
import { lazy } from '#shared/lazy.ts';
import { systemClock } from './clock.ts';

export const exportDeps = lazy(
  (): ExportDeps => ({ contacts: dynamoContactDirectory(), positions: dynamoExportPositions(systemClock) }),
);
