/**
 * The public confirmation link's route (`confirmRoute`): an altered or foreign token and a token whose store is gone
 * answer the invalid-link page (400), an expired one the expired page (410), never a 500; only a valid, unexpired
 * link reaches the confirmation, and what it shows escapes the store's name.
 */
import { describe, expect, it } from 'vitest';
import {
  type ConfirmClaim,
  signConfirmToken,
  verifyConfirmToken,
} from '#shared/domain/contacts/sign-up-confirmation.ts';
import type { Store } from '#shared/domain/stores/model.ts';
import { confirmRoute, confirmSignUpPage } from '#shared/http/confirm-pages.ts';
import { apiEvent, lambdaContext } from '#test/support/events.ts';

const SECRET = Buffer.alloc(32, 3);
const NOW = 1_700_000_000_000;
const STORE = 'st_AAAAAAAAAAAAAAAAAAAA';

const route = () => {
  const reached: ConfirmClaim[] = [];
  const handler = confirmRoute(
    () => ({
      links: { verify: async (token) => verifyConfirmToken(token, SECRET) },
      stores: { get: async (storeId) => (storeId === STORE ? ({ storeId, name: 'Shop' } as Store) : undefined) },
      clock: { now: () => NOW },
    }),
    async ({ claim }) => {
      reached.push(claim);
      return { statusCode: 200, headers: {}, body: 'confirmed' };
    },
  );
  const open = async (token: string) => {
    const result = await handler(
      apiEvent({ method: 'POST', path: `/confirm/${token}`, pathParameters: { token } }),
      lambdaContext(),
    );
    return { status: result.statusCode, body: String(result.body) };
  };
  return { open, reached };
};

const token = (claim: Partial<ConfirmClaim> = {}) =>
  signConfirmToken({ storeId: STORE, email: 'ada@example.com', expiresAt: NOW / 1000 + 60, ...claim }, SECRET);

describe('confirmRoute', () => {
  it('hands a valid, unexpired link to the confirmation', async () => {
    const { open, reached } = route();
    expect(await open(token())).toEqual({ status: 200, body: 'confirmed' });
    expect(reached).toHaveLength(1);
  });

  it.each([
    ['an altered token', `${token().slice(0, -2)}zz`],
    ['garbage', 'not-a-token'],
    ['a token whose store is gone', token({ storeId: 'st_gone' })],
  ])('answers %s with the invalid-link page', async (_, given) => {
    const { open, reached } = route();
    const answer = await open(given);
    expect(answer.status).toBe(400);
    expect(answer.body).toContain('This confirmation link is not valid');
    expect(reached).toEqual([]);
  });

  it('answers an expired link with the expired page, confirming nothing', async () => {
    const { open, reached } = route();
    const answer = await open(token({ expiresAt: NOW / 1000 - 1 }));
    expect(answer.status).toBe(410);
    expect(answer.body).toContain('This confirmation link has expired');
    expect(reached).toEqual([]);
  });

  it("escapes the store's name and the address on the page", () => {
    const page = String(confirmSignUpPage('<b>@example.com', '<script>x</script>').body);
    expect(page).not.toContain('<script>x');
    expect(page).not.toContain('<b>@');
  });
});
