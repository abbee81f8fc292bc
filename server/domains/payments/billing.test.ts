import { describe, expect, it } from 'vitest';
import type { ProjectFixture } from '../../test/harness.js';
import { expectStatus } from '../../test/team-fixtures.js';
import { createPurchaseUrl, sessionIdOf, until, useStripeHarness } from '../../test/stripe-fixtures.js';

/**
 * Stripe events after checkout (issue 18 item 5): subscriptions renewed, cancelled at period end and
 * cancelled, failed renewals, refunds and disputes, each applied from Stripe's re-fetched state and
 * recorded once in the transactions (item 6), whatever the order or number of deliveries.
 */
const { h, stripeFake: fake, stripeProject, itemQuantity } = useStripeHarness();

const PAYMENTS = {
  items: {
    credits: { displayName: 'Credits', customerType: 'user' },
    access: { displayName: 'Access', customerType: 'user' },
  },
  products: {
    pro: {
      displayName: 'Pro',
      customerType: 'user',
      prices: { monthly: { USD: '9.99', interval: [1, 'month'] } },
      includedItems: {
        credits: { quantity: 100, repeat: [1, 'month'], expires: 'when-repeated' },
        access: { quantity: 1, expires: 'when-purchase-expires' },
      },
    },
    pack: {
      displayName: 'Credit pack',
      customerType: 'user',
      prices: { once: { USD: '5' } },
      includedItems: { credits: { quantity: 50, expires: 'when-purchase-expires' } },
    },
  },
};

type Tx = { type: string; amount_minor: number | null; items: Record<string, number>; test_mode: boolean; customer_id: string };
const transactions = (p: ProjectFixture, query = '') => h.get(`/internal/payments/transactions${query}`, p.admin()).then((r) => r.body.transactions as Tx[]);
const typesOf = (txs: Tx[]) => txs.map((t) => t.type).sort();
const settle = () => new Promise((r) => setTimeout(r, 1500));

async function buy(productId: 'pro' | 'pack') {
  const ctx = await stripeProject(PAYMENTS);
  const res = await createPurchaseUrl(h, ctx.user.client, { product_id: productId });
  expectStatus(res, 200);
  const sessionId = sessionIdOf(res.body.url);
  const quantity = (item: string) => itemQuantity(ctx.project, ctx.user.id, item);
  const heldProducts = () =>
    h.get(`/payments/products/user/${ctx.user.id}`, ctx.project.server()).then((r) => (r.body.items as { id: string }[]).map((p) => p.id));
  return { ...ctx, sessionId, quantity, heldProducts };
}

/** Completes the checkout and waits until its purchase is granted. */
async function paid(productId: 'pro' | 'pack') {
  const ctx = await buy(productId);
  expect((await fake.deliver(fake.completeCheckout(ctx.sessionId), ctx.webhook)).status).toBe(200);
  expect(
    await until(
      () => ctx.quantity(productId === 'pro' ? 'access' : 'credits'),
      (q) => q > 0,
    ),
  ).toBeGreaterThan(0);
  const subscriptionId = fake.sessions.get(ctx.sessionId)!.subscription;
  return { ...ctx, subscriptionId, charge: fake.chargeOf(ctx.sessionId) };
}

