import { afterEach, describe, expect, it } from 'vitest';
import { lazy, onReset, processWide, resetProcessState, scopeLazies } from '#shared/lazy.ts';

describe('lazily built values', () => {
  afterEach(() => scopeLazies(undefined));

  it('are built once, on first use', () => {
    let builds = 0;
    const value = lazy(() => ({ n: ++builds }));
    expect(builds).toBe(0);
    expect(value()).toBe(value());
    expect(builds).toBe(1);
  });

  it('are built once per scope under scopeLazies, and process-wide ones once for all', () => {
    let scope = 'a';
    scopeLazies(() => scope);
    const perFunction = lazy(() => ({ scope }));
    const shared = processWide(() => ({ scope }));
    expect(perFunction()).toEqual({ scope: 'a' });
    expect(shared()).toEqual({ scope: 'a' });
    scope = 'b';
    expect(perFunction()).toEqual({ scope: 'b' });
    expect(shared()).toEqual({ scope: 'a' });
  });

  it('are built again from the environment as it is after resetProcessState, scoped ones too', () => {
    process.env.LAZY_TEST_ENDPOINT = 'http://127.0.0.1:1111';
    scopeLazies(() => 'fn');
    const client = processWide(() => ({ endpoint: process.env.LAZY_TEST_ENDPOINT }));
    const wiring = lazy(() => ({ endpoint: process.env.LAZY_TEST_ENDPOINT }));
    const first = client();
    expect(wiring().endpoint).toBe('http://127.0.0.1:1111');

    process.env.LAZY_TEST_ENDPOINT = 'http://127.0.0.1:2222';
    expect(client()).toBe(first);
    resetProcessState();
    expect(client()).not.toBe(first);
    expect(client().endpoint).toBe('http://127.0.0.1:2222');
    expect(wiring().endpoint).toBe('http://127.0.0.1:2222');
    delete process.env.LAZY_TEST_ENDPOINT;
  });

  it('runs the resets registered for module-level caches', () => {
    const cache = new Map([['key', 'value']]);
    onReset(() => cache.clear());
    resetProcessState();
    expect(cache.size).toBe(0);
  });
});
