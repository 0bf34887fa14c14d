/** Ports of the carts area: what its use cases need from the outside world. Nothing here imports an AWS SDK. */

import type { Repository } from '#shared/domain/repository.ts';
import type { Cart } from './model.ts';

/** Carts, deleted ones included (closed tombstones, see `carts/model.ts`). */
export interface CartRepository extends Repository<Cart> {}
