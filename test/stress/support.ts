/**
 * Helpers of the stress suites: a load generator over many stores that records the answer to every request (and the
 * entity each event is about), and the checks that compare what the API accepted with what the worker applied.
 *
 * The generator posts a mix of event kinds over keep-alive connections. Stores come in two kinds: ordinary stores are
 * paced under the spec's 40 events/s (so a 429 for them is a server fault), over-limit stores have their own clients
 * posting well above it. Some requests re-send an already accepted `source_id` with other data (late duplicates, which
 * must be answered 304 and change nothing), some send a new event twice at once (racing duplicates: one 200, one 304).
 * Backpressure: while the ingest queue holds more than `maxBacklog` messages the ordinary clients wait, so the rate
 * measured is the one the runtime sustains end to end (API and worker), not a burst the worker can only catch up on.
 */
import { Agent, request } from 'node:http';
import { seeded } from '#bench/lib/stats.ts';
import { nextSecond, StoreWindows } from '#bench/lib/store-windows.ts';
import { TABLE_NAME } from '#local/resources.ts';
import { dynamo } from '#shared/adapters/aws-clients.ts';
import { keys } from '#shared/adapters/dynamodb/keys.ts';
import { BatchGetCommand, QueryCommand } from '#shared/adapters/dynamodb-client.ts';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Seconds of sustained load (`STRESS_SECONDS`, default `fallback`). */
export const stressSeconds = (fallback: number): number => {
  const raw = process.env.STRESS_SECONDS;
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`STRESS_SECONDS must be a positive number, got "${raw}"`);
  return value;
};

// ---- Events -------------------------------------------------------------------------------------------------------

export type Kind = 'customer' | 'order' | 'cart' | 'subscriber';

export interface LoadStore {
  readonly storeId: string;
  readonly apiKey: string;
  /** Its clients post above the spec's limit: 429s are expected for it, and only for it. */
  readonly overLimit: boolean;
}

/** `accepted` (200 / code 200), `duplicate` (200 / code 304), `rate_limited` (429), `HTTP <n>`, `error <code>`. */
export type Outcome = 'accepted' | 'duplicate' | 'rate_limited' | `HTTP ${number}` | `error ${string}`;

export interface Sent {
  readonly store: number;
  readonly kind: Kind;
  readonly sourceId: string;
  /** The entity the event is about: customer id, order id or cart token. */
  readonly entityId: string;
  /** A late duplicate: a re-send of an accepted `source_id` with other data. */
  readonly duplicateOf?: string;
  /** One of a racing pair (the same new event sent twice at once). */
  readonly racing?: boolean;
  outcome: Outcome;
  /** `outcome` of the earlier tries, when the request was retried after an unknown outcome (connection error). */
  readonly earlier: Outcome[];
}

const T0 = 1_700_000_000;

/** The request for an event: host (`main` or `front`), path and body. `variant` alters the data (duplicates). */
export const eventRequest = (kind: Kind, sourceId: string, entityId: string, variant = false) => {
  switch (kind) {
    case 'customer':
      return {
        host: 'main' as const,
        body: {
          endpoint: 'customers/create',
          source_id: sourceId,
          data: {
            id: entityId,
            email: `${entityId}@example.com`,
            created_at: T0,
            first_name: variant ? 'Duplicate' : 'Ada',
          },
        },
      };
    case 'order':
      return {
        host: 'main' as const,
        body: {
          endpoint: 'orders/create',
          source_id: sourceId,
          data: {
            id: entityId,
            customer_id: `buyer-${entityId}`,
            email: `buyer-${entityId}@example.com`,
            name: `#${entityId}`,
            order_status: 'pending',
            total_price: variant ? '999.00' : '19.90',
            currency: 'USD',
            line_items: [
              { id: 'l1', product_id: 'p1', variant_id: 'p1-v1', title: 'Lamp', quantity: 1, price: '19.90' },
            ],
          },
        },
      };
    case 'cart':
      return {
        host: 'main' as const,
        body: {
          endpoint: 'carts/create',
          source_id: sourceId,
          data: {
            token: entityId,
            email: `shopper-${entityId}@example.com`,
            checkout_url: `https://shop.example/cart/${entityId}${variant ? '?duplicate' : ''}`,
            line_items: [{ product_id: 'p1', variant_id: 'p1-v1', title: 'Lamp', quantity: 1, price: '10.00' }],
          },
        },
      };
    case 'subscriber':
      // Headless `customers/create` (a form subscription): emits `customer/newsletter`, whatever the store had.
      return {
        host: 'front' as const,
        body: {
          endpoint: 'customers/create',
          source_id: sourceId,
          data: {
            id: entityId,
            created_at: T0,
            email: `${entityId}@example.com`,
            first_name: variant ? 'Duplicate' : 'Zoë',
          },
        },
      };
  }
};

