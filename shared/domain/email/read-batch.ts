import { batchStatus } from './bulk-model.ts';
import type { SendBatchRepository } from './ports.ts';

/** `GET {sending_url}/api/v1/sending/{id}`: the batch, its progress, and every recipient not (yet) sent and why. */
export const readBatch = async (deps: { readonly batches: SendBatchRepository }, storeId: string, batchId: unknown) => {
  const id = typeof batchId === 'string' ? batchId : '';
  // Ids are of one alphabet; anything else is simply not found (never an error that tells ids apart).
  const batch = /^[A-Za-z0-9_-]{1,64}$/.test(id) ? await deps.batches.get(storeId, id) : undefined;
  if (!batch) return undefined;
  const problems = await deps.batches.problems(storeId, id);
  return {
    id: batch.id,
    status: batchStatus(batch),
    createdAt: Math.floor(batch.createdAt / 1000),
    from: batch.from,
    subject: batch.subject,
    totalAccepted: batch.totalAccepted,
    totalRejected: batch.totalRejected,
    sent: batch.sent,
    failed: batch.failed,
    pending: Math.max(0, batch.totalAccepted - batch.sent - batch.failed),
    chunks: batch.chunks.length,
    chunksDone: batch.chunksDone,
    rejections: problems
      .filter((r) => r.status === 'rejected')
      .map((r) => ({ index: r.index, email: r.email, reason: r.reason })),
    failures: problems
      .filter((r) => r.status === 'failed')
      .map((r) => ({ index: r.index, email: r.email, error: r.error ?? 'failed' })),
  };
};

export type BatchView = NonNullable<Awaited<ReturnType<typeof readBatch>>>;
