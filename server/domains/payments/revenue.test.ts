import { describe, expect, it } from 'vitest';
import type { ProjectFixture } from '../../test/harness.js';
import { expectKnownError, expectStatus, newUser } from '../../test/team-fixtures.js';
import { createPurchaseUrl, sessionIdOf, until, useStripeHarness } from '../../test/stripe-fixtures.js';

/**
 * GET /internal/payments/revenue (issue 18 item 7): per UTC day and currency, purchases less
 * refunds and disputes on the day they happen, test mode apart, one project's money only.
 */
const { h, stripeFake: fake, stripeProject, itemQuantity } = useStripeHarness();

const PAYMENTS = {
  items: { credits: { displayName: 'Credits', customerType: 'user' } },
  products: {
    pack: { displayName: 'Credit pack', customerType: 'user', stackable: true, prices: { once: { USD: '5' } }, includedItems: { credits: { quantity: 50 } } },
    yen: { displayName: 'Yen pack', customerType: 'user', stackable: true, prices: { once: { JPY: '1200' } }, includedItems: { credits: { quantity: 10 } } },
  },
};

const DAY_MS = 86_400_000;
const isoDay = (millis: number) => new Date(millis).toISOString().slice(0, 10);
type Tx = { id: string; type: string; created_at_millis: number };
const transactions = (p: ProjectFixture) => h.get(`/internal/payments/transactions`, p.admin()).then((r) => r.body.transactions as Tx[]);
const revenue = (p: ProjectFixture, query: string) => h.get(`/internal/payments/revenue${query}`, p.admin());

/** Buys a product through Stripe Checkout (the fake) and waits until the purchase is granted; answers the charge. */
async function buyLive(ctx: Awaited<ReturnType<typeof stripeProject>>, productId: 'pack' | 'yen', credits: number): Promise<string> {
  const res = await createPurchaseUrl(h, ctx.user.client, { product_id: productId });
  expectStatus(res, 200);
  const sessionId = sessionIdOf(res.body.url);
  expect((await fake.deliver(fake.completeCheckout(sessionId), ctx.webhook)).status).toBe(200);
  expect(
    await until(
      () => itemQuantity(ctx.project, ctx.user.id, 'credits'),
      (q) => q >= credits,
    ),
  ).toBeGreaterThanOrEqual(credits);
  return fake.chargeOf(sessionId);
}

