/** Ports of the page-views area: what its use cases need from the outside world. Nothing here imports an AWS SDK. */
import type { PageView } from './model.ts';

export interface PageViewRepository {
  add(view: PageView): Promise<void>;
}
