/**
 * A send batch's recipients in the table, packed: one item per planned chunk (`keys.sendRecipientPack`,
 * sort key `RPACK#<index of its first recipient>`) holding that chunk's recipients in index order as one JSON string,
 * rejected ones included, so accepting 2,000 recipients writes some 40 items instead of 2,000 and a chunk's send reads
 * one. The packs of a batch cover its indexes without gaps or overlaps:
 *
 * - a pack starts at every chunk's first recipient, and one at the batch's first recipient (rejected recipients before
 *   the first chunk: a pack of their own); rejected recipients after a chunk's last are packed with that chunk;
 * - a chunk whose recipients would pass `PACK_BYTES` (up to 50 recipients of 16 KB substitution data each, 800 KB, over
 *   DynamoDB's 400 KB item limit) is split into several packs. A pack never holds recipients of two chunks, so the
 *   holder of a chunk's lease is the only writer of its packs and may put them whole (`saveRecipients`).
 *
 * The recipients are one JSON string, not a list of maps: its size is exactly its bytes (what the split measures), it
 * costs the marshaller one value instead of thousands, and a recipient's nested substitution data does not come two
 * levels nearer DynamoDB's nesting limit of 32.
 *
 * Batches stored before the packs (one `keys.sendRecipient` item per recipient) have no pack: readers that find none
 * read those items instead (`sending.repositories.ts`, `campaigns.repositories.ts`).
 */

import { dynamo } from '#shared/adapters/aws-clients.ts';
import { QueryCommand } from '#shared/adapters/dynamodb-client.ts';
import type { ChunkRange, SendRecipient } from '#shared/domain/email/bulk-model.ts';
import { itemMeta, keys } from './keys.ts';
import { queryStoredItems } from './query.ts';
import { tableName } from './table.ts';

/**
 * A pack's recipients are split past this many bytes of JSON when the batch is stored: room is left for what sending
 * adds to each recipient (a message id and time, or SES's reason) under DynamoDB's 400 KB per item.
 */
export const PACK_BYTES = 256 * 1024;
/** A pack written back over this is kept under it by shortening SES's reasons (never met at the request's limits). */
const PACK_LIMIT_BYTES = 390 * 1024;
const ERROR_CHARS = 500;

export interface RecipientPack {
  readonly first: number;
  readonly last: number;
  readonly recipients: SendRecipient[];
  readonly expiresAt?: number;
}

const bytes = (recipients: readonly SendRecipient[]) => Buffer.byteLength(JSON.stringify(recipients));

/** The batch's recipients in packs (see above): `chunks` as planned for the batch, recipients in any order. */
export const packRecipients = (
  recipients: readonly SendRecipient[],
  chunks: readonly ChunkRange[],
): SendRecipient[][] => {
  const starts = new Set(chunks.map((chunk) => chunk.first));
  const packs: SendRecipient[][] = [];
  let current: SendRecipient[] = [];
  let size = 2;
  for (const recipient of [...recipients].sort((a, b) => a.index - b.index)) {
    const own = Buffer.byteLength(JSON.stringify(recipient)) + 1;
    if (current.length > 0 && (starts.has(recipient.index) || size + own > PACK_BYTES)) {
      packs.push(current);
      current = [];
      size = 2;
    }
    current.push(recipient);
    size += own;
  }
  if (current.length > 0) packs.push(current);
  return packs;
};

/** The recipients as stored: SES's reasons shortened only if the pack would not fit an item otherwise. */
const packJson = (recipients: readonly SendRecipient[]): string => {
  const json = JSON.stringify(recipients);
  if (Buffer.byteLength(json) <= PACK_LIMIT_BYTES) return json;
  const shortened = recipients.map((r) =>
    r.error && r.error.length > ERROR_CHARS ? { ...r, error: `${r.error.slice(0, ERROR_CHARS)}…` } : r,
  );
  if (bytes(shortened) > PACK_LIMIT_BYTES) throw new Error('a pack of send recipients does not fit one item');
  return JSON.stringify(shortened);
};

/** One pack's item (`recipients`: non-empty, in index order). */
export const packItem = (
  storeId: string,
  batchId: string,
  recipients: readonly SendRecipient[],
  expiresAt: number,
): Record<string, unknown> => {
  const first = (recipients[0] as SendRecipient).index;
  return {
    ...keys.sendRecipientPack(storeId, batchId, first),
    ...itemMeta('sendRecipientPack'),
    first,
    last: (recipients.at(-1) as SendRecipient).index,
    recipients: packJson(recipients),
    expiresAt,
  };
};

const packOf = (item: Record<string, unknown>): RecipientPack => ({
  first: Number(item.first),
  last: Number(item.last),
  recipients: JSON.parse(String(item.recipients)) as SendRecipient[],
  ...(typeof item.expiresAt === 'number' ? { expiresAt: item.expiresAt } : {}),
});

/**
 * The packs holding the recipients whose index is within [first, last], in index order; none for a batch stored one
 * item per recipient. One query when `first` starts a pack (a chunk's first recipient always does), two otherwise.
 */
export const packsCovering = async (
  storeId: string,
  batchId: string,
  first: number,
  last: number,
): Promise<RecipientPack[]> => {
  const { pk } = keys.sendRecipients(storeId, batchId);
  const sk = (index: number) => keys.sendRecipientPack(storeId, batchId, index).sk;
  const within = (
    await queryStoredItems({
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
      ExpressionAttributeValues: { ':pk': pk, ':first': sk(first), ':last': sk(last) },
      ConsistentRead: true,
    })
  ).map(packOf);
  if (first <= 0 || within[0]?.first === first) return within;
  // The pack that starts before `first` may hold it: the last one before.
  const before = await dynamo().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :lowest AND :before',
      ExpressionAttributeValues: { ':pk': pk, ':lowest': sk(0), ':before': sk(first - 1) },
      ScanIndexForward: false,
      Limit: 1,
      ConsistentRead: true,
    }),
  );
  const previous = (before.Items ?? []).map(packOf).filter((pack) => pack.last >= first);
  return [...previous, ...within];
};

/** Every pack of the batch, in index order; none for a batch stored one item per recipient. */
export const allPacks = async (storeId: string, batchId: string): Promise<RecipientPack[]> =>
  (
    await queryStoredItems({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :packs)',
      ExpressionAttributeValues: {
        ':pk': keys.sendRecipients(storeId, batchId).pk,
        ':packs': keys.sendRecipientPacks(storeId, batchId).skPrefix,
      },
      ConsistentRead: true,
    })
  ).map(packOf);

/** The packs' recipients whose index is within [first, last], in index order. */
export const recipientsIn = (packs: readonly RecipientPack[], first: number, last: number): SendRecipient[] =>
  packs.flatMap((pack) => pack.recipients.filter((r) => r.index >= first && r.index <= last));
