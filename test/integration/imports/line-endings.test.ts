/**
 * JSONL as files really come: CRLF line ends, a last line without a newline, blank lines. From run-import.ts: blank
 * (whitespace-only) lines are skipped and not counted, so `counts.lines` is the number of non-blank lines; line numbers
 * in `errors` are the physical 1-based line numbers of the file, blank lines included.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import { dynamoCustomerRepository } from '#shared/adapters/dynamodb/customer.repository.ts';
import { newStore } from '#test/support/local.ts';
import { customer, importAndWait, uid } from './support.ts';

let runtime: LocalRuntime;
const customers = dynamoCustomerRepository();

beforeAll(async () => {
  runtime = await startLocalRuntime({ logLevel: 'ERROR' });
});

afterAll(async () => {
  await runtime?.stop();
});

const line = (data: Record<string, unknown>) => JSON.stringify(data);

describe('line ends and blank lines', () => {
  it('imports CRLF lines and a last line without newline, skips blank lines without counting them', async () => {
    const store = await newStore('Import line ends');
    const p = uid('eol');
    const file = [
      `${line(customer(`${p}-1`, { first_name: 'One' }))}\r\n`, // 1
      '\r\n', // 2: blank (CRLF)
      `${line(customer(`${p}-3`, { first_name: 'Three' }))}\r\n`, // 3
      '   \t \r\n', // 4: whitespace only
      '\n', // 5: blank (LF)
      `${line(customer(`${p}-6`))}\n`, // 6: LF in a CRLF file
      `${line({ id: `${p}-7`, created_at: 1_700_000_000 })}\r\n`, // 7: no email
      `${line(customer(`${p}-8`, { first_name: 'Zoë', city: 'Malmö' }))}\r\n`, // 8: non-ASCII
      '\r\n', // 9: blank
      line(customer(`${p}-10`, { first_name: 'Last' })), // 10: no newline at the end
    ].join('');

    const job = await importAndWait(runtime, store.apiKey, file);

    expect(job).toMatchObject({
      status: 'finished',
      result: 'SUCCESS',
      counts: { lines: 6, imported: 5, created: 5, failed: 1 },
      errors: [{ line: 7, reason: expect.stringMatching(/email/) }],
    });
    expect(await customers.get(store.storeId, `${p}-1`)).toMatchObject({ firstName: 'One' });
    expect(await customers.get(store.storeId, `${p}-3`)).toMatchObject({ firstName: 'Three' });
    expect(await customers.get(store.storeId, `${p}-6`)).toBeDefined();
    // The CR is not part of the value, and multi-byte characters survive byte-wise splitting.
    expect(await customers.get(store.storeId, `${p}-8`)).toMatchObject({ firstName: 'Zoë', city: 'Malmö' });
    expect(await customers.get(store.storeId, `${p}-10`)).toMatchObject({ firstName: 'Last' });
  });

  it('takes a file of one line without any newline, and trailing blank lines add nothing', async () => {
    const store = await newStore('Import one line');
    const p = uid('one');
    const single = await importAndWait(runtime, store.apiKey, line(customer(`${p}-a`)));
    expect(single).toMatchObject({ result: 'SUCCESS', counts: { lines: 1, imported: 1, failed: 0 }, errors: [] });

    const other = await newStore('Import trailing blanks');
    const trailing = await importAndWait(
      runtime,
      other.apiKey,
      `\r\n\r\n${line(customer(`${p}-b`))}\r\n\r\n\r\n   \r\n`,
    );
    expect(trailing).toMatchObject({ result: 'SUCCESS', counts: { lines: 1, imported: 1, failed: 0 }, errors: [] });
    expect(await customers.get(other.storeId, `${p}-b`)).toBeDefined();
  });
});