const PATHS = { main: '/api/v1/events', front: '/api/v1/headless/events' } as const;

const outcomeOf = (status: number, text: string): Outcome => {
  if (status === 429) return 'rate_limited';
  if (status !== 200) return `HTTP ${status}`;
  // General interface: `{code: 200}` or `{code: 304}`; headless: `{success: true}` or `{success: false, code: 304}`.
  if (text.includes('"code":200') || text.includes('"success":true')) return 'accepted';
  if (text.includes('"code":304')) return 'duplicate';
  return `HTTP ${status}`;
};

export interface Poster {
  post(host: 'main' | 'front', body: unknown, apiKey: string): Promise<{ status: number; text: string }>;
  close(): void;
}

/** Keep-alive HTTP client for the two event hosts. */
export const poster = (urls: { main: string; front: string }, sockets = 64): Poster => {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets });
  const targets = { main: new URL(urls.main), front: new URL(urls.front) };
  const post = (
    host: 'main' | 'front',
    body: unknown,
    apiKey: string,
    retried = false,
  ): Promise<{ status: number; text: string }> =>
    new Promise((resolve, reject) => {
      const url = targets[host];
      const text = JSON.stringify(body);
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: PATHS[host],
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(text),
            'x-service-access-token': apiKey,
          },
        },
        (res) => {
          let answer = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            answer += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: answer }));
          res.on('error', reject);
        },
      );
      req.setTimeout(60_000, () => req.destroy(Object.assign(new Error('request timeout'), { code: 'ETIMEDOUT' })));
      req.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive socket the server closed as idle just as it was reused: the request never reached the
        // server, so sending it again on a fresh socket is safe (Node's documented pattern for this race).
        if (!retried && req.reusedSocket && error.code === 'ECONNRESET') {
          post(host, body, apiKey, true).then(resolve, reject);
          return;
        }
        reject(error);
      });
      req.end(text);
    });
  return { post: (host, body, apiKey) => post(host, body, apiKey), close: () => agent.destroy() };
};

/** Sends one event (again, for a retry) and records its outcome on `sent`. */
export const send = async (client: Poster, store: LoadStore, sent: Sent, variant = false): Promise<Outcome> => {
  const { host, body } = eventRequest(sent.kind, sent.sourceId, sent.entityId, variant);
  try {
    const answer = await client.post(host, body, store.apiKey);
    sent.outcome = outcomeOf(answer.status, answer.text);
  } catch (error) {
    sent.outcome = `error ${(error as { code?: string }).code ?? (error as Error).name}`;
  }
  return sent.outcome;
};

// ---- The generator ------------------------------------------------------------------------------------------------

export interface LoadOptions {
  readonly urls: { main: string; front: string };
  readonly stores: readonly LoadStore[];
  /** Issue requests for this long (ms), or until `stop` is aborted. */
  readonly durationMs: number;
  readonly stop?: AbortSignal;
  /** Concurrent clients over the ordinary stores. */
  readonly concurrency: number;
  /** Requests per second per ordinary store (kept well under 40: see `StoreWindows`). */
  readonly perStoreBudget: number;
  /** Requests each over-limit store sends at once at the start of every second. */
  readonly overLimitRate: number;
  /** Kinds of new events and their weights. */
  readonly mix: readonly (readonly [Kind, number])[];
  /** Share of requests that re-send an accepted `source_id` (late duplicates). */
  readonly lateDuplicates: number;
  /** Share of new events sent twice at once (ordinary stores only). */
  readonly racingDuplicates: number;
  /** Messages in the ingest queue; the ordinary clients wait while it is above `maxBacklog`. */
  readonly backlog?: () => Promise<number>;
  readonly maxBacklog?: number;
  /** Prefix of source ids and entity ids (distinct per phase). */
  readonly tag: string;
  /** Kept up to date with the number of requests awaiting their answer (a kill test kills while some are). */
  readonly inFlight?: { count: number };
}

export interface LoadRun {
  readonly sent: Sent[];
  readonly elapsedMs: number;
  /** Time the ordinary clients spent waiting for the backlog to shrink. */
  readonly backpressureMs: number;
  readonly client: Poster;
}

