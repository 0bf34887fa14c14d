/** Ports of the orders area: what its use cases need from the outside world. Nothing here imports an AWS SDK. */

import type { Repository } from '#shared/domain/repository.ts';
import type { Order } from './model.ts';

export interface OrderRepository extends Repository<Order> {}
