/** The campaign item's progress counts against the local DynamoDB: a chunk's outcome is added once, whatever repeats it. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import {
  dynamoActiveCampaigns,
  dynamoCampaignState,
  dynamoCampaigns,
} from '#shared/adapters/dynamodb/campaigns.repositories.ts';
import { type Campaign, NO_PROGRESS } from '#shared/domain/campaigns/model.ts';

let runtime: LocalRuntime;
beforeAll(async () => {
  runtime = await startLocalRuntime({ gateways: false, pollers: false, logLevel: 'ERROR' });
});
afterAll(async () => {
  await runtime?.stop();
});

const campaign = (storeId: string): Campaign => ({
  storeId,
  id: `cmp_${randomUUID().replaceAll('-', '').slice(0, 20)}`,
  name: 'Spring',
  segments: ['sg_1'],
  excludeSegments: [],
  from: { email: 'news@shop.example', name: 'Shop' },
  content: { subject: 'Hello' },
  template: { subject: 'Hello' },
  sendAt: 1_000,
  createdAt: 1_000,
  state: 'sending',
  walkPage: 0,
  walk: { segment: 0 },
  progress: NO_PROGRESS,
});

describe('campaign progress', () => {
  it("adds a chunk's outcome once: the same chunk told again (a redelivered message) adds nothing", async () => {
    const repo = dynamoCampaigns();
    const created = campaign(`st_${randomUUID()}`);
    await repo.create(created);
    await repo.addOutcome(created.storeId, created.id, { page: 0, chunk: 0 }, { sent: 50, failed: 0 });
    await repo.addOutcome(created.storeId, created.id, { page: 0, chunk: 0 }, { sent: 50, failed: 0 });
    await repo.addOutcome(created.storeId, created.id, { page: 0, chunk: 1 }, { sent: 49, failed: 1 });
    await repo.addOutcome(created.storeId, created.id, { page: 1, chunk: 0 }, { sent: 50, failed: 0 });
    await repo.addOutcome(created.storeId, created.id, { page: 0, chunk: 1 }, { sent: 49, failed: 1 });
    const read = await repo.get(created.storeId, created.id);
    expect(read?.progress).toMatchObject({ sent: 149, failed: 1 });
    // The counted chunks stay in the table: the campaign read has only its own fields.
    expect(Object.keys(read ?? {})).not.toContain('countedChunks');
    const listed = await repo.list(created.storeId, { limit: 10 });
    expect(listed.items.map((c) => Object.keys(c).includes('countedChunks'))).toEqual([false]);
    // The send worker's cancel check reads the state alone.
    expect(await dynamoCampaignState(created.storeId, created.id)).toBe('sending');
    await repo.cancel(created.storeId, created.id, 2_000);
    expect(await dynamoCampaignState(created.storeId, created.id)).toBe('cancelled');
    expect(await dynamoCampaignState(created.storeId, 'cmp_none')).toBeUndefined();
  });

  it('adds every call of a batch written without its campaign page (before pages were recorded)', async () => {
    const repo = dynamoCampaigns();
    const created = campaign(`st_${randomUUID()}`);
    await repo.create(created);
    await repo.addOutcome(created.storeId, created.id, undefined, { sent: 2, failed: 0 });
    await repo.addOutcome(created.storeId, created.id, undefined, { sent: 2, failed: 0 });
    expect((await repo.get(created.storeId, created.id))?.progress).toMatchObject({ sent: 4, failed: 0 });
  });
});

describe("the store's active campaigns", () => {
  it('holds each campaign once, up to the cap, and gives a place back once however often it is released', async () => {
    const active = dynamoActiveCampaigns();
    const storeId = `st_${randomUUID().slice(0, 8)}`;
    expect(await active.take(storeId, 'cmp_a', 2)).toBe(true);
    expect(await active.take(storeId, 'cmp_a', 2)).toBe(true);
    expect(await active.take(storeId, 'cmp_b', 2)).toBe(true);
    expect(await active.take(storeId, 'cmp_c', 2)).toBe(false);
    await active.release(storeId, 'cmp_a');
    await active.release(storeId, 'cmp_a');
    await active.release(storeId, 'cmp_unknown');
    expect(await active.take(storeId, 'cmp_c', 2)).toBe(true);
    expect(await active.take(storeId, 'cmp_d', 2)).toBe(false);
  });
});
