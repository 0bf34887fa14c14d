/**
 * A store's week, played against a running local stack through its public APIs only: customers through both
 * interfaces and sign-ups through the publishable key, storefront page views, carts abandoned and recovered,
 * checkouts, paid orders, opens and clicks on the mail that went out (bounces and complaints by SES's mailbox
 * simulator addresses), a bulk send and a campaign to a segment, with the local clock advanced through each day. Then
 * it reads back what the service counted and checks that every number reconciles (`reconcile`).
 *
 * `npm run simulate` plays it against `npm start`'s stack (scripts/simulate.ts); the test suite plays a small seed on
 * its own runtime (test/integration/simulate/week.test.ts).
 */
import { GetQueueAttributesCommand, ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { CONFIRM_FROM_LOCAL_PART } from '#shared/domain/contacts/sign-up-confirmation.ts';
import { type Random, seeded } from './random.ts';

export interface SimulationTarget {
  readonly urls: { readonly main: string; readonly front: string; readonly sending: string; readonly mail: string };
  /** The SQS endpoint of the stack: the week waits for its queues to drain after each step. */
  readonly sqsEndpoint: string;
  /** The store to play, made for the run: its store key, and a publishable key that allows `origin`. */
  readonly store: {
    readonly storeId: string;
    readonly apiKey: string;
    readonly publishableKey: string;
    readonly origin: string;
  };
}

export interface SimulationOptions {
  readonly days: number;
  readonly customers: number;
  readonly seed: number;
  /** Told after each step: `done` of `total` steps, and what the step was. */
  readonly onProgress?: (done: number, total: number, step: string) => void;
}

/** What the week did, what the service counted, and each invariant with whether it holds. */
export interface SimulationReport {
  readonly storeId: string;
  readonly days: { readonly from: string; readonly to: string };
  readonly played: {
    readonly customers: number;
    readonly signUps: number;
    readonly pageViews: number;
    readonly carts: number;
    readonly checkouts: number;
    readonly paidOrders: number;
    readonly paidRevenue: Readonly<Record<string, string>>;
    readonly opens: number;
    readonly clicks: number;
    readonly bulkSent: number;
    readonly campaigns: number;
  };
  readonly counted: {
    readonly mailsInSes: number;
    /** Publishable-key sign-ups' confirmation emails: the service's, not the store's list, so in no count of it. */
    readonly confirmationsInSes: number;
    readonly emailed: number;
    readonly delivered: number;
    readonly bounced: number;
    readonly opened: number;
    readonly clicked: number;
    readonly recovered: { readonly orders: number; readonly revenue: Readonly<Record<string, string>> };
    readonly influenced: { readonly orders: number; readonly revenue: Readonly<Record<string, string>> };
    readonly byKind: { readonly flow: number; readonly campaign: number; readonly bulk: number };
  };
  readonly invariants: readonly { readonly name: string; readonly holds: boolean; readonly detail: string }[];
}

const DAY_S = 86_400;
/** Each simulated day is played in this many steps of the clock. */
const STEPS_PER_DAY = 4;
const CURRENCY = 'USD';

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** One request, retried while the service answers 429 (the store's budget) or 503. */
const call = async (
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> => {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(url, {
      method: init.method ?? 'GET',
      headers: { 'content-type': 'application/json', ...init.headers },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    const text = await response.text();
    if ((response.status === 429 || response.status === 503) && attempt < 20) {
      const after = Number(response.headers.get('retry-after'));
      await sleep(Number.isFinite(after) && after > 0 ? after * 1000 : 250 * (attempt + 1));
      continue;
    }
    let body: Record<string, unknown> = {};
    try {
      body = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
    } catch {
      body = { text };
    }
    return { status: response.status, body };
  }
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const expectOk = (answer: Answer, what: string): Record<string, unknown> => {
  if (answer.status >= 300) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
};

const dataOf = <T>(body: Record<string, unknown>) => body.data as T;

const money = (cents: number) => (cents / 100).toFixed(2);

export const simulateWeek = async (target: SimulationTarget, options: SimulationOptions): Promise<SimulationReport> => {
  const random = seeded(options.seed);
  const { store, urls } = target;
  const storeKey = { 'x-service-access-token': store.apiKey };
  const publicKey = { 'x-service-access-token': store.publishableKey, origin: store.origin };
  const domain = `sim-${options.seed}.example`;
  const from = { email: `shop@${domain}`, name: 'Simulated Shop' };
  const sqs = new SQSClient({
    endpoint: target.sqsEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  let sequence = 0;
  const nextId = (prefix: string) => `${prefix}-${options.seed}-${++sequence}`;

  const event = (endpoint: string, data: Record<string, unknown>) =>
    call(`${urls.main}/api/v1/events`, {
      method: 'POST',
      headers: storeKey,
      body: { endpoint, source_id: nextId('src'), data },
    }).then((answer) => expectOk(answer, endpoint));
  const headless = (endpoint: string, data: Record<string, unknown>) =>
    call(`${urls.front}/api/v1/headless/events`, {
      method: 'POST',
      headers: publicKey,
      body: { endpoint, source_id: nextId('pk'), data },
    }).then((answer) => expectOk(answer, `headless ${endpoint}`));
  const api = (method: string, path: string, body?: unknown) =>
    call(`${urls.main}${path}`, { method, headers: storeKey, body }).then((answer) =>
      expectOk(answer, `${method} ${path}`),
    );

  // ---- The store's setup: a sending domain, three flows from presets, a segment of buyers --------------------------
  await api('POST', '/api/v1/senders', { domain });
  const presets = dataOf<{ list: { preset: string }[] }>(await api('GET', '/api/v1/flows/presets')).list.map(
    (p) => p.preset,
  );
  const flowIds: string[] = [];
  for (const preset of ['abandoned_cart', 'checkout_recovery', 'customer_created']) {
    if (!presets.includes(preset)) continue;
    const flow = dataOf<{ id: string }>(await api('POST', '/api/v1/flows', { preset, from, enabled: true }));
    flowIds.push(flow.id);
  }
  const segment = dataOf<{ id: string }>(
    await api('POST', '/api/v1/segments', {
      name: 'Buyers',
      conditions: { match: 'all', conditions: [{ field: 'contact.orders_placed', op: 'greater_than', value: 0 }] },
    }),
  );

  // ---- The week ----------------------------------------------------------------------------------------------------
  const totalSteps = options.days * STEPS_PER_DAY;
  let stepsDone = 0;
  const played = {
    customers: 0,
    signUps: 0,
    pageViews: 0,
    carts: 0,
    checkouts: 0,
    paidOrders: 0,
    paidCents: 0,
    opens: 0,
    clicks: 0,
    bulkSent: 0,
    campaigns: 0,
  };
  const contacts: { id: string; email: string }[] = [];
  const openCarts: { token: string; contact: { id: string; email: string } }[] = [];
  const seenMail = new Set<string>();
  const perDay = Math.max(1, Math.round(options.customers / options.days));
  const startedAt = await serviceNow(urls.main, storeKey);

  const addressOf = (id: string) => {
    // SES's mailbox simulator: a few addresses bounce, one complains (the local runtime plays them as SES would).
    if (random.chance(0.02)) return `bounce+${id}@simulator.amazonses.com`;
    if (played.customers === 7) return `complaint+${id}@simulator.amazonses.com`;
    return `${id}@example.com`;
  };

  const pay = async (contact: { id: string; email: string }, extra: Record<string, unknown>) => {
    const cents = random.int(1500, 12_000);
    await event('orders/paid', {
      id: nextId('order'),
      customer_id: contact.id,
      email: contact.email,
      name: `#${sequence}`,
      order_status: 'paid',
      total_price: money(cents),
      currency: CURRENCY,
      line_items: [
        { id: 'line-1', product_id: 'p-1', variant_id: 'p-1-v1', title: 'Mug', quantity: 1, price: money(cents) },
      ],
      ...extra,
    });
    played.paidOrders++;
    played.paidCents += cents;
  };

  for (let day = 0; day < options.days; day++) {
    // New customers: most through the store's server (subscribed), some sign up on the storefront (publishable key).
    for (let i = 0; i < perDay && played.customers + played.signUps < options.customers; i++) {
      const id = nextId('cust');
      const email = addressOf(id);
      if (random.chance(0.15)) {
        await headless('customers/create', { id, email, created_at: Math.floor(Date.now() / 1000) });
        played.signUps++;
      } else {
        await event('customers/create', {
          id,
          email,
          first_name: random.pick(['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Ken']),
          created_at: Math.floor(Date.now() / 1000),
          email_marketing_consent: { state: 'subscribed', updated_at: Math.floor(Date.now() / 1000) },
        });
        played.customers++;
        contacts.push({ id, email });
      }
    }
    // Shopping: page views through the publishable key, carts, checkouts and payments through the store key.
    for (const contact of contacts.filter(() => random.chance(0.3))) {
      for (let v = random.int(0, 2); v > 0; v--) {
        await headless('page_view', {
          requestId: nextId('view'),
          type: 'page',
          includeProduct: 1,
          page: { url: `${store.origin}/products/p-1`, title: 'Mug', productId: 'p-1' },
          customerId: contact.id,
          currencySymbol: '$',
        }).catch(() => undefined);
        played.pageViews++;
      }
      if (!random.chance(0.6)) continue;
      const token = nextId('cart');
      await event('carts/create', {
        token,
        email: contact.email,
        customer_id: contact.id,
        checkout_url: `${store.origin}/cart/${token}`,
        line_items: [{ product_id: 'p-1', variant_id: 'p-1-v1', title: 'Mug', quantity: 1, price: '12.00' }],
      });
      played.carts++;
      if (random.chance(0.4)) {
        const checkout = nextId('checkout');
        await event('checkouts/create', {
          token: checkout,
          cart_token: token,
          email: contact.email,
          customer_id: contact.id,
          total_price: '12.00',
          currency: CURRENCY,
          abandoned_checkout_url: `${store.origin}/checkouts/${checkout}/recover`,
          line_items: [{ product_id: 'p-1', variant_id: 'p-1-v1', title: 'Mug', quantity: 1, price: '12.00' }],
        });
        played.checkouts++;
        if (random.chance(0.6)) await pay(contact, { cart_token: token, checkout_token: checkout });
      } else {
        openCarts.push({ token, contact });
      }
    }
    // Mid-week: a bulk send to a few customers, and a campaign to the buyers.
    if (day === Math.floor(options.days / 2)) {
      const recipients = contacts.filter(() => random.chance(0.3)).slice(0, 20);
      if (recipients.length > 0) {
        const bulk = expectOk(
          await call(`${urls.sending}/api/v1/sending`, {
            method: 'POST',
            headers: storeKey,
            body: {
              subject: 'This week only',
              html: '<p>Hello {{name}}</p>',
              from,
              recipients: recipients.map((c) => ({
                address: { email: c.email },
                substitutionData: { name: 'friend' },
              })),
            },
          }),
          'bulk send',
        );
        played.bulkSent += Number(bulk.totalAccepted ?? 0);
      }
      await api('POST', '/api/v1/campaigns', {
        name: 'Thank you, buyers',
        segments: [segment.id],
        from,
        subject: 'Thank you, {{ contact.first_name }}',
        html: '<p>Thank you for your order.</p><p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p>',
        allowEmptyAudience: true,
      });
      played.campaigns++;
    }

    for (let step = 0; step < STEPS_PER_DAY; step++) {
      await advance(urls.main, DAY_S / STEPS_PER_DAY);
      await drained(sqs);
      // The recipients of what went out open some of it and click a little of that; some buy after the click.
      for (const mail of await newMail(urls.mail, domain, seenMail)) {
        if (mail.to.includes('simulator.amazonses.com')) continue;
        if (!random.chance(0.4)) continue;
        await simulate(urls.main, { messageId: mail.messageId, type: 'open' });
        played.opens++;
        if (!random.chance(0.25)) continue;
        await simulate(urls.main, { messageId: mail.messageId, type: 'click', link: `${store.origin}/cart` });
        played.clicks++;
        const contact = contacts.find((c) => mail.to.includes(c.email));
        const cart = openCarts.find((c) => c.contact === contact);
        if (contact && random.chance(0.5)) await pay(contact, cart ? { cart_token: cart.token } : {});
      }
      await drained(sqs);
      options.onProgress?.(++stepsDone, totalSteps, `day ${day + 1} of ${options.days}`);
    }
  }

  // ---- What the service counted ------------------------------------------------------------------------------------
  await drained(sqs);
  const endedAt = await serviceNow(urls.main, storeKey);
  const range = { from: dayOf(startedAt), to: dayOf(endedAt) };
  // The counters worker gathers for a couple of seconds after the queues drain.
  await sleep(3000);
  await drained(sqs);
  const stats = dataOf<StatsBody>(await api('GET', `/api/v1/stats?from=${range.from}&to=${range.to}`));
  const flowEmailed = await sum(flowIds, async (id) =>
    Number(dataOf<StatsBody>(await api('GET', `/api/v1/flows/${id}/stats?from=${range.from}&to=${range.to}`)).emailed),
  );
  const campaigns = dataOf<{ list: { id: string }[] }>(await api('GET', '/api/v1/campaigns')).list;
  const campaignSent = await sum(
    campaigns.map((c) => c.id),
    async (id) => dataOf<{ progress: { sent: number } }>(await api('GET', `/api/v1/campaigns/${id}`)).progress.sent,
  );
  const fromDomain = (await allMail(urls.mail)).filter((m) => m.from.includes(`@${domain}`));
  const mails = fromDomain.filter((m) => isStoreMail(m, domain));
  const segmentNow = dataOf<{ count: number }>(await api('GET', `/api/v1/segments/${segment.id}`));
  const members = await countPages(api, `/api/v1/segments/${segment.id}/members`);
  const runs = (await Promise.all(flowIds.map((id) => listPages<FlowRunItem>(api, `/api/v1/flows/${id}/runs`)))).flat();
  const exitedWithoutReason = runs.filter(
    (item) => item.run?.status === 'exited' && !item.run.events.some((e) => e.type === 'exited' && e.reason),
  );

  const paidRevenue = { [CURRENCY]: money(played.paidCents) };
  const counted = {
    mailsInSes: mails.length,
    confirmationsInSes: fromDomain.length - mails.length,
    emailed: stats.emailed,
    delivered: stats.delivered,
    bounced: stats.bounced,
    opened: stats.opened,
    clicked: stats.clicked,
    recovered: stats.recovered,
    influenced: stats.influenced,
    byKind: { flow: flowEmailed, campaign: campaignSent, bulk: played.bulkSent },
  };
  const revenue = (r: Readonly<Record<string, string>>) => Math.round(Number(r[CURRENCY] ?? '0') * 100);
  const invariants = [
    check(
      'every email sent is counted as sent once',
      counted.emailed === counted.mailsInSes,
      `${counted.emailed} counted, ${counted.mailsInSes} in the local SES`,
    ),
    check(
      'every email counted in exactly one kind',
      flowEmailed + campaignSent + played.bulkSent === counted.emailed,
      `flow ${flowEmailed} + campaign ${campaignSent} + bulk ${played.bulkSent} = ${flowEmailed + campaignSent + played.bulkSent}, store ${counted.emailed}`,
    ),
    check(
      'delivered + bounced ≤ sent',
      counted.delivered + counted.bounced <= counted.emailed,
      `${counted.delivered} + ${counted.bounced} ≤ ${counted.emailed}`,
    ),
    check(
      'opened ≤ delivered and clicked ≤ opened',
      counted.opened <= counted.delivered && counted.clicked <= counted.opened,
      `opened ${counted.opened}, clicked ${counted.clicked}, delivered ${counted.delivered}`,
    ),
    check(
      'recovered + influenced orders ≤ paid orders',
      counted.recovered.orders + counted.influenced.orders <= played.paidOrders,
      `${counted.recovered.orders} + ${counted.influenced.orders} ≤ ${played.paidOrders}`,
    ),
    check(
      'recovered + influenced revenue ≤ paid revenue',
      revenue(counted.recovered.revenue) + revenue(counted.influenced.revenue) <= played.paidCents,
      `${money(revenue(counted.recovered.revenue))} + ${money(revenue(counted.influenced.revenue))} ≤ ${money(played.paidCents)} ${CURRENCY}`,
    ),
    check(
      "a segment's count equals its member list",
      segmentNow.count === members,
      `count ${segmentNow.count}, members listed ${members}`,
    ),
    check(
      'no run exits without a reason',
      exitedWithoutReason.length === 0,
      `${exitedWithoutReason.length} of ${runs.filter((r) => r.run?.status === 'exited').length} exited runs without one`,
    ),
  ];
  return {
    storeId: store.storeId,
    days: range,
    played: {
      customers: played.customers,
      signUps: played.signUps,
      pageViews: played.pageViews,
      carts: played.carts,
      checkouts: played.checkouts,
      paidOrders: played.paidOrders,
      paidRevenue,
      opens: played.opens,
      clicks: played.clicks,
      bulkSent: played.bulkSent,
      campaigns: played.campaigns,
    },
    counted,
    invariants,
  };
};

interface StatsBody {
  readonly emailed: number;
  readonly delivered: number;
  readonly bounced: number;
  readonly opened: number;
  readonly clicked: number;
  readonly recovered: { readonly orders: number; readonly revenue: Record<string, string> };
  readonly influenced: { readonly orders: number; readonly revenue: Record<string, string> };
}

interface FlowRunItem {
  readonly run?: { readonly status: string; readonly events: readonly { type: string; reason?: string }[] };
}

const check = (name: string, holds: boolean, detail: string) => ({ name, holds, detail });

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const sum = async <T>(items: readonly T[], of: (item: T) => Promise<number>) => {
  let total = 0;
  for (const item of items) total += await of(item);
  return total;
};

/** The service's time (the local clock, advanced): the `Date` header of an answer is the gateway's wall clock. */
const serviceNow = async (mainUrl: string, headers: Record<string, string>): Promise<number> => {
  const answer = await call(`${mainUrl}/api/v1/stats`, { headers });
  const to = dataOf<{ to: string }>(answer.body).to;
  return Date.parse(`${to}T12:00:00Z`);
};

const advance = async (mainUrl: string, seconds: number) => {
  expectOk(
    await call(`${mainUrl}/_local/clock/advance`, { method: 'POST', body: { seconds } }),
    'advancing the local clock',
  );
};

const simulate = async (mainUrl: string, body: Record<string, unknown>) => {
  expectOk(await call(`${mainUrl}/_local/email-events`, { method: 'POST', body }), `simulated ${String(body.type)}`);
};

interface Mail {
  readonly messageId: string;
  readonly from: string;
  readonly to: string;
}

const allMail = async (mailUrl: string): Promise<Mail[]> => {
  const response = await fetch(`${mailUrl}/store`);
  const { emails } = (await response.json()) as {
    emails: { messageId: string; from: string; destination: { to: string[] } }[];
  };
  return emails.map((m) => ({ messageId: m.messageId, from: m.from, to: m.destination.to.join(',') }));
};

/**
 * Mail the store sent (by its sender domain), not a sign-up's confirmation email: that one comes from the service's
 * own address on the domain and counts in none of the store's numbers (docs/sending.md).
 */
const isStoreMail = (m: Mail, domain: string): boolean =>
  m.from.includes(`@${domain}`) && !m.from.includes(`${CONFIRM_FROM_LOCAL_PART}@${domain}`);

/** The store's mail not seen before (`isStoreMail`), marked seen. */
const newMail = async (mailUrl: string, domain: string, seen: Set<string>): Promise<Mail[]> =>
  (await allMail(mailUrl)).filter((m) => {
    if (!isStoreMail(m, domain) || seen.has(m.messageId)) return false;
    seen.add(m.messageId);
    return true;
  });

const listPages = async <T>(
  api: (method: string, path: string) => Promise<Record<string, unknown>>,
  path: string,
): Promise<T[]> => {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const page = dataOf<{ list: T[]; nextCursor?: string }>(
      await api('GET', `${path}?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`),
    );
    items.push(...page.list);
    cursor = page.nextCursor;
  } while (cursor);
  return items;
};

const countPages = async (
  api: (method: string, path: string) => Promise<Record<string, unknown>>,
  path: string,
): Promise<number> => (await listPages<unknown>(api, path)).length;

/** Waits until every queue of the stack is empty twice in a row (at most a minute: then the week goes on). */
const drained = async (sqs: SQSClient): Promise<void> => {
  const { QueueUrls = [] } = await sqs.send(new ListQueuesCommand({}));
  const deadline = Date.now() + 60_000;
  let emptyReadings = 0;
  while (emptyReadings < 2 && Date.now() < deadline) {
    const busy = await Promise.all(
      QueueUrls.filter((url) => !/dlq/i.test(url)).map(async (QueueUrl) => {
        const { Attributes = {} } = await sqs.send(
          new GetQueueAttributesCommand({
            QueueUrl,
            AttributeNames: [
              'ApproximateNumberOfMessages',
              'ApproximateNumberOfMessagesNotVisible',
              'ApproximateNumberOfMessagesDelayed',
            ],
          }),
        );
        return (
          Number(Attributes.ApproximateNumberOfMessages ?? 0) +
          Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0) +
          Number(Attributes.ApproximateNumberOfMessagesDelayed ?? 0)
        );
      }),
    );
    emptyReadings = busy.every((n) => n === 0) ? emptyReadings + 1 : 0;
    await sleep(200);
  }
};

export type { Random };
