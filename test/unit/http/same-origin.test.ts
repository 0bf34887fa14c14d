import { afterEach, describe, expect, it, vi } from 'vitest';
import { isSameOrigin } from '#shared/http/same-origin.ts';
import { resetProcessState } from '#shared/lazy.ts';
import { apiEvent } from '#test/support/events.ts';

const posted = (headers: Record<string, string>) =>
  apiEvent({ method: 'POST', path: '/back-office/sign-out', headers: { host: 'main.example', ...headers } });

describe('the back office’s same-origin check', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    resetProcessState();
  });

  it('lets through a post from its own origin, and one with no Origin (not a browser)', () => {
    expect(isSameOrigin(posted({ origin: 'https://main.example' }))).toBe(true);
    expect(isSameOrigin(posted({}))).toBe(true);
  });

  it('refuses another host, and an Origin that is no URL or the opaque "null"', () => {
    expect(isSameOrigin(posted({ origin: 'https://evil.example' }))).toBe(false);
    expect(isSameOrigin(posted({ origin: 'not a url' }))).toBe(false);
    expect(isSameOrigin(posted({ origin: 'null' }))).toBe(false);
  });

  it('refuses its own host over another scheme or port: an origin is scheme, host and port', () => {
    expect(isSameOrigin(posted({ origin: 'http://main.example' }))).toBe(false);
    expect(isSameOrigin(posted({ origin: 'https://main.example:8443' }))).toBe(false);
  });

  it('takes the scheme API Gateway reports, and the public main URL’s origin', () => {
    expect(isSameOrigin(posted({ origin: 'http://main.example', 'x-forwarded-proto': 'http' }))).toBe(true);
    expect(isSameOrigin(posted({ origin: 'https://main.example', 'x-forwarded-proto': 'http' }))).toBe(false);
    vi.stubEnv('PUBLIC_MAIN_URL', 'https://shop-admin.example/');
    resetProcessState();
    expect(isSameOrigin(posted({ origin: 'https://shop-admin.example' }))).toBe(true);
    expect(isSameOrigin(posted({ origin: 'http://shop-admin.example' }))).toBe(false);
  });
});
