/**
 * JSONL as files really come: CRLF line ends, a last line without a newline, blank lines. From run-import.ts: blank
 * (whitespace-only) lines are skipped and not counted, so `counts.lines` is the number of non-blank lines; line numbers
 * in `errors` are the physical 1-based line numbers of the file, blank lines included. Unit level: `runImport` on the
 * in-memory ports, the file read through the real line reader in small chunks (lines and characters cross them).
 */
import { describe, expect, it } from 'vitest';
import { runImport } from '#shared/domain/imports/run-import.ts';
import { importFakes, importMessage } from '#test/support/memory/imports.ts';

const customer = (id: string, overrides: Record<string, unknown> = {}) => ({
  id,
  email: `${id}@example.com`,
  created_at: 1_700_000_000,
  first_name: 'Ada',
  ...overrides,
});

const line = (data: Record<string, unknown>) => JSON.stringify(data);

/** Runs the import of `file` to its end and answers the fakes (the job, the contacts). */
const importAndWait = async (file: string) => {
  const fakes = importFakes(Buffer.from(file, 'utf8'), { chunkBytes: 7 });
  expect(await runImport(fakes.deps, importMessage, () => 900_000)).toBe('finished');
  return fakes;
};

describe('line ends and blank lines', () => {
  it('imports CRLF lines and a last line without newline, skips blank lines without counting them', async () => {
    const p = 'eol';
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

    const { job, contact } = await importAndWait(file);

    expect(job()).toMatchObject({
      status: 'finished',
      result: 'SUCCESS',
      counts: { lines: 6, imported: 5, created: 5, failed: 1 },
      errors: [{ line: 7, reason: expect.stringMatching(/email/) }],
    });
    expect(contact(`${p}-1`)).toMatchObject({ firstName: 'One' });
    expect(contact(`${p}-3`)).toMatchObject({ firstName: 'Three' });
    expect(contact(`${p}-6`)).toBeDefined();
    // The CR is not part of the value, and multi-byte characters survive byte-wise splitting.
    expect(contact(`${p}-8`)).toMatchObject({ firstName: 'Zoë', city: 'Malmö' });
    expect(contact(`${p}-10`)).toMatchObject({ firstName: 'Last' });
  });

  it('takes a file of one line without any newline, and trailing blank lines add nothing', async () => {
    const p = 'one';
    const single = await importAndWait(line(customer(`${p}-a`)));
    expect(single.job()).toMatchObject({
      result: 'SUCCESS',
      counts: { lines: 1, imported: 1, failed: 0 },
      errors: [],
    });

    const trailing = await importAndWait(`\r\n\r\n${line(customer(`${p}-b`))}\r\n\r\n\r\n   \r\n`);
    expect(trailing.job()).toMatchObject({
      result: 'SUCCESS',
      counts: { lines: 1, imported: 1, failed: 0 },
      errors: [],
    });
    expect(trailing.contact(`${p}-b`)).toBeDefined();
  });
});
