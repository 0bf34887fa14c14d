import * as v from 'valibot';
import { queueMessage } from '#shared/queue/message.ts';

const BacktestMessage = v.pipe(
  v.object({ v: v.literal(1), storeId: v.string(), backtestId: v.string() }),
  v.transform(({ storeId, backtestId }) => ({ storeId, backtestId })),
);

/** Reads a message off the backtest queue; anything else is permanent (no retry can fix it). */
export const parseBacktestMessage = queueMessage(BacktestMessage, 'backtest message');
