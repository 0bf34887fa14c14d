/**
 * Microbench: CPU per call of the service's SQS client (`shared/adapters/sqs-client.ts`) against the SDK's
 * (`@aws-sdk/client-sqs`), both with the local runtime's lean middlewares (local/lean-clients.ts) and a request
 * handler that answers without I/O: what each costs before a byte is sent. `node bench/lib/sqs-client-cost.ts
 * [calls]` prints µs of CPU per SendMessage (an ingested event's message, its MD5 checked), per SendMessageBatch of 10,
 * per ReceiveMessage of 10 messages and of none, and per DeleteMessageBatch of 10 (median of 5 rounds).
 */
import { createHash } from 'node:crypto';
import * as sdk from '@aws-sdk/client-sqs';
import { HttpResponse } from '@smithy/core/transport';

process.env.AWS_REGION ??= 'us-east-1';
process.env.AWS_ACCESS_KEY_ID ??= 'local';
process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
process.env.AWS_ENDPOINT_URL_SQS ??= 'http://127.0.0.1:9';

const { observed } = await import('#shared/adapters/client-observers.ts');
const { leanClients } = await import('#local/lean-clients.ts');
const mine = await import('#shared/adapters/sqs-client.ts');

const QUEUE = 'http://127.0.0.1:9/000000000000/storeflow-ingest.fifo';
const md5 = (text: string) => createHash('md5').update(text).digest('hex');
/** An accepted event's message as the edge sends it (about 600 bytes). */
const BODY = JSON.stringify({
  v: 1,
  storeId: 'st_0123456789',
  eventId: 'ev_01JDQ5Y7W3K9X2M4N6P8R0T2V4',
  type: 'orders/paid',
  sourceId: 'order-1001-paid',
  receivedAt: '2026-11-27T10:00:00.000Z',
  data: {
    order_id: '1001',
    customer: { email: 'ana@example.com', first_name: 'Ana' },
    total: 129.9,
    currency: 'EUR',
    items: [
      { sku: 'SKU-1', quantity: 1, price: 99.9, title: 'Jacket' },
      { sku: 'SKU-2', quantity: 2, price: 15, title: 'Socks' },
    ],
  },
});
const SEND = { QueueUrl: QUEUE, MessageBody: BODY, MessageGroupId: 'st_0123456789', MessageDeduplicationId: 'ev_1' };
const ENTRIES = Array.from({ length: 10 }, (_, i) => ({ ...SEND, Id: String(i), MessageDeduplicationId: `ev_${i}` }));
const MESSAGES = Array.from({ length: 10 }, (_, i) => ({
  MessageId: `00000000-0000-4000-8000-00000000000${i}`,
  ReceiptHandle: `receipt-${i}-${'x'.repeat(100)}`,
  MD5OfBody: md5(BODY),
  Body: BODY,
  Attributes: {
    ApproximateReceiveCount: '1',
    SentTimestamp: '1790000000000',
    SenderId: 'local',
    ApproximateFirstReceiveTimestamp: '1790000000001',
    MessageGroupId: 'st_0123456789',
    MessageDeduplicationId: `ev_${i}`,
    SequenceNumber: `1884949646046769612${i}`,
  },
}));
const ANSWERS = {
  send: JSON.stringify({ MessageId: 'm-1', MD5OfMessageBody: md5(BODY), SequenceNumber: '18849496460467696128' }),
  batch: JSON.stringify({
    Successful: ENTRIES.map((entry) => ({ Id: entry.Id, MessageId: `m-${entry.Id}`, MD5OfMessageBody: md5(BODY) })),
    Failed: [],
  }),
  receive: JSON.stringify({ Messages: MESSAGES }),
  empty: '{}',
  delete: JSON.stringify({ Successful: ENTRIES.map((entry) => ({ Id: entry.Id })), Failed: [] }),
};

let answer = '{}';
const handler = {
  metadata: { handlerProtocol: 'noop' },
  handle: async () => ({
    response: new HttpResponse({
      statusCode: 200,
      headers: { 'content-type': 'application/x-amz-json-1.0' },
      body: Buffer.from(answer),
    }),
  }),
  updateHttpClientConfig() {},
  httpHandlerConfigs: () => ({}),
  destroy() {},
};

leanClients();
const stock = observed('sqs', new sdk.SQSClient({ requestHandler: handler }));
const lean = observed('sqs', new mine.SQSClient());
lean.config.requestHandler = handler as never;

const calls = Number(process.argv[2] ?? 20_000);
// biome-ignore lint/suspicious/noExplicitAny: either client, either command.
const cpuPerCall = async (send: () => Promise<any>) => {
  for (let i = 0; i < 2_000; i++) await send();
  const rounds: number[] = [];
  for (let round = 0; round < 5; round++) {
    const start = process.cpuUsage();
    for (let i = 0; i < calls; i++) await send();
    const used = process.cpuUsage(start);
    rounds.push((used.user + used.system) / calls);
  }
  return rounds.sort((a, b) => a - b)[2] as number;
};

const rows: Record<string, Record<string, number>> = {};
for (const [name, client, api] of [
  ['@aws-sdk/client-sqs', stock, sdk],
  ['sqs-client.ts', lean, mine],
] as const) {
  // biome-ignore lint/suspicious/noExplicitAny: either client, either command.
  const send = (command: any) => (client as any).send(command);
  const figure = async (body: string, command: () => unknown) => {
    answer = body;
    return cpuPerCall(() => send(command()));
  };
  rows[name] = {
    'SendMessage µs': await figure(ANSWERS.send, () => new api.SendMessageCommand(SEND)),
    'SendMessageBatch (10) µs': await figure(
      ANSWERS.batch,
      () => new api.SendMessageBatchCommand({ QueueUrl: QUEUE, Entries: ENTRIES }),
    ),
    'ReceiveMessage (10) µs': await figure(
      ANSWERS.receive,
      () =>
        new api.ReceiveMessageCommand({
          QueueUrl: QUEUE,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 1,
          MessageSystemAttributeNames: ['All'],
        }),
    ),
    'ReceiveMessage (none) µs': await figure(
      ANSWERS.empty,
      () => new api.ReceiveMessageCommand({ QueueUrl: QUEUE, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    ),
    'DeleteMessageBatch (10) µs': await figure(
      ANSWERS.delete,
      () =>
        new api.DeleteMessageBatchCommand({
          QueueUrl: QUEUE,
          Entries: MESSAGES.map((message, i) => ({ Id: String(i), ReceiptHandle: message.ReceiptHandle })),
        }),
    ),
  };
}
const [before, after] = Object.values(rows) as [Record<string, number>, Record<string, number>];
console.table(
  Object.fromEntries(
    Object.keys(before).map((figure) => [
      figure,
      {
        '@aws-sdk/client-sqs': Number(before[figure]?.toFixed(1)),
        'sqs-client.ts': Number(after[figure]?.toFixed(1)),
        ratio: Number(((before[figure] ?? 0) / (after[figure] ?? 1)).toFixed(2)),
      },
    ]),
  ),
);
console.log(
  `${calls} calls a round, median of 5 rounds; node ${process.version}; load ${(await import('node:os'))
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')}`,
);