describe('subscriptions', () => {
  it('applies events delivered out of order and twice: one purchase, one grant', async () => {
    const ctx = await buy('pro');
    fake.completeCheckout(ctx.sessionId);
    const subscriptionId = fake.sessions.get(ctx.sessionId)!.subscription!;
    // The subscription's events come first; the checkout event last, twice.
    const created = fake.eventFor('customer.subscription.created', subscriptionId);
    const invoicePaid = fake.eventFor('invoice.paid', String(fake.objects.get(subscriptionId)!.latest_invoice));
    expect((await fake.deliver(invoicePaid, ctx.webhook)).status).toBe(200);
    expect((await fake.deliver(created, ctx.webhook)).status).toBe(200);
    expect(
      await until(
        () => ctx.quantity('credits'),
        (q) => q === 100,
      ),
    ).toBe(100);
    const completed = fake.eventFor('checkout.session.completed', ctx.sessionId);
    expect((await fake.deliver(completed, ctx.webhook)).body).toEqual({ received: true, duplicate: false });
    expect((await fake.deliver(completed, ctx.webhook)).body).toEqual({ received: true, duplicate: true });
    expect((await fake.deliver(created, ctx.webhook)).body).toEqual({ received: true, duplicate: true });
    await settle();
    expect(await ctx.quantity('credits')).toBe(100);
    expect(await ctx.heldProducts()).toEqual(['pro']);
    const txs = await transactions(ctx.project);
    expect(txs).toEqual([expect.objectContaining({ type: 'purchase', amount_minor: 999, test_mode: false, items: { credits: 100, access: 1 } })]);
  }, 90_000);

  it('renews: a renewal transaction per paid invoice, and the repeating items of the new period', async () => {
    const ctx = await paid('pro');
    // A month passes (the product's grants follow its start; Stripe's clock is the fake's).
    const monthAgo = new Date(Date.now() - 31 * 86_400_000);
    await h.latch.deps.db.updateTable('customer_products').set({ started_at: monthAgo, created_at: monthAgo }).where('customer_id', '=', ctx.user.id).execute();
    const [invoicePaid, updated] = fake.renewSubscription(ctx.subscriptionId!);
    // The subscription update first, the invoice after it, the invoice again.
    expect((await fake.deliver(updated!, ctx.webhook)).status).toBe(200);
    expect((await fake.deliver(invoicePaid!, ctx.webhook)).status).toBe(200);
    expect((await fake.deliver(invoicePaid!, ctx.webhook)).body).toEqual({ received: true, duplicate: true });
    const txs = await until(
      () => transactions(ctx.project),
      (t) => t.length === 2,
    );
    // Both rows can carry the same second (the renewal's time is the invoice's): found by type, not position.
    expect(txs.find((t) => t.type === 'renewal')).toMatchObject({ type: 'renewal', amount_minor: 999, items: { credits: 100 } });
    expect(typesOf(txs)).toEqual(['purchase', 'renewal']);
    // The first period's 100 expired when the second's 100 came: when-repeated.
    expect(await ctx.quantity('credits')).toBe(100);
    expect(await ctx.quantity('access')).toBe(1);
    const sub = await h.latch.deps.db
      .selectFrom('stripe_subscriptions')
      .select(['status', 'current_period_end'])
      .where('stripe_subscription_id', '=', ctx.subscriptionId!)
      .executeTakeFirstOrThrow();
    expect(sub.status).toBe('active');
    expect(sub.current_period_end!.getTime()).toBeGreaterThan(Date.now() + 40 * 86_400_000);
  }, 90_000);

  it('cancels at period end (held until then), then cancelled: the product and its items end; a stale event changes nothing', async () => {
    const ctx = await paid('pro');
    const stale = fake.eventFor('customer.subscription.updated', ctx.subscriptionId!);
    expect((await fake.deliver(fake.cancelAtPeriodEnd(ctx.subscriptionId!), ctx.webhook)).status).toBe(200);
    const endsAt = await until(
      () =>
        h.latch.deps.db
          .selectFrom('customer_products')
          .select('ended_at')
          .where('customer_id', '=', ctx.user.id)
          .executeTakeFirstOrThrow()
          .then((r) => r.ended_at),
      (e) => e !== null,
    );
    expect(endsAt!.getTime()).toBeGreaterThan(Date.now() + 25 * 86_400_000);
    expect(await ctx.heldProducts()).toEqual(['pro']);
    expect(await ctx.quantity('access')).toBe(1);

    expect((await fake.deliver(fake.cancelSubscription(ctx.subscriptionId!), ctx.webhook)).status).toBe(200);
    expect(
      await until(
        () => ctx.heldProducts(),
        (p) => p.length === 0,
      ),
    ).toEqual([]);
    expect(await ctx.quantity('access')).toBe(0);
    // An older "updated" event (signed before the cancellation) arrives late: Stripe says cancelled.
    expect((await fake.deliver(stale, ctx.webhook)).status).toBe(200);
    await settle();
    expect(await ctx.heldProducts()).toEqual([]);
    expect(await ctx.quantity('access')).toBe(0);
  }, 90_000);

  it('records a failed renewal, and keeps the product while Stripe retries (past_due)', async () => {
    const ctx = await paid('pro');
    const [failed, updated] = fake.failRenewal(ctx.subscriptionId!);
    await fake.deliver(failed!, ctx.webhook);
    await fake.deliver(updated!, ctx.webhook);
    const txs = await until(
      () => transactions(ctx.project, '?type=payment_failed'),
      (t) => t.length === 1,
    );
    expect(txs).toEqual([expect.objectContaining({ type: 'payment_failed', amount_minor: 999 })]);
    expect(await ctx.heldProducts()).toEqual(['pro']);
  }, 90_000);
});

