import type { ImportJob } from '#shared/domain/imports/model.ts';
import { keys } from './keys.ts';
import { revisionedRepository } from './revisioned.ts';

/** Import jobs, one revisioned item each. */
export const dynamoImportJobs = () =>
  revisionedRepository<ImportJob>({ entity: 'importJob', key: keys.importJob, idOf: (job) => job.id });
