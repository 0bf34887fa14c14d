/** The attribution port in memory (`shared/domain/attribution/ports.ts`), with the same rules as the table adapter. */
import type { DayCounts, OrderAttribution, Touch } from '#shared/domain/attribution/model.ts';
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
  const store: AttributionStore = {
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
    add: async (storeId, scopes, day, deltas) => {
      for (const scope of scopes) {
        const days = counters.get(`${storeId}#${scope}`) ?? new Map<string, Record<string, number>>();
        const counts = days.get(day) ?? {};
        for (const [name, n] of Object.entries(deltas)) counts[name] = (counts[name] ?? 0) + n;
        days.set(day, counts);
        counters.set(`${storeId}#${scope}`, days);
      }
    },
    days: async (storeId, scope, from, to): Promise<DayCounts[]> =>
      [...(counters.get(`${storeId}#${scope}`) ?? new Map<string, Record<string, number>>())]
        .filter(([day]) => day >= from && day <= to)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([day, counts]) => ({ day, counts: { ...counts } })),
  };
  return { store, orders };
};