describe('refunds and disputes', () => {
  it('a partial then a full refund of a one-time purchase: two refund rows, then the purchase is revoked', async () => {
    const ctx = await paid('pack');
    expect(await ctx.quantity('credits')).toBe(50);
    const partial = fake.refund(ctx.charge, 200);
    expect((await fake.deliver(partial, ctx.webhook)).status).toBe(200);
    await until(
      () => transactions(ctx.project, '?type=refund'),
      (t) => t.length === 1,
    );
    expect(await ctx.quantity('credits')).toBe(50);
    expect((await fake.deliver(fake.refund(ctx.charge), ctx.webhook)).status).toBe(200);
    // The first event again, after the second: the same two refunds, nothing more.
    await fake.deliver(fake.eventFor('charge.refunded', ctx.charge), ctx.webhook);
    expect(
      await until(
        () => ctx.quantity('credits'),
        (q) => q === 0,
      ),
    ).toBe(0);
    await settle();
    const refunds = await transactions(ctx.project, '?type=refund');
    expect(refunds.map((t) => t.amount_minor!).sort((x, y) => x - y)).toEqual([-300, -200]);
    expect(await ctx.heldProducts()).toEqual([]);
  }, 90_000);

  it('a refunded subscription payment is recorded; the subscription stays until cancelled in Stripe', async () => {
    const ctx = await paid('pro');
    await fake.deliver(fake.refund(ctx.charge), ctx.webhook);
    const refunds = await until(
      () => transactions(ctx.project, '?type=refund'),
      (t) => t.length === 1,
    );
    expect(refunds[0]).toMatchObject({ amount_minor: -999 });
    expect(await ctx.heldProducts()).toEqual(['pro']);
  }, 90_000);

  it('records a dispute once', async () => {
    const ctx = await paid('pack');
    const event = fake.dispute(ctx.charge);
    await fake.deliver(event, ctx.webhook);
    await fake.deliver(fake.eventFor('charge.dispute.created', JSON.parse(event.payload).data.object.id), ctx.webhook);
    await until(
      () => transactions(ctx.project, '?type=dispute'),
      (t) => t.length === 1,
    );
    await settle();
    expect(await transactions(ctx.project, '?type=dispute')).toEqual([expect.objectContaining({ type: 'dispute', amount_minor: -500 })]);
  }, 90_000);
});

describe('tenancy', () => {
  it("a refund or cancellation delivered to project B's endpoint touches neither A nor B", async () => {
    const a = await paid('pro');
    const b = await paid('pack');
    await fake.deliver(fake.refund(a.charge), b.webhook);
    await fake.deliver(fake.cancelSubscription(a.subscriptionId!), b.webhook);
    await settle();
    await settle();
    expect(typesOf(await transactions(b.project))).toEqual(['purchase']);
    expect(typesOf(await transactions(a.project))).toEqual(['purchase']);
    expect(await a.heldProducts()).toEqual(['pro']);
    expect(await b.heldProducts()).toEqual(['pack']);
    // B's admin cannot read A's customer's transactions by naming them.
    expect(await transactions(b.project, `?customer_type=user&customer_id=${a.user.id}`)).toEqual([]);
  }, 120_000);
});

describe('transactions', () => {
  it('lists grants and manual changes too, filtered by type and customer, keyset-paginated; test mode marked', async () => {
    const ctx = await stripeProject({ ...PAYMENTS, test_mode: true });
    const server = ctx.project.server();
    expectStatus(await h.post(`/payments/products/user/${ctx.user.id}`, { product_id: 'pack' }, server), 201);
    expectStatus(await h.post(`/payments/items/user/${ctx.user.id}/credits/update-quantity`, { delta: -5, description: 'used' }, server), 200);
    const bought = await createPurchaseUrl(h, ctx.user.client, { product_id: 'pro', return_url: 'http://localhost:3000/x' });
    expectStatus(bought, 200);
    const all = await transactions(ctx.project);
    expect(all.map((t) => t.type)).toEqual(['purchase', 'manual_change', 'grant']);
    expect(all[0]).toMatchObject({ test_mode: true, amount_minor: 999, items: { credits: 100, access: 1 } });
    expect(all[1]).toMatchObject({ test_mode: false, items: { credits: -5 }, amount_minor: null });
    expect(all[2]).toMatchObject({ test_mode: false, items: { credits: 50 } });
    expect((await transactions(ctx.project, '?type=grant')).map((t) => t.type)).toEqual(['grant']);
    expect(await transactions(ctx.project, '?customer_type=team')).toEqual([]);
    expect(await transactions(ctx.project, `?customer_type=user&customer_id=${ctx.user.id}`)).toHaveLength(3);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { transactions: Tx[]; next_cursor: string | null } } = await h.get(
        `/internal/payments/transactions?limit=1${cursor ? `&cursor=${cursor}` : ''}`,
        ctx.project.admin(),
      );
      seen.push(...page.body.transactions.map((t) => t.type));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(['purchase', 'manual_change', 'grant']);
  }, 60_000);
});
