/**
 * The console's imports page: the store's latest import jobs, newest first, with their progress (lines
 * read, imported, created, failed; the share of the file read while one runs) and their line errors.
 */
import type { ImportJob } from '#shared/domain/imports/model.ts';
import type { ImportJobRepository } from '#shared/domain/imports/ports.ts';

/** Jobs per page, newest first (older ones through the page's cursor). */
export const IMPORTS_SHOWN = 20;

export interface ImportRow {
  readonly job: ImportJob;
  /** Share of the uploaded file read so far (0…1), while it runs and when its size is known. */
  readonly progress?: number;
}

export const importsView = async (
  deps: { readonly jobs: Pick<ImportJobRepository, 'listForStore'> },
  storeId: string,
  cursor?: string,
): Promise<{ rows: ImportRow[]; nextCursor?: string }> => {
  const page = await deps.jobs.listForStore(storeId, { limit: IMPORTS_SHOWN, ...(cursor ? { cursor } : {}) });
  const rows = page.items.map((job): ImportRow => {
    if (job.status === 'finished') return { job, progress: 1 };
    if (job.uploadBytes && job.resumeAt) return { job, progress: Math.min(1, job.resumeAt.offset / job.uploadBytes) };
    return { job };
  });
  return { rows, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
};
