/**
 * Whom a flow started from the publishable key may mail (`knownAddress`): any address when the trigger did not come
 * from it; otherwise only the own address of a contact the store's systems wrote.
 */
import { describe, expect, it } from 'vitest';
import { endReasonText } from '#shared/domain/console/run-outcome.ts';
import { knownAddress } from '#shared/domain/flows/trigger.ts';

const fromStore = {};
const fromPublicKey = { publicOrigin: true } as const;
const customer = { email: 'Ada@Example.com' };

describe('knownAddress', () => {
  it('lets a store-key trigger mail anyone the flow rules allow, a guest included', () => {
    expect(knownAddress(fromStore, undefined, 'guest@example.com')).toBe(true);
  });

  it("lets a publishable-key trigger mail a known contact's own address, whatever its case", () => {
    expect(knownAddress(fromPublicKey, customer, 'ada@example.com')).toBe(true);
  });

  it.each([
    ['an address with no contact', undefined, 'typed@example.com'],
    [
      'a contact a public sign-up created',
      { email: 'ada@example.com', publicSignUp: true as const },
      'ada@example.com',
    ],
    ["another address under a known contact's id", customer, 'someone@example.com'],
  ])('refuses %s', (_, contact, email) => {
    expect(knownAddress(fromPublicKey, contact, email)).toBe(false);
  });

  it('lets a contact its owner confirmed (double opt-in: the public mark dropped) be mailed', () => {
    expect(knownAddress(fromPublicKey, { email: 'ada@example.com' }, 'ada@example.com')).toBe(true);
  });

  it('has a skip reason a merchant can read', () => {
    expect(endReasonText('unconfirmed_address')).toMatch(/^the address came from the storefront's public key/);
  });
});
