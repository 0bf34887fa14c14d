/** What the local DynamoDB's thread and its parent share: the operations counted, and the thread's start data. */

/** The operations counted one by one (any other is counted as `unknown`). */
export const DYNAMODB_OPERATIONS = [
  'BatchGetItem',
  'BatchWriteItem',
  'CreateTable',
  'DeleteItem',
  'DeleteTable',
  'DescribeTable',
  'DescribeTimeToLive',
  'GetItem',
  'ListTables',
  'PutItem',
  'Query',
  'Scan',
  'TransactGetItems',
  'TransactWriteItems',
  'UpdateItem',
  'UpdateTable',
  'UpdateTimeToLive',
] as const;

export interface DynamoThreadData {
  readonly port: number;
  /** LevelDB directory; in memory when absent. */
  readonly path?: string;
  /** One Int32 per operation of `DYNAMODB_OPERATIONS`, then one for the others. */
  readonly counters: SharedArrayBuffer;
}

/** A DynamoDB call handed to the thread without a socket (see `dynamodb-transport.ts`). */
export interface ThreadRequest {
  readonly type: 'request';
  readonly id: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Its answer, as dynalite wrote it. */
export interface ThreadResponse {
  readonly type: 'response';
  readonly id: number;
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}
