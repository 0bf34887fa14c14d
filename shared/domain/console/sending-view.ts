/**
 * The console's bulk sending pages: the store's batches newest first with their counts, and one batch with
 * every recipient rejected at the request or refused by SES, and why (the API's `readBatch`).
 */
import { type BatchStatus, batchStatus, type SendBatch } from '#shared/domain/email/bulk-model.ts';
import type { SendBatchList } from '#shared/domain/email/ports.ts';

export const BATCHES_SHOWN = 20;

export interface BatchRow {
  readonly batch: SendBatch;
  readonly status: BatchStatus;
  /** Accepted recipients not sent nor failed yet. */
  readonly pending: number;
}

export const sendingView = async (
  deps: { readonly list: SendBatchList },
  storeId: string,
  cursor?: string,
): Promise<{ rows: BatchRow[]; nextCursor?: string }> => {
  const page = await deps.list.listForStore(storeId, { limit: BATCHES_SHOWN, ...(cursor ? { cursor } : {}) });
  return {
    rows: page.items.map((batch) => ({
      batch,
      status: batchStatus(batch),
      pending: Math.max(0, batch.totalAccepted - batch.sent - batch.failed),
    })),
    ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
  };
};
