/**
 * Streaming and continuation of `runImport` (shared/domain/imports/run-import.ts), unit level with in-memory ports: when
 * the invocation runs short of time the job saves where it is (byte offset and line number), queues its continuation
 * and returns; the next run resumes from there. Whatever the number of runs, every line is counted once, no line is
 * skipped, every contact is written once, and `bulk_operations/finish` is emitted once, at the very end.
 */
import { describe, expect, it } from 'vitest';
import { runImport } from '#shared/domain/imports/run-import.ts';
import { IMPORT_JOB, IMPORT_STORE, importFakes, importMessage } from '#test/support/memory/imports.ts';

const STORE = IMPORT_STORE;
const JOB = IMPORT_JOB;

type Kind = 'good' | 'bad' | 'blank';

interface PhysicalLine {
  /** 1-based line number in the file. */
  readonly no: number;
  readonly kind: Kind;
  /** Byte offset just after the line (its newline included). */
  readonly end: number;
  readonly id?: string;
}

/**
 * A generated file of `count` physical lines: mostly valid customers (some with multi-byte characters, some ending
 * in CRLF), a bad line every 97 lines (alternately broken JSON and a missing email), blank lines every 13, and a last
 * line without newline.
 */
const generate = (count: number): { bytes: Buffer; lines: PhysicalLine[] } => {
  const parts: Buffer[] = [];
  const lines: PhysicalLine[] = [];
  let offset = 0;
  for (let no = 1; no <= count; no++) {
    let kind: Kind = 'good';
    let text: string;
    const id = `c-${no}`;
    if (no % 13 === 0) {
      kind = 'blank';
      text = no % 2 === 0 ? '' : '   ';
    } else if (no % 97 === 0) {
      kind = 'bad';
      text = no % 2 === 0 ? `{"id":"${id}","email":` : JSON.stringify({ id, created_at: 1_700_000_000 });
    } else {
      text = JSON.stringify({
        id,
        email: `${id}@example.com`,
        created_at: 1_700_000_000 + no,
        first_name: no % 3 === 0 ? 'Zoë Ångström ✓' : 'Ada',
      });
    }
    const eol = no === count ? '' : no % 5 === 0 ? '\r\n' : '\n';
    const bytes = Buffer.from(text + eol, 'utf8');
    parts.push(bytes);
    offset += bytes.length;
    lines.push({ no, kind, end: offset, ...(kind === 'good' ? { id } : {}) });
  }
  return { bytes: Buffer.concat(parts), lines };
};

/**
 * The shared import doubles (the file read through the real line reader), counting the lines the file port yields in
 * the current run, which is how these tests make an invocation run short.
 */
const fakes = (bytes: Buffer) => {
  let yieldedThisRun = 0;
  const f = importFakes(bytes, {
    onLine: () => {
      yieldedThisRun += 1;
    },
  });
  return {
    ...f,
    /** Lines the file port yielded in the current run (reset per run). */
    yielded: () => yieldedThisRun,
    newRun: () => {
      yieldedThisRun = 0;
    },
  };
};

/** What a run over lines 1..upTo must have counted. */
const expectedUpTo = (lines: readonly PhysicalLine[], upTo: number) => {
  const seen = lines.filter((line) => line.no <= upTo && line.kind !== 'blank');
  const good = seen.filter((line) => line.kind === 'good');
  return {
    counts: { lines: seen.length, imported: good.length, created: good.length, failed: seen.length - good.length },
    errorLines: seen.filter((line) => line.kind === 'bad').map((line) => line.no),
    ids: good.map((line) => line.id as string),
  };
};

const message = importMessage;
const PLENTY_MS = 900_000;
const SHORT_MS = 59_999;

