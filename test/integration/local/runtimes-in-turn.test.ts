/**
 * One process starting one local runtime after another, as a test worker does for the files it runs in turn: the
 * second runtime's handlers call the second runtime's emulators, not clients and settings left from the first.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { eventually, newStore, postEvent } from '#test/support/local.ts';

let runtime: LocalRuntime | undefined;
afterAll(() => runtime?.stop());

const customerApplied = async (current: LocalRuntime, id: string) => {
  const store = await newStore(`Shop ${id}`);
  const event = {
    endpoint: 'customers/create',
    source_id: id,
    data: { id, email: `${id}@example.com`, created_at: 1_700_000_000 },
  };
  const answer = await postEvent(current.urls.main, store.apiKey, event);
  expect(answer.body).toEqual({ code: 200, message: 'ok' });
  return eventually(`${id} stored`, () => dynamoCustomerRepository().get(store.storeId, id));
};

describe('local runtimes started in turn in one process', () => {
  it('accept and apply events on the second runtime, through its own queues', async () => {
    runtime = await startLocalRuntime({ logLevel: 'ERROR' });
    const firstQueues = runtime.urls.sqs;
    expect(await customerApplied(runtime, 'first')).toMatchObject({ email: 'first@example.com' });
    await runtime.stop();

    runtime = await startLocalRuntime({ logLevel: 'ERROR' });
    expect(runtime.urls.sqs).not.toBe(firstQueues);
    expect(await customerApplied(runtime, 'second')).toMatchObject({ email: 'second@example.com' });
  });
});
