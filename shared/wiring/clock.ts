/** The one system clock of the deployed service (tests and the local runtime's clock advance use their own `Clock`). */
import type { Clock } from '#shared/domain/clock.ts';

export const systemClock: Clock = { now: () => Date.now() };
