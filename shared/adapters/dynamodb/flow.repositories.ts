/** Flow definitions: one item per flow in the store's flows partition (`keys.flows`), so a store's flows are one query. */

import { dynamo } from '#shared/adapters/aws-clients.ts';
import { DeleteCommand } from '#shared/adapters/dynamodb-client.ts';
import type { Flow } from '#shared/domain/flows/flow.ts';
import type { FlowRepository } from '#shared/domain/flows/ports.ts';
import { keys } from './keys.ts';
import { queryItems } from './query.ts';
import { revisionedRepository } from './revisioned.ts';
import { tableName } from './table.ts';

/** All flows of a store, optionally filtered server-side (the partition holds at most `LIMITS.flowsPerStore` flows). */
const queryFlows = (
  storeId: string,
  filter?: { expression: string; values: Record<string, unknown>; names?: Record<string, string> },
): Promise<Flow[]> =>
  queryItems<Flow>({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.flows(storeId).pk, ...filter?.values },
    ...(filter ? { FilterExpression: filter.expression } : {}),
    ...(filter?.names ? { ExpressionAttributeNames: filter.names } : {}),
    // Consistent: a flow saved a moment ago (a test, a merchant enabling a flow) applies to the next trigger.
    ConsistentRead: true,
  });

export const dynamoFlows = (): FlowRepository => {
  const revisioned = revisionedRepository<Flow>({ entity: 'flow', key: keys.flow, idOf: (flow) => flow.id });
  return {
    get: (storeId, flowId) => revisioned.get(storeId, flowId),
    save: (flow, expectedRevision) => revisioned.save(flow, expectedRevision),
    list: (storeId) => queryFlows(storeId),
    listEnabled: (storeId, kind) =>
      queryFlows(storeId, {
        expression: '#trigger = :kind AND enabled = :enabled',
        values: { ':kind': kind, ':enabled': true },
        names: { '#trigger': 'trigger' },
      }),
    async delete(storeId, flowId) {
      const { Attributes } = await dynamo().send(
        new DeleteCommand({ TableName: tableName(), Key: keys.flow(storeId, flowId), ReturnValues: 'ALL_OLD' }),
      );
      return Attributes !== undefined;
    },
  };
};
