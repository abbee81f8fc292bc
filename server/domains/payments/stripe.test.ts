import { describe, expect, it } from 'vitest';
import type { ProjectFixture } from '../../test/harness.js';
import { expectKnownError, expectStatus, newUser } from '../../test/team-fixtures.js';
import { createPurchaseUrl, SECRET_KEY, sessionIdOf, until, useStripeHarness, WEBHOOK_SECRET } from '../../test/stripe-fixtures.js';

const { h, stripeFake: fake, stripeProject: projectWith, itemQuantity } = useStripeHarness();

const PAYMENTS = {
  items: { credits: { displayName: 'Credits', customerType: 'user' } },
  products: {
    pro: {
      displayName: 'Pro',
      customerType: 'user',
      prices: { monthly: { USD: '9.99', interval: [1, 'month'] }, yearly: { JPY: '12000', interval: [1, 'year'] } },
      includedItems: { credits: { quantity: 100 } },
    },
    secret_plan: { customerType: 'user', serverOnly: true, prices: { once: { USD: '5' } } },
  },
};

const stripeProject = (config: Record<string, unknown> = {}) => projectWith({ ...PAYMENTS, ...config });
const credits = (p: ProjectFixture, userId: string) => itemQuantity(p, userId, 'credits');

describe('Stripe setup', () => {
  it('answers STRIPE_ACCOUNT_INFO_NOT_FOUND before setup, seals the secrets, and reads the account after', async () => {
    const project = await h.createProject();
    expectKnownError(await h.get('/internal/payments/stripe/account-info', project.admin()), 404, 'STRIPE_ACCOUNT_INFO_NOT_FOUND');
    const setup = await h.post('/internal/payments/setup', { stripe_secret_key: SECRET_KEY, stripe_webhook_secret: WEBHOOK_SECRET }, project.admin());
    expectStatus(setup, 200);
    expect(JSON.stringify(setup.body)).not.toContain(SECRET_KEY);
    const rows = await h.latch.deps.db.selectFrom('payment_settings').select(['stripe_secret_key_sealed', 'stripe_webhook_secret_sealed']).execute();
    expect(JSON.stringify(rows)).not.toContain(SECRET_KEY);
    expect(JSON.stringify(rows)).not.toContain(WEBHOOK_SECRET);
    const info = await h.get('/internal/payments/stripe/account-info', project.admin());
    expectStatus(info, 200);
    expect(info.body).toMatchObject({ account_id: 'acct_fake', charges_enabled: true });
    expect(JSON.stringify(info.body)).not.toContain(SECRET_KEY);
    expectKnownError(
      await h.post('/internal/payments/setup', { stripe_secret_key: SECRET_KEY, stripe_webhook_secret: WEBHOOK_SECRET }, project.server()),
      401,
      'INSUFFICIENT_ACCESS_TYPE',
    );
  });
});

