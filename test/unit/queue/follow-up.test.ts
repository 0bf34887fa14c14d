/** A follow-up step (the segments an applied event changed) never turns a handled message into a failed one. */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { PermanentError } from '#shared/errors.ts';
import { logger } from '#shared/observability.ts';
import { followUp } from '#shared/queue/follow-up.ts';

// The failures these tests provoke are logged by design; the lane's output keeps to the tests' own results.
beforeEach(() => {
  vi.spyOn(logger, 'error').mockImplementation(() => undefined);
  vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
});

describe('followUp', () => {
  it('answers what the step answers', async () => {
    expect(await followUp('Step', async () => 42, {})).toBe(42);
  });

  it('answers nothing for a failure no retry can fix, so the message stays handled', async () => {
    const tooLarge = Object.assign(new Error('Item size has exceeded the maximum allowed size'), {
      name: 'ValidationException',
      $fault: 'client',
    });
    expect(await followUp('Step', () => Promise.reject(new PermanentError('never')), {})).toBeUndefined();
    expect(await followUp('Step', () => Promise.reject(tooLarge), {})).toBeUndefined();
    expect(await followUp('Step', () => Promise.reject(new TypeError('x.trim is not a function')), {})).toBeUndefined();
  });

  it('throws a transient failure, so the queue retries the message', async () => {
    const throttled = Object.assign(new Error('slow down'), { name: 'ThrottlingException', $retryable: {} });
    await expect(followUp('Step', () => Promise.reject(throttled), {})).rejects.toBe(throttled);
  });
});
