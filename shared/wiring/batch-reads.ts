/**
 * Reads remembered for one queue-worker batch: the first message of a store reads, the batch's other
 * messages of that store share the answer, and the batch's end (`forget`) drops them all, so a change saved meanwhile
 * applies from the next batch, seconds later. A failed read is not remembered: the next message reads again.
 */
export const batchReads = <T>() => {
  let reads = new Map<string, Promise<T>>();
  return {
    read(key: string, load: () => Promise<T>): Promise<T> {
      let found = reads.get(key);
      if (!found) {
        found = load();
        reads.set(key, found);
        found.catch(() => reads.delete(key));
      }
      return found;
    },
    forget(): void {
      reads = new Map();
    },
  };
};
