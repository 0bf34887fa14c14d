/**
 * The bounce and complaint guard over HTTP: a store whose list bounces too much has its bulk sends refused
 * (409 with the reason), another store sends as usual, and an operator's resume starts its counts afresh.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoStoreReputation } from '#shared/adapters/dynamodb/store-reputation.ts';
import { reputationDays } from '#shared/domain/email/reputation.ts';
import { resumeSending } from '#shared/wiring/sending.ts';
import { newStore, type TestStore } from '#test/support/local.ts';
import { bulk, recipients, registerDomain, send } from '#test/support/sending.ts';
import { api } from '#test/support/webhooks.ts';

let runtime: LocalRuntime;
let careless: TestStore;
let careful: TestStore;
const reputation = dynamoStoreReputation();

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  [careless, careful] = await Promise.all([newStore('Guard careless'), newStore('Guard careful')]);
  await registerDomain(runtime, careless, 'careless-list.example');
  await registerDomain(runtime, careful, 'careful-list.example');
});

afterAll(async () => {
  await runtime?.stop();
});

describe('the sending guard', () => {
  it("refuses a store's bulk send while its bounce rate is over 10 %, and leaves another store alone", async () => {
    const [today] = reputationDays(Date.now()) as [string];
    // 176 delivered, 24 hard bounces: 12 % of 200.
    await reputation.count(careless.storeId, today, 'delivered', 176);
    await reputation.count(careless.storeId, today, 'bounced', 24);
    const refused = await send(
      runtime,
      careless,
      bulk('careless-list.example', { recipients: recipients(2, 'g1.example') }),
    );
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(
      'Marketing email is paused for this store: its bounce rate over the last two days is 12% (24 of 200), above ' +
        '10%. ' +
        'Transactional flow email still goes; clean the list and ask the operator to resume sending',
    );
    const fine = await send(
      runtime,
      careful,
      bulk('careful-list.example', { recipients: recipients(2, 'g2.example') }),
    );
    expect(fine.status).toBe(200);
    // The merchant reads the standing beside the sending settings, with the reason.
    const settings = await api(runtime, careless.apiKey, 'GET', '/api/v1/settings/sending');
    expect((settings.body as { data: { sendingStanding: unknown } }).data.sendingStanding).toEqual({
      state: 'paused',
      reason: 'its bounce rate over the last two days is 12% (24 of 200), above 10%',
    });

    await resumeSending(careless.storeId);
    expect(await reputation.counts(careless.storeId, reputationDays(Date.now()))).toEqual({
      delivered: 0,
      bounced: 0,
      complained: 0,
    });
  });
});
