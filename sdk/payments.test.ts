import { describe, expect, it } from 'vitest';
import { useHarness } from '../server/test/harness.js';
import { AdminApp } from './admin-app.js';
import { KnownErrors } from './errors.js';
import { ServerApp } from './server-app.js';
import { sessionClientApp } from './test/apps.js';

/** Items, products and test-mode checkout through the SDK, against a real server. */

const h = useHarness();

const PAYMENTS = {
  test_mode: true,
  items: { credits: { displayName: 'Credits', customerType: 'user' }, seats: { customerType: 'team' } },
  products: {
    pro: {
      displayName: 'Pro',
      customerType: 'user',
      prices: { monthly: { USD: '9.99', interval: [1, 'month'] } },
      includedItems: { credits: { quantity: 3 } },
    },
  },
};

async function setup() {
  const project = await h.createProject({ config: { payments: PAYMENTS } });
  const server = new ServerApp({ projectId: project.id, secretServerKey: project.secretServerKey, baseUrl: h.url });
  const admin = new AdminApp({ projectId: project.id, superSecretAdminKey: project.superSecretAdminKey, baseUrl: h.url });
  const user = await server.createUser({ primary_email: h.uniqueEmail('buyer') });
  const tokens = await server.createSession({ user_id: user.id });
  const client = sessionClientApp(project, h.url, tokens);
  return { project, server, admin, user, client };
}

describe('payments through the SDK', () => {
  it('checks out in test mode, reads items, and try-decreases to false without throwing', async () => {
    const { server, admin, user, client } = await setup();
    const me = { customerType: 'user' as const, customerId: 'me' };
    expect(await client.getItem({ ...me, itemId: 'credits' })).toEqual({ id: 'credits', display_name: 'Credits', quantity: 0, non_negative_quantity: 0 });
    expect(await client.createCheckoutUrl({ ...me, productId: 'pro', returnUrl: 'http://localhost:3000/back' })).toBe('http://localhost:3000/back');
    expect((await client.listProducts(me)).items.map((p) => p.id)).toEqual(['pro']);
    const customer = { customerType: 'user' as const, customerId: user.id };
    expect((await server.getItem({ ...customer, itemId: 'credits' })).quantity).toBe(3);
    expect(await server.tryDecreaseItemQuantity({ ...customer, itemId: 'credits', amount: 2 })).toBe(true);
    expect(await server.tryDecreaseItemQuantity({ ...customer, itemId: 'credits', amount: 2 })).toBe(false);
    await expect(server.updateItemQuantity({ ...customer, itemId: 'credits', delta: -5 })).rejects.toBeInstanceOf(KnownErrors.ItemQuantityInsufficientAmount);
    expect((await server.updateItemQuantity({ ...customer, itemId: 'credits', delta: -5, allowNegative: true })).quantity).toBe(-4);
    await expect(server.grantProduct({ ...customer, productId: 'pro' })).rejects.toBeInstanceOf(KnownErrors.ProductAlreadyGranted);
    expect(
      await server.grantProduct({ customerType: 'custom', customerId: 'acct-1', productInline: { customer_type: 'custom', prices: 'include-by-default' } }),
    ).toMatchObject({
      id: null,
      product: { server_only: true, stackable: false },
    });
    expect(await admin.getStripeAccountInfo()).toBeNull();
    const txs = await admin.listTransactions();
    // The purchase, beside the item changes the test made (every grant and manual change is a transaction too).
    expect(txs.transactions.filter((t) => t.type === 'purchase')).toEqual([
      expect.objectContaining({ product_id: 'pro', test_mode: true, amount_minor: 999, currency: 'USD' }),
    ]);
    // Revenue: the test-mode purchase, apart from live money (grants and manual changes move none).
    const today = new Date().toISOString().slice(0, 10);
    const revenue = await admin.getRevenue({ from: new Date(), to: today });
    expect(revenue).toEqual({
      from: today,
      to: today,
      live: [],
      test: [{ date: today, currency: 'USD', gross_minor: 999, refunds_minor: 0, net_minor: 999 }],
    });
    expect((await admin.getRevenue()).test).toEqual(revenue.test);
    await expect(admin.getRevenue({ days: 367 })).rejects.toBeInstanceOf(KnownErrors.SchemaError);
  }, 60_000);
});
