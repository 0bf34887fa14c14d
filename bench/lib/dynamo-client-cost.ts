/**
 * Microbench (issues 13 and 16): CPU per call of the service's DynamoDB document client against the SDK's
 * (`@aws-sdk/lib-dynamodb` over `@aws-sdk/client-dynamodb`), both with the local runtime's lean middlewares
 * (local/lean-clients.ts) and a request handler that answers `{}` without I/O: what each costs before a byte is sent.
 * `node bench/lib/dynamo-client-cost.ts [calls]` prints µs of CPU per PutItem and per GetItem for each (median of 5
 * rounds), and the same with a GetItem answering a stored item.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import * as sdk from '@aws-sdk/lib-dynamodb';
import { HttpResponse } from '@smithy/core/transport';

process.env.AWS_REGION ??= 'us-east-1';
process.env.AWS_ACCESS_KEY_ID ??= 'local';
process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
process.env.AWS_ENDPOINT_URL_DYNAMODB ??= 'http://127.0.0.1:9';

const { observed } = await import('#shared/adapters/client-observers.ts');
const { leanClients } = await import('#local/lean-clients.ts');
const mine = await import('#shared/adapters/dynamodb-client.ts');

const ITEM = {
  pk: 'CONTACT#st_0123456789#c_abcdef',
  sk: 'PROFILE',
  email: 'ana@example.com',
  firstName: 'Ana',
  subscribed: true,
  updatedAt: '2026-11-27T10:00:00.000Z',
  revision: 17,
  properties: { plan: 'gold', orders: 3, tags: ['a', 'b'], note: undefined },
  gsi1pk: 'EMAIL#st_0123456789#ana@example.com',
};
const STORED = JSON.stringify({
  Item: {
    pk: { S: ITEM.pk },
    sk: { S: 'PROFILE' },
    email: { S: ITEM.email },
    firstName: { S: 'Ana' },
    subscribed: { BOOL: true },
    updatedAt: { S: ITEM.updatedAt },
    revision: { N: '17' },
    properties: { M: { plan: { S: 'gold' }, orders: { N: '3' }, tags: { L: [{ S: 'a' }, { S: 'b' }] } } },
    gsi1pk: { S: ITEM.gsi1pk },
  },
});

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
const stock = sdk.DynamoDBDocumentClient.from(observed('dynamodb', new DynamoDBClient({ requestHandler: handler })), {
  marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true },
});
const lean = observed('dynamodb', new mine.DynamoDBDocumentClient());
lean.config.requestHandler = handler as never;

const calls = Number(process.argv[2] ?? 20_000);
const key = { pk: ITEM.pk, sk: ITEM.sk };
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

const TABLE = 'storeflow';
const rows: Record<string, Record<string, number>> = {};
for (const [name, client, api] of [
  ['lib-dynamodb', stock, sdk],
  ['dynamodb-client.ts', lean, mine],
] as const) {
  // biome-ignore lint/suspicious/noExplicitAny: either client, either command.
  const send = (command: any) => (client as any).send(command);
  answer = '{}';
  const put = await cpuPerCall(() =>
    send(new api.PutCommand({ TableName: TABLE, Item: ITEM, ConditionExpression: 'attribute_not_exists(pk)' })),
  );
  const get = await cpuPerCall(() => send(new api.GetCommand({ TableName: TABLE, Key: key, ConsistentRead: true })));
  answer = STORED;
  const getItem = await cpuPerCall(() =>
    send(new api.GetCommand({ TableName: TABLE, Key: key, ConsistentRead: true })),
  );
  rows[name] = { 'PutItem µs': put, 'GetItem µs': get, 'GetItem (an item) µs': getItem };
}
const [before, after] = Object.values(rows) as [Record<string, number>, Record<string, number>];
console.table(
  Object.fromEntries(
    Object.keys(before).map((figure) => [
      figure,
      {
        'lib-dynamodb': Number(before[figure]?.toFixed(1)),
        'dynamodb-client.ts': Number(after[figure]?.toFixed(1)),
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
