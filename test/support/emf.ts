/**
 * What the metrics tests read: the CloudWatch EMF lines written to stdout. `useEmfCapture()` turns metrics on for the
 * file (they are off under POWERTOOLS_DEV, the local runtime; on here, as in Lambda) and restores stdout after each
 * test; `capture()` starts recording stdout afresh, `emitted()` parses the EMF lines recorded since.
 */
import { afterEach, beforeAll, vi } from 'vitest';

export interface Emf {
  _aws: {
    CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[];
  };
  [key: string]: unknown;
}

export const useEmfCapture = () => {
  let lines: string[] = [];
  beforeAll(() => {
    process.env.POWERTOOLS_METRICS_DISABLED = 'false';
    delete process.env.POWERTOOLS_DEV;
    process.env.STAGE = 'test';
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  const capture = () => {
    lines = [];
    vi.spyOn(process.stdout, 'write').mockImplementation(((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    }) as never);
  };
  const emitted = (): Emf[] =>
    lines
      .flatMap((chunk) => chunk.split('\n'))
      .filter((line) => line.includes('"_aws"'))
      .map((line) => JSON.parse(line) as Emf);
  return { capture, emitted };
};