describe('checkout', () => {
  it('buys a product: one Checkout Session for a double click, granted once by a signed webhook, repeat deliveries ignored', async () => {
    const { project, user, webhook } = await stripeProject();
    const body = { customer_type: 'user', customer_id: 'me', product_id: 'pro', price_id: 'monthly', return_url: 'http://localhost:3000/after' };
    const [a, b] = await Promise.all([
      h.post('/payments/purchases/create-purchase-url', body, user.client),
      h.post('/payments/purchases/create-purchase-url', body, user.client),
    ]);
    expectStatus(a, 200);
    expectStatus(b, 200);
    expect(a.body.url).toBe(b.body.url);
    expect(a.body.url).toMatch(new RegExp(`^${fake.url}/pay/cs_test_`));
    const session = fake.sessions.get(sessionIdOf(a.body.url))!;
    expect(session).toMatchObject({ mode: 'subscription', currency: 'usd', amount_total: 999, client_reference_id: expect.any(String) });
    expect([...fake.sessions.values()].filter((s) => s.customer === session.customer)).toHaveLength(1);
    expect(await credits(project, user.id)).toBe(0);

    // An event that arrives before payment (out of order) changes nothing: the job re-fetches the session.
    const early = fake.eventFor('checkout.session.async_payment_succeeded', session.id);
    expectStatus((await fake.deliver(early, webhook)) as never, 200);
    const event = fake.completeCheckout(session.id);
    const delivered = await fake.deliver(event, webhook);
    expect(delivered).toEqual({ status: 200, body: { received: true, duplicate: false } });
    expect(
      await until(
        () => credits(project, user.id),
        (q) => q === 100,
      ),
    ).toBe(100);
    // The same event again: 200, recorded once, nothing granted twice.
    expect(await fake.deliver(event, webhook)).toEqual({ status: 200, body: { received: true, duplicate: true } });
    // A late "expired"-type event about the completed session: the session is complete, so nothing changes.
    expectStatus((await fake.deliver(fake.eventFor('checkout.session.expired', session.id), webhook)) as never, 200);
    await new Promise((r) => setTimeout(r, 2000));
    expect(await credits(project, user.id)).toBe(100);
    const products = await h.get('/payments/products/user/me', user.client);
    expect(products.body.items.map((p: { id: string }) => p.id)).toEqual(['pro']);
    // Already held: no second checkout.
    expectKnownError(await h.post('/payments/purchases/create-purchase-url', body, user.client), 400, 'PRODUCT_ALREADY_GRANTED');

    const txs = await h.get('/internal/payments/transactions', project.admin());
    expectStatus(txs, 200);
    expect(txs.body.transactions).toEqual([
      expect.objectContaining({
        type: 'purchase',
        test_mode: false,
        product_id: 'pro',
        items: { credits: 100 },
        currency: 'USD',
        amount_minor: 999,
        customer_id: user.id,
      }),
    ]);
  }, 120_000);

  it('refuses bad and stale signatures, and charges JPY in whole yen', async () => {
    const { user, webhook } = await stripeProject();
    const res = await createPurchaseUrl(h, user.client, { product_id: 'pro', price_id: 'yearly' });
    expectStatus(res, 200);
    const session = fake.sessions.get(sessionIdOf(res.body.url))!;
    expect(session).toMatchObject({ currency: 'jpy', amount_total: 12000 });
    const event = fake.completeCheckout(session.id);
    expect((await fake.deliver({ ...event, payload: event.payload.replace('"paid"', '"unpaid"') }, webhook)).status).toBe(400);
    expect((await fake.deliver({ ...event, signature: fake.eventFor('x', session.id, { secret: 'whsec_wrong_secret' }).signature }, webhook)).status).toBe(400);
    const stale = fake.eventFor('checkout.session.completed', session.id, { timestamp: Math.floor(Date.now() / 1000) - 3600 });
    expect((await fake.deliver(stale, webhook)).status).toBe(400);
    expect((await fake.deliver({ ...event, signature: '' }, webhook)).status).toBe(400);
  }, 60_000);

  it('grants a paid checkout whose webhook arrived before Latch stored the session id', async () => {
    const { project, user, webhook } = await stripeProject();
    const res = await createPurchaseUrl(h, user.client, { product_id: 'pro', price_id: 'monthly', return_url: 'http://localhost:3000/a' });
    expectStatus(res, 200);
    const sessionId = sessionIdOf(res.body.url);
    // As if the webhook beat step 3 of createPurchaseUrl: the purchase does not know its session yet.
    await h.latch.deps.db.updateTable('purchases').set({ stripe_checkout_session_id: null }).where('stripe_checkout_session_id', '=', sessionId).execute();
    expect((await fake.deliver(fake.completeCheckout(sessionId), webhook)).status).toBe(200);
    expect(
      await until(
        () => credits(project, user.id),
        (q) => q === 100,
      ),
    ).toBe(100);
  }, 60_000);

  it('keeps server-only products from clients and sells nothing without Stripe set up', async () => {
    const { user } = await stripeProject();
    const hidden = await createPurchaseUrl(h, user.client, { product_id: 'secret_plan', return_url: 'http://localhost:3000/a' });
    expectKnownError(hidden, 400, 'PRODUCT_DOES_NOT_EXIST');
    const ambiguous = await createPurchaseUrl(h, user.client, { product_id: 'pro', return_url: 'http://localhost:3000/a' });
    expectKnownError(ambiguous, 400, 'SCHEMA_ERROR');
    const bare = await h.createProject({ config: { payments: PAYMENTS } });
    const someone = await newUser(h, bare);
    expectKnownError(
      await createPurchaseUrl(h, someone.client, { product_id: 'pro', price_id: 'monthly', return_url: 'http://localhost:3000/a' }),
      404,
      'STRIPE_ACCOUNT_INFO_NOT_FOUND',
    );
  }, 60_000);

  it('grants at once in test mode, marked as test in the transactions', async () => {
    const { project, user } = await stripeProject({ test_mode: true });
    const before = fake.sessions.size;
    const res = await createPurchaseUrl(h, user.client, { product_id: 'pro', price_id: 'monthly', return_url: 'http://localhost:3000/done' });
    expectStatus(res, 200);
    expect(res.body.url).toBe('http://localhost:3000/done');
    expect(fake.sessions.size).toBe(before);
    expect(await credits(project, user.id)).toBe(100);
    const txs = await h.get('/internal/payments/transactions?customer_type=user', project.admin());
    expect(txs.body.transactions).toEqual([expect.objectContaining({ type: 'purchase', test_mode: true, amount_minor: 999 })]);
  }, 60_000);
});

