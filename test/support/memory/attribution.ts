/** The attribution port in memory (`shared/domain/attribution/ports.ts`), with the same rules as the table adapter. */
import type { DayCounts, Exposure, OrderAttribution, Touch } from '#shared/domain/attribution/model.ts';
import type { AttributionStore } from '#shared/domain/attribution/ports.ts';

export const memoryAttribution = () => {
  const subjects = new Map<string, Touch>();
  const clicks = new Map<string, Touch>();
  const orders = new Map<string, OrderAttribution>();
  const once = new Set<string>();
  const counters = new Map<string, Map<string, Record<string, number>>>();
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
    addTo: async (storeId, scope, day, deltas) => {
      addTo(counters, `${storeId}#${scope}`, day, deltas);
    },
    add: async (storeId, scopes, day, deltas) => {
      for (const scope of scopes) addTo(counters, `${storeId}#${scope}`, day, deltas);
    },
    days: async (storeId, scope, from, to): Promise<DayCounts[]> =>
      within(counters, `${storeId}#${scope}`, from, to).map(([day, counts]) => ({ day, counts })),
    periods: async (storeId, wanted) =>
      new Map(
        wanted.map(({ scope, days }) => [
          scope,
          within(counters, `${storeId}#${scope}`, '0000', '9999')
            .filter(([day]) => days.includes(day))
            .map(([day, counts]) => ({ day, counts })),
        ]),
      ),
    deleteScope: async (storeId, scope) => {
      counters.delete(`${storeId}#${scope}`);
    },
  };
  return { store, orders };
};

type Counters = Map<string, Map<string, Record<string, number>>>;

const addTo = (counters: Counters, key: string, day: string, deltas: Readonly<Record<string, number>>) => {
  const days = counters.get(key) ?? new Map<string, Record<string, number>>();
  const counts = days.get(day) ?? {};
  for (const [name, n] of Object.entries(deltas)) counts[name] = (counts[name] ?? 0) + n;
  days.set(day, counts);
  counters.set(key, days);
};

const within = (counters: Counters, key: string, from: string, to: string) =>
  [...(counters.get(key) ?? new Map<string, Record<string, number>>())]
    .filter(([day]) => day >= from && day <= to)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([day, counts]) => [day, { ...counts }] as const);
