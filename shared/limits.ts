/** The spec's numeric limits ("Limits" section), in one place. */
export const LIMITS = {
  /** Event rate: 40 requests per second per store, on each event interface. */
  eventsPerSecond: 40,
  /**
   * Duplicates (a `source_id` already seen, answered 304) per second per store and interface, counted apart from new
   * events: a client retrying a whole burst at the event rate stays inside it (50 identical requests racing still get
   * one 200 and 49 304s), a loop re-sending old events at any rate does not.
   */
  duplicatesPerSecond: 50,
  /**
   * Webhook management: the spec answers 429 "too frequent" without a number; 10 calls per second per store is far
   * above what configuring subscriptions needs and keeps a runaway script from hammering the table.
   */
  webhookManagementPerSecond: 10,
  /** Flow definitions per store: far more than any store's automations, small enough to list and evaluate in one read. */
  flowsPerStore: 100,
  /** Flow management calls per second per store (the webhook management interface's pace). */
  flowManagementPerSecond: 10,
  /** Contact export: the spec advises a gap of at least 1 second between requests; faster is answered 429. */
  exportPerSecond: 1,
  /**
   * OAuth sign-in requests per second per store key. Each costs a memory-hard password hash (~32 MiB, 0.1–0.2 s), so a
   * flood is refused before hashing; the per-username lockout (docs/oauth.md) handles guessing, this handles load.
   */
  oauthPerSecond: 20,
  /** Import upload URLs per second per store: each is a job and a signed URL; more than a script needs. */
  uploadUrlsPerSecond: 2,
  /**
   * Flow waits a store may keep at once in the timer wheel (each a small item in the table): a store whose flows hold
   * this many runs waiting sees new waits exit `waiting_runs_cap` instead of the table growing without bound.
   */
  waitingRunsPerStore: 1_000_000,
  /** Event status reads per second per store (`GET /api/v1/events`): for checking events, not for polling each one. */
  eventStatusPerSecond: 10,
  /**
   * Segments per store: every event that changes a contact evaluates all of the store's segments for it,
   * and its memberships are read in one `BatchGetItem` (at most 100 keys), so this bounds the work one event causes.
   */
  segmentsPerStore: 50,
  /** Conditions in one segment, counted over its nested groups: what one evaluation of it may read and test. */
  conditionsPerSegment: 20,
  /** Segment management and member pages per second per store (the flows API's pace, a bucket of its own). */
  segmentManagementPerSecond: 10,
} as const;
