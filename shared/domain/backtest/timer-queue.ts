/**
 * The backtest's simulated timers: a priority queue of due times (a binary heap), with the Scheduler's naming rule: a
 * timer set again under the same name moves (the earlier entry is left in the heap and skipped when it comes up).
 */
import type { Timer } from '#shared/domain/timers/model.ts';

interface Entry {
  readonly timer: Timer;
  readonly seq: number;
}

const before = (a: Entry, b: Entry) => a.timer.at < b.timer.at || (a.timer.at === b.timer.at && a.seq < b.seq);

export class TimerQueue {
  readonly #heap: Entry[] = [];
  /** The live entry of each name (its sequence number). */
  readonly #current = new Map<string, number>();
  #seq = 0;

  set(timer: Timer): void {
    const entry = { timer, seq: ++this.#seq };
    this.#current.set(timer.name, entry.seq);
    this.#heap.push(entry);
    this.#up(this.#heap.length - 1);
  }

  /** Timers still to fire (moved ones not counted twice). */
  get size(): number {
    return this.#current.size;
  }

  /** Removes and answers the earliest live timer due at or before `until`, if any. */
  popDue(until: number): Timer | undefined {
    for (;;) {
      const top = this.#heap[0];
      if (!top || top.timer.at > until) return undefined;
      this.#pop();
      if (this.#current.get(top.timer.name) !== top.seq) continue;
      this.#current.delete(top.timer.name);
      return top.timer;
    }
  }

  /** The live timers left, earliest first. */
  pending(): Timer[] {
    return this.#heap
      .filter((entry) => this.#current.get(entry.timer.name) === entry.seq)
      .sort((a, b) => (before(a, b) ? -1 : 1))
      .map((entry) => entry.timer);
  }

  #pop(): void {
    const last = this.#heap.pop();
    if (last === undefined || this.#heap.length === 0) return;
    this.#heap[0] = last;
    this.#down(0);
  }

  #up(index: number): void {
    const heap = this.#heap;
    let i = index;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const [child, above] = [heap[i] as Entry, heap[parent] as Entry];
      if (!before(child, above)) return;
      heap[i] = above;
      heap[parent] = child;
      i = parent;
    }
  }

  #down(index: number): void {
    const heap = this.#heap;
    let i = index;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < heap.length && before(heap[left] as Entry, heap[least] as Entry)) least = left;
      if (right < heap.length && before(heap[right] as Entry, heap[least] as Entry)) least = right;
      if (least === i) return;
      const swap = heap[i] as Entry;
      heap[i] = heap[least] as Entry;
      heap[least] = swap;
      i = least;
    }
  }
}
