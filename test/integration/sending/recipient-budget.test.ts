/**
 * The per-store bulk recipients budget: one store sending 2,000-recipient requests as fast as the request
 * rate allows would ask the shared table for thousands of item operations a second. Runs with a budget of 400
 * recipients a second (`STORE_BULK_RECIPIENTS_PER_SECOND`), so a burst holds one full send (5 s × 400): the second is
 * refused whole with 429 and `Retry-After`, nothing of it stored, while another store sends as usual.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { newStore, type TestStore } from '#test/support/local.ts';
import { bulk, recipients, registerDomain, send } from '#test/support/sending.ts';

let runtime: LocalRuntime;
let heavy: TestStore;
let other: TestStore;
const previous = process.env.STORE_BULK_RECIPIENTS_PER_SECOND;

beforeAll(async () => {
  process.env.STORE_BULK_RECIPIENTS_PER_SECOND = '400';
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
  [heavy, other] = await Promise.all([newStore('Budget heavy'), newStore('Budget other')]);
  await registerDomain(runtime, heavy, 'budget-heavy.example');
  await registerDomain(runtime, other, 'budget-other.example');
});

afterAll(async () => {
  await runtime?.stop();
  if (previous === undefined) delete process.env.STORE_BULK_RECIPIENTS_PER_SECOND;
  else process.env.STORE_BULK_RECIPIENTS_PER_SECOND = previous;
});

describe('the bulk recipients budget', () => {
  it("refuses a store's sends past its budget (429, Retry-After), not another store's", async () => {
    const full = (domain: string, to: string) => bulk(domain, { recipients: recipients(2000, to) });
    expect((await send(runtime, heavy, full('budget-heavy.example', 'b1.example'))).status).toBe(200);

    const over = await send(runtime, heavy, full('budget-heavy.example', 'b2.example'), { raw: true });
    expect(over.status).toBe(429);
    expect(over.body.message).toBe(
      "The store's bulk sending budget of 400 recipients a second is used up; retry later",
    );
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(5);

    // Another store has a budget of its own.
    expect((await send(runtime, other, full('budget-other.example', 'b3.example'))).status).toBe(200);
  });
});