describe('runImport continuation', () => {
  it('stops when less than 60 s remain, saves resumeAt and queues itself; the next run finishes with exact totals', async () => {
    const { bytes, lines } = generate(1500);
    const f = fakes(bytes);
    const total = expectedUpTo(lines, lines.length);

    // First run: the invocation runs short once 300 lines were read.
    f.newRun();
    expect(await runImport(f.deps, message, () => (f.yielded() >= 300 ? SHORT_MS : PLENTY_MS))).toBe('continued');

    // It stops after the batch (25 non-blank lines) in which the 300th line was read.
    let nonBlank = 0;
    const stop = lines.find((line) => {
      if (line.kind !== 'blank') nonBlank += 1;
      return line.kind !== 'blank' && nonBlank % 25 === 0 && line.no >= 300;
    });
    if (!stop) throw new Error('the file is too short for this test');
    const partial = expectedUpTo(lines, stop.no);
    const paused = f.job();
    expect(paused.status).toBe('running');
    expect(paused.result).toBeUndefined();
    expect(paused.resumeAt).toEqual({ offset: stop.end, line: stop.no });
    expect(paused.counts).toEqual(partial.counts);
    expect(paused.errors.map((e) => e.line)).toEqual(partial.errorLines);
    expect(f.enqueued).toEqual([message]);
    expect(f.emitted.filter((e) => e.topic === 'bulk_operations/finish')).toEqual([]);
    expect([...f.contacts.values()].map((c) => c.originId).sort()).toEqual([...partial.ids].sort());
    const startedAt = paused.startedAt;
    expect(startedAt).toBeDefined();

    // Second run: resumes at the saved byte offset and finishes.
    f.newRun();
    expect(await runImport(f.deps, message, () => PLENTY_MS)).toBe('finished');
    expect(f.readFrom).toEqual([0, stop.end]);

    const done = f.job();
    expect(done).toMatchObject({ status: 'finished', result: 'SUCCESS', counts: total.counts, startedAt });
    expect(done.errors.map((e) => e.line)).toEqual(total.errorLines);
    expect(done.errors.find((e) => e.line === 97)?.reason).toMatch(/email/);
    expect(done.errors.find((e) => e.line === 194)?.reason).toMatch(/JSON/);
    // Every good line written exactly once (created, never re-applied), and nothing else.
    expect(f.customerSaves).toHaveLength(total.ids.length);
    expect(f.customerSaves.every((save) => save.expectedRevision === 0)).toBe(true);
    expect(new Set(f.customerSaves.map((save) => save.originId))).toEqual(new Set(total.ids));
    expect(f.contacts.get(`${STORE}#c-1500`)?.createdAt).toBe(1_700_001_500);
    expect(f.contacts.get(`${STORE}#c-3`)?.firstName).toBe('Zoë Ångström ✓');
    expect(f.enqueued).toHaveLength(1);
    expect(f.emitted.filter((e) => e.topic === 'bulk_operations/finish')).toEqual([
      { topic: 'bulk_operations/finish', body: { endpoint: 'customers', status: 'SUCCESS' }, eventId: `import#${JOB}` },
    ]);

    // A redelivered message for the finished job writes nothing; it announces the end again under the same event id
    // (the emitter finds the same delivery: a process stopped before queuing it is made good, nothing is sent twice).
    expect(await runImport(f.deps, message, () => PLENTY_MS)).toBe('skipped');
    expect(f.emitted.filter((e) => e.topic === 'bulk_operations/finish')).toEqual([
      { topic: 'bulk_operations/finish', body: { endpoint: 'customers', status: 'SUCCESS' }, eventId: `import#${JOB}` },
      { topic: 'bulk_operations/finish', body: { endpoint: 'customers', status: 'SUCCESS' }, eventId: `import#${JOB}` },
    ]);
    expect(f.customerSaves).toHaveLength(total.ids.length);
  });

  it('continues after every batch when time is always short, and still counts each line once', async () => {
    const { bytes, lines } = generate(640);
    const f = fakes(bytes);
    const total = expectedUpTo(lines, lines.length);

    const outcomes: string[] = [];
    for (let run = 0; run < 100; run++) {
      f.newRun();
      const outcome = await runImport(f.deps, message, () => SHORT_MS);
      outcomes.push(outcome);
      if (outcome !== 'continued') break;
      // Each pause sits exactly after a line, at that line's byte offset.
      const { resumeAt } = f.job();
      const at = lines.find((line) => line.no === resumeAt?.line);
      expect(resumeAt?.offset).toBe(at?.end);
      expect(at?.kind).not.toBe('blank');
    }

    const batches = Math.floor(total.counts.lines / 25);
    expect(outcomes.at(-1)).toBe('finished');
    expect(outcomes.filter((o) => o === 'continued')).toHaveLength(batches);
    expect(f.enqueued).toHaveLength(batches);
    const done = f.job();
    expect(done).toMatchObject({ status: 'finished', result: 'SUCCESS', counts: total.counts });
    expect(done.errors.map((e) => e.line)).toEqual(total.errorLines);
    expect(f.customerSaves).toHaveLength(total.ids.length);
    expect(new Set(f.customerSaves.map((save) => save.originId))).toEqual(new Set(total.ids));
    expect(f.emitted.filter((e) => e.topic === 'bulk_operations/finish')).toHaveLength(1);
  });

  it('may pause exactly at the end of the file (the file port must then read nothing), and finishes on the next run', async () => {
    // 50 lines: two full batches of 25, the second ending with the file.
    const clean = Buffer.from(
      Array.from({ length: 50 }, (_, i) => JSON.stringify({ id: `e-${i}`, email: `e${i}@example.com`, created_at: 1 }))
        .join('\n')
        .concat('\n'),
      'utf8',
    );
    const f = fakes(clean);
    const outcomes: string[] = [];
    for (let run = 0; run < 5 && outcomes.at(-1) !== 'finished'; run++) {
      f.newRun();
      outcomes.push(await runImport(f.deps, message, () => SHORT_MS));
    }
    expect(outcomes).toEqual(['continued', 'continued', 'finished']);
    const firstBatchEnd = clean.indexOf(0x0a, clean.indexOf('"e-24"')) + 1;
    expect(f.readFrom).toEqual([0, firstBatchEnd, clean.length]);
    expect(f.job()).toMatchObject({
      status: 'finished',
      result: 'SUCCESS',
      counts: { lines: 50, imported: 50, created: 50, failed: 0 },
      resumeAt: { offset: clean.length, line: 50 },
    });
  });

  it('finishes FAIL when no line of the file could be imported, across a continuation too', async () => {
    const text = Array.from({ length: 60 }, (_, i) => `{"id":"x-${i + 1}"}`).join('\n');
    const f = fakes(Buffer.from(text, 'utf8'));
    f.newRun();
    expect(await runImport(f.deps, message, () => (f.yielded() >= 25 ? SHORT_MS : PLENTY_MS))).toBe('continued');
    f.newRun();
    expect(await runImport(f.deps, message, () => PLENTY_MS)).toBe('finished');
    const done = f.job();
    expect(done).toMatchObject({ result: 'FAIL', counts: { lines: 60, imported: 0, created: 0, failed: 60 } });
    expect(done.errors.map((e) => e.line)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect(f.emitted).toEqual([
      { topic: 'bulk_operations/finish', body: { endpoint: 'customers', status: 'FAIL' }, eventId: `import#${JOB}` },
    ]);
  });
});

describe('runImport on the queue’s last delivery', () => {
  const failingTable = (f: ReturnType<typeof fakes>) => {
    const save = f.deps.customers.save;
    let calls = 0;
    f.deps.customers.save = async (contact, expectedRevision) => {
      calls += 1;
      // The table fails for good after the first contacts (e.g. throttled for minutes).
      if (calls > 60)
        throw Object.assign(new Error('Rate of requests exceeds the allowed throughput'), {
          name: 'ProvisionedThroughputExceededException',
        });
      return save(contact, expectedRevision);
    };
  };

  it('rethrows a failure that is not about one line while the queue will deliver again', async () => {
    const { bytes } = generate(200);
    const f = fakes(bytes);
    failingTable(f);
    await expect(runImport(f.deps, message, () => PLENTY_MS)).rejects.toThrow(/throughput/);
    expect(f.job().status).toBe('running');
    expect(f.emitted).toEqual([]);
  });

  it('ends the job as FAIL with the reason and announces it, instead of leaving it running', async () => {
    const { bytes } = generate(200);
    const f = fakes(bytes);
    failingTable(f);
    await expect(runImport(f.deps, message, () => PLENTY_MS, { lastAttempt: true })).resolves.toBe('finished');
    const job = f.job();
    expect(job.status).toBe('finished');
    // Some lines were imported before the failure, and still the job failed as a whole.
    expect(job.counts.imported).toBeGreaterThan(0);
    expect(job.result).toBe('FAIL');
    expect(job.errors.at(-1)).toEqual({
      line: 0,
      reason: expect.stringMatching(/^the import stopped after repeated failures \(ProvisionedThroughputExceeded/),
    });
    expect(f.emitted).toEqual([
      { topic: 'bulk_operations/finish', body: { endpoint: 'customers', status: 'FAIL' }, eventId: `import#${JOB}` },
    ]);
  });
});
