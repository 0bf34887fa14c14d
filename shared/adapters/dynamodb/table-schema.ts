/**
 * The single table's key schema (architecture §4): generic key attributes shared by every entity, two GSIs, TTL on
 * `expiresAt` (epoch seconds). Plain data: the CDK stateful stack and the local runtime both create the table from it.
 */
export const TABLE_SCHEMA = {
  partitionKey: 'pk',
  sortKey: 'sk',
  globalSecondaryIndexes: [
    { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    { indexName: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
  ],
  timeToLiveAttribute: 'expiresAt',
} as const;
