/** The spec's numeric limits ("Limits" section), in one place. */
export const LIMITS = {
  /** Event rate: 40 requests per second per store, on each event interface. */
  eventsPerSecond: 40,
} as const;