export const runLoad = async (options: LoadOptions): Promise<LoadRun> => {
  const overLimitStores = options.stores.filter((s) => s.overLimit).length;
  const client = poster(options.urls, options.concurrency + overLimitStores * options.overLimitRate + 8);
  const random = seeded(0x5157);
  const budget = new StoreWindows(options.stores.length);
  const sent: Sent[] = [];
  const acceptedOf = options.stores.map((): Sent[] => []);
  const start = performance.now();
  const deadline = start + options.durationMs;
  const running = () => performance.now() < deadline && !options.stop?.aborted;
  const totalWeight = options.mix.reduce((t, [, w]) => t + w, 0);
  let serial = 0;
  let paused = false;
  let backpressureMs = 0;

  const pickKind = (): Kind => {
    let r = random() * totalWeight;
    for (const [kind, weight] of options.mix) {
      r -= weight;
      if (r < 0) return kind;
    }
    return options.mix[0]?.[0] ?? 'customer';
  };

  const fresh = (store: number, extra: Partial<Sent> = {}): Sent => {
    const n = ++serial;
    const kind = pickKind();
    return {
      store,
      kind,
      sourceId: `${options.tag}-e${n}`,
      entityId: `${options.tag}-${kind[0]}${n}`,
      outcome: 'error pending',
      earlier: [],
      ...extra,
    };
  };

  const one = async (store: number) => {
    if (!options.inFlight) return oneRequest(store);
    options.inFlight.count++;
    try {
      return await oneRequest(store);
    } finally {
      options.inFlight.count--;
    }
  };

  const oneRequest = async (store: number) => {
    const loadStore = options.stores[store];
    if (!loadStore) return;
    const accepted = acceptedOf[store] ?? [];
    const roll = random();
    if (roll < options.lateDuplicates && accepted.length > 0) {
      const original = accepted[Math.floor(random() * accepted.length)];
      if (original) {
        const dup: Sent = {
          ...original,
          duplicateOf: original.sourceId,
          racing: false,
          outcome: 'error pending',
          earlier: [],
        };
        sent.push(dup);
        await send(client, loadStore, dup, true);
        return;
      }
    }
    if (!loadStore.overLimit && roll < options.lateDuplicates + options.racingDuplicates) {
      const a = fresh(store, { racing: true });
      const b: Sent = { ...a, earlier: [] };
      sent.push(a, b);
      await Promise.all([send(client, loadStore, a), send(client, loadStore, b)]);
      if (a.outcome === 'accepted') accepted.push(a);
      if (b.outcome === 'accepted') accepted.push(b);
      return;
    }
    const event = fresh(store);
    sent.push(event);
    if ((await send(client, loadStore, event)) === 'accepted') accepted.push(event);
  };

  const ordinary = options.stores.flatMap((s, i) => (s.overLimit ? [] : [i]));
  let cursor = 0;
  const ordinaryClient = async () => {
    while (running()) {
      if (paused) {
        await sleep(50);
        continue;
      }
      let store: number | undefined;
      for (let tried = 0; tried < ordinary.length && store === undefined; tried++) {
        const candidate = ordinary[cursor] ?? 0;
        cursor = (cursor + 1) % ordinary.length;
        // A racing pair counts twice.
        if (budget.take(candidate, options.perStoreBudget - 1)) store = candidate;
      }
      if (store === undefined) {
        await nextSecond();
        continue;
      }
      await one(store);
    }
  };

  /**
   * Each over-limit store: a burst of `overLimitRate` requests at the start of every second, all at once, so the server
   * sees more than the limit within one window even when each request is slow.
   */
  const overLimitClient = async (store: number) => {
    while (running()) {
      // The backlog holds them back too, or their accepted share would crowd the ordinary stores out.
      if (paused) {
        await sleep(50);
        continue;
      }
      await Promise.all(Array.from({ length: options.overLimitRate }, () => one(store)));
      await nextSecond();
    }
  };

  const monitor = async () => {
    if (!options.backlog || options.maxBacklog === undefined) return;
    while (running()) {
      const depth = await options.backlog().catch(() => 0);
      const wasPaused = paused;
      paused = paused ? depth > options.maxBacklog / 2 : depth > options.maxBacklog;
      const began = performance.now();
      await sleep(250);
      if (wasPaused) backpressureMs += performance.now() - began;
    }
    paused = false;
  };

  await Promise.all([
    monitor(),
    ...Array.from({ length: options.concurrency }, ordinaryClient),
    ...options.stores.flatMap((s, i) => (s.overLimit ? [overLimitClient(i)] : [])),
  ]);
  return { sent, elapsedMs: performance.now() - start, backpressureMs, client };
};

