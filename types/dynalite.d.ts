declare module 'dynalite' {
  import type { Server } from 'node:http';

  interface DynaliteOptions {
    /** LevelDB directory; in memory when absent. */
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
  }

  /** Returns an unstarted HTTP server speaking the DynamoDB API. */
  export default function dynalite(options?: DynaliteOptions): Server;
}
