import { beforeAll, describe, expect, it } from 'vitest';
import type { StripeFake } from '../server/test/stripe-fake.js';
import { SECRET_KEY, WEBHOOK_SECRET, useStripeHarness } from '../server/test/stripe-fixtures.js';
import { AdminApp } from './admin-app.js';
import { KnownErrors } from './errors.js';
import { ServerApp } from './server-app.js';
import { sessionClientApp } from './test/apps.js';
import type { z } from 'zod';
import type { inlineProductSchema } from '../contract/config/payments.js';
import type { InlineProduct } from './features/payments.js';

// The SDK writes InlineProduct out by hand (its declarations must not need zod): tsc keeps it
// assignable both ways to the input of the schema the server checks it with.
type InlineProductSchemaInput = z.input<typeof inlineProductSchema>;
export const inlineProductMatchesSchema: [(p: InlineProduct) => InlineProductSchemaInput, (p: InlineProductSchemaInput) => InlineProduct] = [
  (p) => p,
  (p) => p,
];

/**
 * Items, products, checkout and the billing portal through the SDK, against a real server (and the
 * local Stripe fake where Stripe is set up): the Stack-style customer forms ({ userId },
 * { teamId }, { customCustomerId }), the customer handle, access per level, and tenant isolation.
 */

const { h, fake: fakeOf } = useStripeHarness();
let fake: StripeFake;
beforeAll(() => {
  fake = fakeOf();
});

const PAYMENTS = {
  test_mode: true,
  items: {
    credits: { displayName: 'Credits', customerType: 'user' },
    seats: { displayName: 'Seats', customerType: 'team' },
    tokens: { customerType: 'custom' },
  },
  products: {
    pro: {
      displayName: 'Pro',
      customerType: 'user',
      serverOnly: false,
      prices: { monthly: { USD: '9.99', interval: [1, 'month'] } },
      includedItems: { credits: { quantity: 3 } },
    },
    team_plan: {
      displayName: 'Team plan',
      customerType: 'team',
      serverOnly: false,
      prices: { monthly: { USD: '29', interval: [1, 'month'] } },
      includedItems: { seats: { quantity: 5 } },
    },
    hidden: { customerType: 'user', serverOnly: true, prices: 'include-by-default' },
  },
};

async function setup(payments: Record<string, unknown> = PAYMENTS) {
  const project = await h.createProject({ config: { payments }, defaultTeamRoles: true });
  const server = new ServerApp({ projectId: project.id, secretServerKey: project.secretServerKey, baseUrl: h.url });
  const admin = new AdminApp({ projectId: project.id, superSecretAdminKey: project.superSecretAdminKey, baseUrl: h.url });
  const signIn = async (prefix: string) => {
    const user = await server.createUser({ primary_email: h.uniqueEmail(prefix) });
    const client = sessionClientApp(project, h.url, await server.createSession({ user_id: user.id }));
    return { user, client };
  };
  return { project, server, admin, signIn, ...(await signIn('buyer')) };
}