/** Counts of outcomes, e.g. `{accepted: 120, duplicate: 7}`. */
export const tally = (sent: readonly Sent[]): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const s of sent) out[s.outcome] = (out[s.outcome] ?? 0) + 1;
  return out;
};

// ---- Reading what the worker applied ------------------------------------------------------------------------------

export interface Applied {
  readonly revision: number;
  readonly item: Record<string, unknown>;
}

const keyOf = (kind: Kind, storeId: string, entityId: string) =>
  kind === 'order'
    ? keys.order(storeId, entityId)
    : kind === 'cart'
      ? keys.cart(storeId, entityId)
      : keys.customer(storeId, entityId);

/**
 * The records the worker wrote for `wanted` (store id, kind, entity id), read with BatchGetItem in pages of 100:
 * `storeId|entityId` → item. Missing entities are absent from the map.
 */
export const readApplied = async (
  wanted: readonly { storeId: string; kind: Kind; entityId: string }[],
): Promise<Map<string, Applied>> => {
  const found = new Map<string, Applied>();
  const unique = new Map(wanted.map((w) => [`${w.storeId}|${w.entityId}`, w]));
  const all = [...unique.values()];
  for (let i = 0; i < all.length; i += 100) {
    let pending: Record<string, unknown>[] = all.slice(i, i + 100).map((w) => keyOf(w.kind, w.storeId, w.entityId));
    for (let tries = 0; pending.length > 0; tries++) {
      if (tries > 20) throw new Error('BatchGetItem kept leaving keys unprocessed');
      const answer = await dynamo().send(
        new BatchGetCommand({ RequestItems: { [TABLE_NAME]: { Keys: pending, ConsistentRead: true } } }),
      );
      for (const item of answer.Responses?.[TABLE_NAME] ?? []) {
        const storeId = String(item.storeId);
        const entityId = String(item.originId ?? item.token ?? item.id);
        found.set(`${storeId}|${entityId}`, { revision: Number(item.revision), item });
      }
      pending = (answer.UnprocessedKeys?.[TABLE_NAME]?.Keys ?? []) as Record<string, unknown>[];
    }
  }
  return found;
};

/**
 * The store's creation-order index entries (the one the export reads) and the distinct contacts they point to. They
 * differ only after a SIGKILL: dynalite writes an item's index entries before the item itself, so a kill between the
 * two leaves an entry whose item was never written; the redelivered event then creates the contact with a new id and a
 * second entry. DynamoDB updates an index only for a committed item, so a deployment cannot see this.
 */
export const contactIndex = async (storeId: string): Promise<{ entries: number; contacts: number }> => {
  const range = keys.customersCreatedBetween(storeId, undefined, undefined);
  const pks = new Set<string>();
  let entries = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const answer = await dynamo().send(
      new QueryCommand({
        TableName: TABLE_NAME,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': range.gsi1pk, ':from': range.from, ':to': range.to },
        ProjectionExpression: 'pk',
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    for (const item of answer.Items ?? []) pks.add(String(item.pk));
    entries += answer.Items?.length ?? 0;
    startKey = answer.LastEvaluatedKey;
  } while (startKey);
  return { entries, contacts: pks.size };
};

/** Number of contacts the store has (its creation-order index, the one the export reads). */
export const contactCount = async (storeId: string): Promise<number> => {
  const range = keys.customersCreatedBetween(storeId, undefined, undefined);
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const answer = await dynamo().send(
      new QueryCommand({
        TableName: TABLE_NAME,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': range.gsi1pk, ':from': range.from, ':to': range.to },
        Select: 'COUNT',
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    count += answer.Count ?? 0;
    startKey = answer.LastEvaluatedKey;
  } while (startKey);
  return count;
};

/** Whether the data stored for an entity is the original event's (not a duplicate's variant). */
export const isOriginal = (kind: Kind, item: Record<string, unknown>): boolean => {
  switch (kind) {
    case 'customer':
      return item.firstName === 'Ada';
    case 'subscriber':
      return item.firstName === 'Zoë';
    case 'order':
      return (item.details as Record<string, unknown> | undefined)?.total_price === '19.90';
    case 'cart':
      return typeof item.checkoutUrl === 'string' && !item.checkoutUrl.includes('duplicate');
  }
};
