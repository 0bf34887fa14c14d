/**
 * Imports upsert by the customer `id` (spec "Contact batch import" with the general `customers` rule "update if it
 * exists, otherwise create"): the same file twice creates no duplicate, a changed file updates the contacts, and a file
 * repeating an id keeps one contact with the later line's values. A store may import once every 10 seconds, so the two
 * stores that import twice wait out their slot side by side.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { newStore, type TestStore } from '#test/support/local.ts';
import {
  awaitFinished,
  contactCount,
  customer,
  importAndWait,
  type JobView,
  jobIdOf,
  jsonl,
  postImport,
  sleep,
  uid,
} from './support.ts';

let runtime: LocalRuntime;
const customers = dynamoCustomerRepository();

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
});

afterAll(async () => {
  await runtime?.stop();
});

/** Spec "Limits": one import per store about every 10 seconds; a little more to be clear of the boundary. */
const SLOT_MS = 10_000 + 150;

/** Imports `file`, waits for the job, then for the store's import slot to free up again. */
const importThenWaitForSlot = async (store: TestStore, file: string): Promise<JobView> => {
  const jobId = jobIdOf(await postImport(runtime, file, { apiKey: store.apiKey }));
  const slotFree = Date.now() + SLOT_MS;
  const job = await awaitFinished(runtime, store.apiKey, jobId);
  await sleep(slotFree - Date.now());
  return job;
};

const N = 60;

describe('importing twice', () => {
  it('creates no duplicate for the same file, and updates the contacts from a changed file', async () => {
    const [same, changed] = [await newStore('Import same'), await newStore('Import changed')];
    const prefix = uid('up');
    const ids = Array.from({ length: N }, (_, i) => `${prefix}-${i + 1}`);
    const original = jsonl(ids.map((id) => customer(id, { first_name: 'Ada', last_name: 'Lovelace', city: 'London' })));
    const updated = jsonl(
      ids.map((id, i) =>
        customer(id, {
          email: `renamed-${i + 1}@example.com`,
          first_name: 'Grace',
          city: 'Paris',
          tag_value: 'tier:gold',
        }),
      ),
    );

    // First runs, side by side; each then waits for its store's slot.
    const [firstSame, firstChanged] = await Promise.all([
      importThenWaitForSlot(same, original),
      importThenWaitForSlot(changed, original),
    ]);
    for (const first of [firstSame, firstChanged]) {
      expect(first).toMatchObject({ result: 'SUCCESS', counts: { lines: N, imported: N, created: N, failed: 0 } });
    }
    const countAfterFirst = await contactCount(runtime, same.apiKey);
    expect(countAfterFirst).toBe(N);
    const storedFirst = await customers.get(same.storeId, ids[0] ?? '');
    expect(storedFirst).toMatchObject({ firstName: 'Ada', city: 'London' });

    const [secondSame, secondChanged] = await Promise.all([
      importAndWait(runtime, same.apiKey, original),
      importAndWait(runtime, changed.apiKey, updated),
    ]);

    // The same file again: every line imported, none created, the same contacts (same internal ids).
    expect(secondSame).toMatchObject({
      result: 'SUCCESS',
      counts: { lines: N, imported: N, created: 0, failed: 0 },
      errors: [],
    });
    expect(await contactCount(runtime, same.apiKey)).toBe(N);
    expect((await customers.get(same.storeId, ids[0] ?? ''))?.id).toBe(storedFirst?.id);

    // The changed file: updates, no creation, the new values stored.
    expect(secondChanged).toMatchObject({
      result: 'SUCCESS',
      counts: { lines: N, imported: N, created: 0, failed: 0 },
    });
    expect(await contactCount(runtime, changed.apiKey)).toBe(N);
    for (const [i, id] of ids.entries()) {
      const contact = await customers.get(changed.storeId, id);
      expect(contact, id).toMatchObject({
        originId: id,
        email: `renamed-${i + 1}@example.com`,
        firstName: 'Grace',
        city: 'Paris',
        categoryTags: [{ category: 'tier', value: 'gold' }],
      });
    }
  }, 45_000);
});

describe('a file repeating an id', () => {
  it('keeps one contact, with the values of the later line', async () => {
    const store = await newStore('Import repeat');
    const id = uid('rep');
    const lines = [customer(id, { first_name: 'First' })];
    // Enough other lines between and around that the repeats land in the same parallel batch and in different ones.
    for (let n = 0; n < 10; n++) lines.push(customer(`${id}-other-${n}`));
    lines.push(customer(id, { first_name: 'Second' }));
    for (let n = 10; n < 40; n++) lines.push(customer(`${id}-other-${n}`));
    lines.push(customer(id, { first_name: 'Third', city: 'Rome' }));

    const job = await importAndWait(runtime, store.apiKey, jsonl(lines));

    expect(job).toMatchObject({ result: 'SUCCESS', counts: { lines: 43, imported: 43, created: 41, failed: 0 } });
    expect(await customers.get(store.storeId, id)).toMatchObject({ firstName: 'Third', city: 'Rome' });
    expect(await contactCount(runtime, store.apiKey)).toBe(41);
  });
});