describe('payments through the SDK', () => {
  it('checks out in test mode, reads items and products, and try-decreases to false without throwing', async () => {
    const { server, admin, user, client } = await setup();
    expect(await client.getItem({ userId: 'me', itemId: 'credits' })).toEqual({
      id: 'credits',
      display_name: 'Credits',
      quantity: 0,
      non_negative_quantity: 0,
    });
    expect(await client.createCheckoutUrl({ userId: 'me', productId: 'pro', returnUrl: 'http://localhost:3000/back' })).toBe('http://localhost:3000/back');
    // The checkout invalidated the cached item: the next read shows the included credits.
    expect((await client.getItem({ userId: 'me', itemId: 'credits' })).quantity).toBe(3);
    expect((await client.listProducts({ userId: 'me' })).items.map((p) => p.id)).toEqual(['pro']);
    const customer = { userId: user.id };
    expect((await server.getItem({ ...customer, itemId: 'credits' })).quantity).toBe(3);
    expect(await server.tryDecreaseItemQuantity({ ...customer, itemId: 'credits', amount: 2 })).toBe(true);
    expect(await server.tryDecreaseItemQuantity({ ...customer, itemId: 'credits', amount: 2 })).toBe(false);
    await expect(server.updateItemQuantity({ ...customer, itemId: 'credits', delta: -5 })).rejects.toBeInstanceOf(KnownErrors.ItemQuantityInsufficientAmount);
    expect((await server.updateItemQuantity({ ...customer, itemId: 'credits', delta: -5, allowNegative: true })).quantity).toBe(-4);
    expect(await server.getItem({ ...customer, itemId: 'credits' })).toMatchObject({ quantity: -4, non_negative_quantity: 0 });
    await expect(server.grantProduct({ ...customer, productId: 'pro' })).rejects.toBeInstanceOf(KnownErrors.ProductAlreadyGranted);
    // A server-only product is the server's to see.
    await server.grantProduct({ ...customer, productId: 'hidden' });
    expect((await server.listProducts(customer)).items.map((p) => p.id).sort()).toEqual(['hidden', 'pro']);
    expect((await client.listProducts({ userId: 'me' })).items.map((p) => p.id)).toEqual(['pro']);
    // No Stripe account: the billing portal and the account info are null, not errors.
    expect(await client.createBillingPortalUrl({ userId: 'me', returnUrl: 'http://localhost:3000/back' })).toBeNull();
    expect(await admin.getStripeAccountInfo()).toBeNull();
    const txs = await admin.listTransactions();
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

  it('names customers as Stack does, through the app and through customer handles (custom customers: servers only)', async () => {
    const { server, user, client } = await setup();
    expect(() => server.customer({} as never)).toThrow('Name the customer with userId, teamId or customCustomerId.');

    // A custom customer: an inline product (server_only by default) and its items.
    const org = server.customer({ customCustomerId: 'org-42' });
    expect(org).toMatchObject({ type: 'custom', id: 'org-42' });
    expect(
      await org.grantProduct({ product: { customer_type: 'custom', prices: 'include-by-default', included_items: { tokens: { quantity: 10 } } } }),
    ).toMatchObject({ id: null, product: { server_only: true, stackable: false } });
    const tokens = await org.getItem('tokens');
    expect(tokens).toMatchObject({ id: 'tokens', quantity: 10 });
    expect(await tokens.tryDecreaseQuantity(4)).toBe(true);
    expect(await tokens.tryDecreaseQuantity(7)).toBe(false);
    expect((await tokens.increaseQuantity(1, { description: 'goodwill' })).quantity).toBe(7);
    // decreaseQuantity may overdraw (Stack's semantics); tryDecreaseQuantity never does.
    expect((await tokens.decreaseQuantity(9)).quantity).toBe(-2);
    expect(await org.tryDecreaseItemQuantity('tokens', 1)).toBe(false);
    expect((await org.updateItemQuantity('tokens', 5)).quantity).toBe(3);
    expect((await org.listProducts()).items).toHaveLength(1);
    // Clients cannot name custom customers: the server refuses them.
    await expect(client.getItem({ customCustomerId: 'org-42', itemId: 'tokens' })).rejects.toBeInstanceOf(KnownErrors.InsufficientAccessType);

    // The signed-in user ('me') on the client; the server's handle of the same user.
    const me = { userId: 'me' };
    expect(await client.createCheckoutUrl({ ...me, productId: 'pro', priceId: 'monthly', returnUrl: 'http://localhost:3000/after' })).toBe(
      'http://localhost:3000/after',
    );
    expect((await client.getItem({ ...me, itemId: 'credits' })).quantity).toBe(3);
    expect((await client.listProducts(me)).items.map((p) => p.product.display_name)).toEqual(['Pro']);
    const theirs = server.customer({ userId: user.id });
    expect((await theirs.listProducts()).items.map((p) => p.id)).toEqual(['pro']);
    expect(await theirs.tryDecreaseItemQuantity('credits', 3)).toBe(true);
    expect((await theirs.getItem('credits')).quantity).toBe(0);
    // Clients have no quantity changes or grants (server-only routes), nor the handle.
    expect('updateItemQuantity' in client || 'grantProduct' in client || 'customer' in client).toBe(false);
    // Outside a browser a return URL is required.
    await expect(client.createCheckoutUrl({ ...me, productId: 'pro' })).rejects.toBeInstanceOf(KnownErrors.SchemaError);
  }, 60_000);

  it("team customers: members read the team's items; buying and the billing portal need $update_team", async () => {
    const { server, user: adminUser, client: teamAdmin, signIn } = await setup();
    const team = await server.createTeam({ display_name: 'Rocket', creator_user_id: adminUser.id });
    const { user: memberUser, client: member } = await signIn('member');
    await server.addTeamMember(team.id, memberUser.id);
    const { client: outsider } = await signIn('outsider');

    await expect(member.createCheckoutUrl({ teamId: team.id, productId: 'team_plan', returnUrl: 'http://localhost:3000/t' })).rejects.toBeInstanceOf(
      KnownErrors.TeamPermissionRequired,
    );
    expect(await teamAdmin.createCheckoutUrl({ teamId: team.id, productId: 'team_plan', returnUrl: 'http://localhost:3000/t' })).toBe(
      'http://localhost:3000/t',
    );
    expect((await member.getItem({ teamId: team.id, itemId: 'seats' })).quantity).toBe(5);
    expect((await member.listProducts({ teamId: team.id })).items.map((p) => p.id)).toEqual(['team_plan']);
    await expect(outsider.getItem({ teamId: team.id, itemId: 'seats' })).rejects.toBeInstanceOf(KnownErrors.TeamNotFound);
    expect(await server.customer({ teamId: team.id }).tryDecreaseItemQuantity('seats', 5)).toBe(true);
    await expect(member.getItem({ teamId: team.id, itemId: 'credits' })).rejects.toBeInstanceOf(KnownErrors.ItemCustomerTypeDoesNotMatch);
  }, 60_000);

  it("isolates tenants: project A's keys cannot read or change project B's customers", async () => {
    const a = await setup();
    const b = await setup();
    await b.server.grantProduct({ userId: b.user.id, productId: 'pro' });
    const bTeam = await b.server.createTeam({ display_name: 'B team', creator_user_id: b.user.id });
    await b.server.grantProduct({ teamId: bTeam.id, productId: 'team_plan' });
    await b.server.updateItemQuantity({ customCustomerId: 'shared-id', itemId: 'tokens', delta: 7 });

    // B's user and team are no customers of A.
    await expect(a.server.getItem({ userId: b.user.id, itemId: 'credits' })).rejects.toBeInstanceOf(KnownErrors.CustomerDoesNotExist);
    await expect(a.server.listProducts({ teamId: bTeam.id })).rejects.toBeInstanceOf(KnownErrors.CustomerDoesNotExist);
    await expect(a.server.updateItemQuantity({ userId: b.user.id, itemId: 'credits', delta: -1 })).rejects.toBeInstanceOf(KnownErrors.CustomerDoesNotExist);
    await expect(a.server.grantProduct({ teamId: bTeam.id, productId: 'team_plan' })).rejects.toBeInstanceOf(KnownErrors.CustomerDoesNotExist);
    // A custom id is A's own customer in A: it starts empty, and A's changes never reach B's.
    expect((await a.server.getItem({ customCustomerId: 'shared-id', itemId: 'tokens' })).quantity).toBe(0);
    expect(await a.server.tryDecreaseItemQuantity({ customCustomerId: 'shared-id', itemId: 'tokens', amount: 1 })).toBe(false);
    expect((await b.server.getItem({ customCustomerId: 'shared-id', itemId: 'tokens' })).quantity).toBe(7);
    // A's signed-in user cannot reach B's team either.
    await expect(a.client.getItem({ teamId: bTeam.id, itemId: 'seats' })).rejects.toBeInstanceOf(KnownErrors.TeamNotFound);
    // B's data is unchanged.
    expect((await b.server.getItem({ userId: b.user.id, itemId: 'credits' })).quantity).toBe(3);
    expect((await b.server.getItem({ teamId: bTeam.id, itemId: 'seats' })).quantity).toBe(5);
  }, 60_000);

  it('with Stripe connected: the account info, the billing portal URL, and a team member without $update_team refused', async () => {
    const { admin, server, user, client, signIn } = await setup({ ...PAYMENTS, test_mode: false });
    expect(await client.createBillingPortalUrl({ userId: 'me', returnUrl: 'http://localhost:3000/account' })).toBeNull();
    await admin.setupStripe({ stripeSecretKey: SECRET_KEY, stripeWebhookSecret: WEBHOOK_SECRET });
    expect(await admin.getStripeAccountInfo()).toMatchObject({ account_id: 'acct_fake', charges_enabled: true });
    const url = await client.createBillingPortalUrl({ userId: 'me', returnUrl: 'http://localhost:3000/account' });
    expect(url).toMatch(new RegExp(`^${fake.url}/portal/bps_`));
    expect([...fake.customers.values()].filter((c) => c.metadata.latch_customer_id === user.id)).toHaveLength(1);
    // Checkout now goes to Stripe.
    const checkout = await client.createCheckoutUrl({ userId: 'me', productId: 'pro', returnUrl: 'http://localhost:3000/after' });
    expect(checkout).toMatch(new RegExp(`^${fake.url}/pay/cs_test_`));

    const team = await server.createTeam({ display_name: 'Billing team', creator_user_id: user.id });
    const { user: memberUser, client: member } = await signIn('member');
    await server.addTeamMember(team.id, memberUser.id);
    await expect(member.createBillingPortalUrl({ teamId: team.id, returnUrl: 'http://localhost:3000/t' })).rejects.toBeInstanceOf(
      KnownErrors.TeamPermissionRequired,
    );
    expect(await client.createBillingPortalUrl({ teamId: team.id, returnUrl: 'http://localhost:3000/t' })).toMatch(/\/portal\/bps_/);
    // Whether the portal is there, for the UI kit's "Manage billing" link.
    expect((await client.checkFeatureSupport('billing-portal')).supported).toBe(true);
  }, 60_000);
});
