/** Ports of the checkouts area: what its use cases need from the outside world. Nothing here imports an AWS SDK. */

import type { Repository } from '#shared/domain/repository.ts';
import type { Checkout } from './model.ts';

export interface CheckoutRepository extends Repository<Checkout> {}
