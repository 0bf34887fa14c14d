/** The attribution port in memory (`shared/domain/attribution/ports.ts`), with the same rules as the table adapter. */
import {
  type DayCounts,
  type Exposure,
  keepsMonths,
  type MonthCounts,
  monthOf,
  type OrderAttribution,
  type Touch,
  type UnattributedOrder,
} from '#shared/domain/attribution/model.ts';
import type { AttributionStore } from '#shared/domain/attribution/ports.ts';

/**
 * `legacy`: stores whose counts were added before months were kept (the store adds to no month and answers
 * `monthsKept` false until `rebuildMonths`).
 */
export const memoryAttribution = (options: { legacy?: boolean } = {}) => {
  let legacy = options.legacy ?? false;
  const rebuilt = new Set<string>();
  const subjects = new Map<string, Touch>();
  const clicks = new Map<string, Touch>();
  const orders = new Map<string, OrderAttribution>();
  const unattributed = new Map<string, UnattributedOrder[]>();
  const once = new Set<string>();
  const counters = new Map<string, Map<string, Record<string, number>>>();
  const monthCounters = new Map<string, Map<string, Record<string, number>>>();
  const latest = (map: Map<string, Touch>, key: string, touch: Touch) => {
    const before = map.get(key);
    if (!before || before.at <= touch.at) map.set(key, touch);
  };
  const exposures = new Map<string, Map<string, { exposure: Exposure; revenue: Record<string, number> }>>();
  const store: AttributionStore = {
    markExposure: async (storeId, email, exposure) => {
      const own = exposures.get(`${storeId}#${email}`) ?? new Map();
      own.set(exposure.flowId, { exposure, revenue: {} });
      exposures.set(`${storeId}#${email}`, own);
    },
    exposuresOf: async (storeId, email) =>
      [...(exposures.get(`${storeId}#${email}`)?.values() ?? [])].map((mark) => mark.exposure),
    addExposureRevenue: async (storeId, email, exposure, currency, amount) => {
      const mark = exposures.get(`${storeId}#${email}`)?.get(exposure.flowId);
      if (!mark || mark.exposure.runId !== exposure.runId) return undefined;
      const before = mark.revenue[currency] ?? 0;
      mark.revenue[currency] = before + amount;
      return before;
    },
    markSubject: async (storeId, subject, touch) => latest(subjects, `${storeId}#${subject.type}#${subject.id}`, touch),
    latestForSubjects: async (storeId, list) =>
      list
        .map((s) => subjects.get(`${storeId}#${s.type}#${s.id}`))
        .filter((t): t is Touch => t !== undefined)
        .sort((a, b) => b.at - a.at)[0],
    markClick: async (storeId, email, touch) => latest(clicks, `${storeId}#${email}`, touch),
    lastClick: async (storeId, email) => clicks.get(`${storeId}#${email}`),
    markUnattributed: async (storeId, email, order) => {
      const own = unattributed.get(`${storeId}#${email}`) ?? [];
      unattributed.set(
        `${storeId}#${email}`,
        [order, ...own].sort((a, b) => b.paidAt - a.paidAt),
      );
    },
    unattributedOrders: async (storeId, email) => [...(unattributed.get(`${storeId}#${email}`) ?? [])].slice(0, 10),
    reconsiderOrder: async (storeId, orderId, attribution) => {
      if (orders.get(`${storeId}#${orderId}`)?.kind !== 'none') return false;
      orders.set(`${storeId}#${orderId}`, attribution);
      return true;
    },
    claimOrder: async (storeId, orderId, attribution) => {
      if (orders.has(`${storeId}#${orderId}`)) return false;
      orders.set(`${storeId}#${orderId}`, attribution);
      return true;
    },
    claimOnce: async (storeId, key) => {
      if (once.has(`${storeId}#${key}`)) return false;
      once.add(`${storeId}#${key}`);
      return true;
    },
    addTo: async (storeId, scope, period, deltas) => {
      addTo(period.length === 7 ? monthCounters : counters, `${storeId}#${scope}`, period, deltas);
    },
    add: async (storeId, scopes, day, deltas) => {
      for (const scope of scopes) {
        addTo(counters, `${storeId}#${scope}`, day, deltas);
        if (!legacy && keepsMonths(scope)) addTo(monthCounters, `${storeId}#${scope}`, monthOf(day), deltas);
      }
    },
    days: async (storeId, scope, from, to): Promise<DayCounts[]> =>
      within(counters, `${storeId}#${scope}`, from, to).map(([day, counts]) => ({ day, counts })),
    months: async (storeId, scope, from, to): Promise<MonthCounts[]> =>
      within(monthCounters, `${storeId}#${scope}`, from, to).map(([month, counts]) => ({ month, counts })),
    periods: async (storeId, wanted) =>
      new Map(
        wanted.map(({ scope, days, months }) => [
          scope,
          {
            days: within(counters, `${storeId}#${scope}`, '0000', '9999')
              .filter(([day]) => days.includes(day))
              .map(([day, counts]) => ({ day, counts })),
            months: within(monthCounters, `${storeId}#${scope}`, '0000', '9999')
              .filter(([month]) => months.includes(month))
              .map(([month, counts]) => ({ month, counts })),
          },
        ]),
      ),
    monthsKept: async (storeId) => !options.legacy || rebuilt.has(storeId),
    deleteScope: async (storeId, scope) => {
      counters.delete(`${storeId}#${scope}`);
      monthCounters.delete(`${storeId}#${scope}`);
    },
    rebuildMonths: async (storeId, scopes) => {
      for (const scope of scopes) {
        monthCounters.delete(`${storeId}#${scope}`);
        for (const [day, counts] of counters.get(`${storeId}#${scope}`) ?? []) {
          addTo(monthCounters, `${storeId}#${scope}`, monthOf(day), counts);
        }
      }
      rebuilt.add(storeId);
    },
  };
  return {
    store,
    orders,
    /** From now on, counts add to their months too (what deploying the month counters does). */
    upgrade: () => {
      legacy = false;
    },
  };
};

type Counters = Map<string, Map<string, Record<string, number>>>;

const addTo = (counters: Counters, key: string, period: string, deltas: Readonly<Record<string, number>>) => {
  const periods = counters.get(key) ?? new Map<string, Record<string, number>>();
  const counts = periods.get(period) ?? {};
  for (const [name, n] of Object.entries(deltas)) counts[name] = (counts[name] ?? 0) + n;
  periods.set(period, counts);
  counters.set(key, periods);
};

const within = (counters: Counters, key: string, from: string, to: string) =>
  [...(counters.get(key) ?? new Map<string, Record<string, number>>())]
    .filter(([period]) => period >= from && period <= to)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([period, counts]) => [period, { ...counts }] as const);
