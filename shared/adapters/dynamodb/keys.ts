/**
 * Single-table key design: every item has `pk`/`sk` (and `gsi1pk`/`gsi1sk`, `gsi2pk`/`gsi2sk` where an access pattern
 * needs them), an `entity` name and a `schema` version. All key composition lives here, one builder per entity.
 *
 * | entity   | pk                                   | sk        | gsi1 (pk / sk)                          | gsi2 (pk / sk)                       |
 * |----------|--------------------------------------|-----------|-----------------------------------------|--------------------------------------|
 * | store    | STORE#<storeId>                      | STORE     | STORES / <createdAt>#<storeId>          |                                      |
 * | apiKey   | APIKEY#<sha256>                      | APIKEY    |                                         |                                      |
 * | event    | STORE#<storeId>#EVENT#<sourceId>     | EVENT     |                                         |                                      |
 * | rate     | RATE#<key>#<epochSecond>             | RATE      |                                         |                                      |
 * | customer | STORE#<storeId>#CUSTOMER#<originId>  | CUSTOMER  | STORE#<storeId>#CUSTOMERS / <createdAt>#<id> | STORE#<storeId>#EMAIL#<email> / <originId> |
 * | product  | STORE#<storeId>#PRODUCT#<productId>  | PRODUCT   |                                         |                                      |
 */

export type Entity = 'store' | 'apiKey' | 'event' | 'rate' | 'customer' | 'product';

/** Fixed width so the string order of the sort key is the numeric order. */
const pad = (n: number, width: number) => String(Math.max(0, Math.trunc(n))).padStart(width, '0');

export const keys = {
  store: (storeId: string) => ({ pk: `STORE#${storeId}`, sk: 'STORE' }),
  storeIndex: (createdAt: number, storeId: string) => ({
    gsi1pk: 'STORES',
    gsi1sk: `${pad(createdAt, 15)}#${storeId}`,
  }),
  apiKey: (keyHash: string) => ({ pk: `APIKEY#${keyHash}`, sk: 'APIKEY' }),
  event: (storeId: string, sourceId: string) => ({ pk: `STORE#${storeId}#EVENT#${sourceId}`, sk: 'EVENT' }),
  rate: (key: string, epochSecond: number) => ({ pk: `RATE#${key}#${epochSecond}`, sk: 'RATE' }),
  customer: (storeId: string, originId: string) => ({ pk: `STORE#${storeId}#CUSTOMER#${originId}`, sk: 'CUSTOMER' }),
  /** Contacts of a store in creation order (the contact export pages through this). */
  customerByCreation: (storeId: string, createdAt: number, id: string) => ({
    gsi1pk: `STORE#${storeId}#CUSTOMERS`,
    gsi1sk: `${pad(createdAt, 12)}#${id}`,
  }),
  /** Contacts by email address (flows, suppression and unsubscribe look people up by address). */
  customerByEmail: (storeId: string, email: string, originId: string) => ({
    gsi2pk: `STORE#${storeId}#EMAIL#${email.toLowerCase()}`,
    gsi2sk: originId,
  }),
  product: (storeId: string, productId: string) => ({ pk: `STORE#${storeId}#PRODUCT#${productId}`, sk: 'PRODUCT' }),
} as const;

/** Attributes every item carries besides its keys. */
export const itemMeta = (entity: Entity, schema = 1) => ({ entity, schema });

/** Strips the storage-only attributes from an item read back. */
export const withoutMeta = <T>(item: Record<string, unknown>): T => {
  const { pk, sk, gsi1pk, gsi1sk, gsi2pk, gsi2sk, entity, schema, expiresAt, ...rest } = item;
  return rest as T;
};
