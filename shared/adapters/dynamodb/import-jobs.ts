import type { ImportJob } from '#shared/domain/imports/model.ts';
import type { ImportJobRepository } from '#shared/domain/imports/ports.ts';
import { keys } from './keys.ts';
import { queryPage } from './query.ts';
import { revisionedRepository } from './revisioned.ts';

/** Import jobs, one revisioned item each, indexed by store and creation time (the console lists them). */
export const dynamoImportJobs = (): ImportJobRepository => ({
  ...revisionedRepository<ImportJob>({
    entity: 'importJob',
    key: keys.importJob,
    idOf: (job) => job.id,
    indexKeys: (job) => keys.importJobByStore(job.storeId, job.createdAt, job.id),
  }),
  listForStore: (storeId, page) =>
    queryPage<ImportJob>({ index: 'gsi1', partition: keys.importJobByStore(storeId, 0, '').gsi1pk, page }),
});
