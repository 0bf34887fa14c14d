import type { Clock } from '#shared/domain/clock.ts';
import type { StoreSlot } from '#shared/domain/store-slot.ts';

/** The store slots in memory, as `dynamoStoreSlot` keeps them: a claim per store until it lapses or is released. */
export const memoryStoreSlot = (clock: Clock): StoreSlot & { readonly held: Map<string, string> } => {
  const slots = new Map<string, { claimId: string; until: number }>();
  let next = 0;
  return {
    get held() {
      return new Map([...slots].filter(([, s]) => s.until > clock.now()).map(([store, s]) => [store, s.claimId]));
    },
    async claim(storeId, seconds) {
      const now = clock.now();
      const slot = slots.get(storeId);
      if (slot && slot.until > now) return { claimed: false, retryAfterSeconds: seconds };
      const claimId = `claim-${++next}`;
      slots.set(storeId, { claimId, until: now + seconds * 1000 });
      return { claimed: true, claimId };
    },
    async release(storeId, claimId) {
      if (slots.get(storeId)?.claimId === claimId) slots.delete(storeId);
    },
  };
};