describe('revenue', () => {
  it('sums per UTC day and currency, subtracts a refund on its own later day, keeps test mode apart and sees no other project', async () => {
    const a = await stripeProject(PAYMENTS);
    const charge = await buyLive(a, 'pack', 50);
    // The USD purchase was paid three days ago (the log is what the chart reads; the purchase's own time moves).
    const threeDaysAgo = new Date(Date.now() - 3 * DAY_MS);
    const [purchase] = (await transactions(a.project)).filter((t) => t.type === 'purchase');
    await h.latch.deps.db.updateTable('payment_transactions').set({ created_at: threeDaysAgo }).where('id', '=', purchase!.id).execute();
    // Today: 2.00 of it refunded, a yen purchase, and a grant and a manual change (no money).
    expect((await fake.deliver(fake.refund(charge, 200), a.webhook)).status).toBe(200);
    await buyLive(a, 'yen', 60);
    await until(
      () => transactions(a.project),
      (t) => t.some((x) => x.type === 'refund'),
    );
    expectStatus(await h.post(`/payments/items/user/${a.user.id}/credits/update-quantity`, { delta: 5, description: 'goodwill' }, a.project.server()), 200);
    // Then test mode: a purchase that moves no money is listed apart.
    expectStatus(await h.patch('/internal/projects/current', { config: { payments: { ...PAYMENTS, test_mode: true } } }, a.project.admin()), 200);
    const tester = await newUser(h, a.project);
    expectStatus(await createPurchaseUrl(h, tester.client, { product_id: 'pack' }), 200);

    // Another project's sales, the same day and currency.
    const b = await h.createProject({ config: { payments: { ...PAYMENTS, test_mode: true } } });
    const buyer = await newUser(h, b);
    for (const client of [buyer.client, buyer.client]) {
      // Twice: stackable.
      expectStatus(await createPurchaseUrl(h, client, { product_id: 'pack' }), 200);
    }

    // The days come from the rows themselves (a run across midnight UTC stays right).
    const txs = await transactions(a.project);
    const dayOf = (type: string, nth = 0) =>
      isoDay(txs.filter((t) => t.type === type).sort((x, y) => x.created_at_millis - y.created_at_millis)[nth]!.created_at_millis);
    const purchaseDay = isoDay(threeDaysAgo.getTime());
    const refundDay = dayOf('refund');
    const yenDay = isoDay(txs.find((t) => t.type === 'purchase' && t.created_at_millis > threeDaysAgo.getTime() + DAY_MS / 2)!.created_at_millis);
    const res = await revenue(a.project, '?days=7');
    expectStatus(res, 200);
    expect(res.body.live).toEqual(
      [
        { date: purchaseDay, currency: 'USD', gross_minor: 500, refunds_minor: 0, net_minor: 500 },
        { date: refundDay, currency: 'USD', gross_minor: 0, refunds_minor: 200, net_minor: -200 },
        { date: yenDay, currency: 'JPY', gross_minor: 1200, refunds_minor: 0, net_minor: 1200 },
      ].sort((x, y) => x.date.localeCompare(y.date) || x.currency.localeCompare(y.currency)),
    );
    // Test mode: A's one test purchase, none of B's two.
    expect(res.body.test).toEqual([{ date: expect.any(String), currency: 'USD', gross_minor: 500, refunds_minor: 0, net_minor: 500 }]);
    expect(res.body.to).toBe(isoDay(Date.now()));
    expect(res.body.from).toBe(isoDay(Date.now() - 6 * DAY_MS));

    // A range of one day: only the purchase day.
    const oneDay = await revenue(a.project, `?from=${purchaseDay}&to=${purchaseDay}`);
    expectStatus(oneDay, 200);
    expect(oneDay.body).toEqual({
      from: purchaseDay,
      to: purchaseDay,
      live: [{ date: purchaseDay, currency: 'USD', gross_minor: 500, refunds_minor: 0, net_minor: 500 }],
      test: [],
    });

    // B's own view: its two test purchases; A's admin key opens nothing of B.
    const bRevenue = await revenue(b, '?days=1');
    expect(bRevenue.body).toMatchObject({ live: [], test: [{ currency: 'USD', gross_minor: 1000, net_minor: 1000 }] });
    const crossed = await h.get('/internal/payments/revenue?days=7', { ...a.project.admin(), 'x-latch-project-id': b.id });
    expect(crossed.status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(crossed.body)).not.toContain('gross_minor');
  }, 120_000);

  it('refuses ranges it does not answer', async () => {
    const p = await h.createProject({ config: { payments: PAYMENTS } });
    expectKnownError(await revenue(p, '?from=2026-01-01'), 400, 'SCHEMA_ERROR');
    expectKnownError(await revenue(p, '?from=2026-01-02&to=2026-01-01'), 400, 'SCHEMA_ERROR');
    expectKnownError(await revenue(p, '?from=2025-01-01&to=2026-01-02'), 400, 'SCHEMA_ERROR');
    expectKnownError(await revenue(p, '?days=367'), 400, 'SCHEMA_ERROR');
    expectKnownError(await revenue(p, '?days=7&from=2026-01-01&to=2026-01-02'), 400, 'SCHEMA_ERROR');
    expectKnownError(await revenue(p, '?from=2026-13-01&to=2026-13-02'), 400, 'SCHEMA_ERROR');
    // 366 days, both ends included, is the longest range; an empty project answers empty lists.
    const year = await revenue(p, '?from=2024-01-01&to=2024-12-31');
    expectStatus(year, 200);
    expect(year.body).toEqual({ from: '2024-01-01', to: '2024-12-31', live: [], test: [] });
    // Only admins read revenue.
    expectKnownError(await h.get('/internal/payments/revenue', p.server()), 401, 'INSUFFICIENT_ACCESS_TYPE');
  }, 60_000);
});
