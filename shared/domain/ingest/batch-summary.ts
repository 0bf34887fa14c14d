/**
 * What one ingest-worker batch applied, for its one INFO log line (a line per event was most of the event
 * path's log bytes, $0.25 of about $0.52 per million events; each event's own line is at DEBUG). Counted as the
 * batch's events apply and taken (and reset) when the batch ends.
 */
import type { ApplyOutcome } from './apply/context.ts';

export interface BatchSummaryLine {
  /** Events applied. */
  readonly events: number;
  /** Distinct stores among them. */
  readonly stores: number;
  /** Events per entity written (`page_view`, `customer`, …, `none`). */
  readonly applied: Readonly<Record<string, number>>;
  /** Flow triggers fired, per kind (absent when none). */
  readonly triggers?: Readonly<Record<string, number>>;
}

const bump = (counts: Record<string, number>, key: string) => {
  counts[key] = (counts[key] ?? 0) + 1;
};

export class BatchSummary {
  #stores = new Set<string>();
  #applied: Record<string, number> = {};
  #triggers: Record<string, number> = {};
  #events = 0;

  add(storeId: string, outcome: Pick<ApplyOutcome, 'applied' | 'triggers'>): void {
    this.#events++;
    this.#stores.add(storeId);
    bump(this.#applied, outcome.applied);
    for (const kind of outcome.triggers) bump(this.#triggers, kind);
  }

  /** The batch's summary so far (undefined when it applied nothing), and a fresh start. */
  take(): BatchSummaryLine | undefined {
    const line =
      this.#events === 0
        ? undefined
        : {
            events: this.#events,
            stores: this.#stores.size,
            applied: this.#applied,
            ...(Object.keys(this.#triggers).length > 0 ? { triggers: this.#triggers } : {}),
          };
    this.#stores = new Set();
    this.#applied = {};
    this.#triggers = {};
    this.#events = 0;
    return line;
  }
}
