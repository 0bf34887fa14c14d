/** Optimistic concurrency: `save` fails with `RevisionConflict` when the stored revision is not `expectedRevision`. */
export class RevisionConflict extends Error {
  constructor(what: string) {
    super(`${what} was changed concurrently`);
    this.name = 'RevisionConflict';
  }
}

export interface Repository<T> {
  get(storeId: string, key: string): Promise<T | undefined>;
  /** Writes if the stored revision is still `expectedRevision` (0: must not exist yet); else `RevisionConflict`. */
  save(record: T, expectedRevision: number): Promise<void>;
}