describe('tenancy', () => {
  it("a webhook for project A cannot touch project B, and B's transactions do not show A's", async () => {
    const a = await stripeProject();
    const b = await stripeProject();
    const res = await createPurchaseUrl(h, a.user.client, { product_id: 'pro', price_id: 'monthly', return_url: 'http://localhost:3000/a' });
    const event = fake.completeCheckout(sessionIdOf(res.body.url));
    // Delivered to B's endpoint: B has no purchase for that session, so nothing happens anywhere.
    expect((await fake.deliver(event, b.webhook)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 2500));
    expect(await credits(a.project, a.user.id)).toBe(0);
    expect((await h.get('/internal/payments/transactions', b.project.admin())).body.transactions).toEqual([]);
    // The same event id is A's to deliver too (events are recorded per tenancy), and then A gets it.
    expect((await fake.deliver(event, a.webhook)).body).toEqual({ received: true, duplicate: false });
    expect(
      await until(
        () => credits(a.project, a.user.id),
        (q) => q === 100,
      ),
    ).toBe(100);
    expect(await credits(b.project, b.user.id)).toBe(0);
  }, 90_000);
});

describe('billing portal and account session', () => {
  it('gives a customer a Billing Portal URL for the stored Stripe customer, and the console an account session', async () => {
    const { project, user } = await stripeProject();
    const portal = await h.post('/payments/billing-portal/user/me', { return_url: 'http://localhost:3000/account' }, user.client);
    expectStatus(portal, 200);
    expect(portal.body.url).toMatch(new RegExp(`^${fake.url}/portal/bps_`));
    const again = await h.post('/payments/billing-portal/user/me', { return_url: 'http://localhost:3000/account' }, user.client);
    expect(fake.objects.get(sessionIdOf(again.body.url))!.customer).toBe(fake.objects.get(sessionIdOf(portal.body.url))!.customer);
    expectKnownError(
      await h.post('/payments/billing-portal/custom/someone', { return_url: 'http://localhost:3000/a' }, user.client),
      401,
      'INSUFFICIENT_ACCESS_TYPE',
    );
    const session = await h.post('/internal/payments/stripe-widgets/account-session', {}, project.admin());
    expectStatus(session, 200);
    expect(session.body.client_secret).toMatch(/^acs_secret_/);
    const bare = await h.createProject();
    expectKnownError(await h.post('/internal/payments/stripe-widgets/account-session', {}, bare.admin()), 404, 'STRIPE_ACCOUNT_INFO_NOT_FOUND');
  }, 60_000);
});
