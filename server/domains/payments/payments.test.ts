import { describe, expect, it } from 'vitest';
import { useHarness } from '../../test/harness.js';
import { expectKnownError, expectStatus, newTeam, newUser } from '../../test/team-fixtures.js';

const h = useHarness();

const PAYMENTS = {
  items: {
    credits: { displayName: 'Credits', customerType: 'user' },
    seats: { displayName: 'Seats', customerType: 'team' },
    tokens: { customerType: 'custom' },
  },
  productLines: { plans: { displayName: 'Plans', customerType: 'user' } },
  products: {
    starter: {
      displayName: 'Starter',
      customerType: 'user',
      productLineId: 'plans',
      serverOnly: false,
      prices: { monthly: { USD: '9.99', JPY: '1200', interval: [1, 'month'] } },
      includedItems: { credits: { quantity: 100, repeat: [1, 'month'], expires: 'when-repeated' } },
    },
    pro: {
      displayName: 'Pro',
      customerType: 'user',
      productLineId: 'plans',
      prices: { monthly: { USD: '29' } },
      includedItems: { credits: { quantity: 1000 } },
    },
    boost: { displayName: 'Boost', customerType: 'user', stackable: true, prices: { once: { USD: '1.50' } }, includedItems: { credits: { quantity: 10 } } },
    team_plan: { customerType: 'team', prices: 'include-by-default', includedItems: { seats: { quantity: 5 } } },
  },
};

async function paymentsProject() {
  const project = await h.createProject({ config: { payments: PAYMENTS } });
  const user = await newUser(h, project);
  return { project, user };
}

const itemPath = (type: string, id: string, item: string) => `/payments/items/${type}/${id}/${item}`;

describe('payments config', () => {
  it('is saved through the project config and refuses bad money with the exact message', async () => {
    const project = await h.createProject();
    const ok = await h.patch('/internal/projects/current', { config: { payments: PAYMENTS } }, project.admin());
    expectStatus(ok, 200);
    expect(ok.body.config.payments.products.starter.prices.monthly).toEqual({ USD: '9.99', JPY: '1200', interval: [1, 'month'] });
    const bad = await h.patch(
      '/internal/projects/current',
      { config: { payments: { products: { x: { customerType: 'user', prices: { p: { JPY: '10.5' } } } } } } },
      project.admin(),
    );
    expectKnownError(bad, 400, 'SCHEMA_ERROR');
    expect(bad.body.error).toContain('Too many decimals; JPY only has 0 decimals');
    const none = await h.patch(
      '/internal/projects/current',
      { config: { payments: { products: { x: { customerType: 'user', prices: { p: {} } } } } } },
      project.admin(),
    );
    expect(none.body.error).toContain('At least one currency is required');
  });
});

describe('items', () => {
  it('starts at 0, changes by delta, floors the non-negative quantity, and refuses an overdraw', async () => {
    const { project, user } = await paymentsProject();
    const read = await h.get(itemPath('user', user.id, 'credits'), user.client);
    expectStatus(read, 200);
    expect(read.body).toEqual({ id: 'credits', display_name: 'Credits', quantity: 0, non_negative_quantity: 0 });

    const up = await h.post(`${itemPath('user', user.id, 'credits')}/update-quantity`, { delta: 5, description: 'welcome' }, project.server());
    expectStatus(up, 200);
    expect(up.body.quantity).toBe(5);
    const over = await h.post(`${itemPath('user', user.id, 'credits')}/update-quantity`, { delta: -6 }, project.server());
    expectKnownError(over, 400, 'ITEM_QUANTITY_INSUFFICIENT_AMOUNT');
    const debt = await h.post(`${itemPath('user', user.id, 'credits')}/update-quantity`, { delta: -6, allow_negative: true }, project.server());
    expectStatus(debt, 200);
    expect((await h.get(itemPath('user', 'me', 'credits'), user.client)).body).toMatchObject({ quantity: -1, non_negative_quantity: 0 });
    // Admin changes may overdraw without the flag.
    expectStatus(await h.post(`${itemPath('user', user.id, 'credits')}/update-quantity`, { delta: -1 }, project.admin()), 200);
    expect((await h.get(itemPath('user', user.id, 'credits'), project.server())).body.quantity).toBe(-2);
  });

  it('lets an expiring grant run out, spending it before a permanent one', async () => {
    const { project, user } = await paymentsProject();
    const path = `${itemPath('user', user.id, 'credits')}/update-quantity`;
    expectStatus(await h.post(path, { delta: 10 }, project.server()), 200);
    // Expires in 6 s: long enough to be spent first on a loaded machine, short enough to see go.
    expectStatus(await h.post(path, { delta: 4, expires_at: new Date(Date.now() + 6000).toISOString() }, project.server()), 200);
    expectStatus(await h.post(path, { delta: -4 }, project.server()), 200);
    await new Promise((r) => setTimeout(r, 6500));
    // The -4 consumed the expiring 4, so the permanent 10 is intact after it expires.
    expect((await h.get(itemPath('user', user.id, 'credits'), project.server())).body.quantity).toBe(10);
  });

  it('answers ITEM_NOT_FOUND, ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH and CUSTOMER_DOES_NOT_EXIST', async () => {
    const { project, user } = await paymentsProject();
    expectKnownError(await h.get(itemPath('user', user.id, 'nope'), project.server()), 404, 'ITEM_NOT_FOUND');
    expectKnownError(await h.get(itemPath('team', user.id, 'credits'), project.server()), 400, 'ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH');
    expectKnownError(await h.get(itemPath('user', '00000000-0000-4000-8000-000000000000', 'credits'), project.server()), 400, 'CUSTOMER_DOES_NOT_EXIST');
    expectKnownError(await h.get(itemPath('team', '00000000-0000-4000-8000-000000000000', 'seats'), project.server()), 400, 'CUSTOMER_DOES_NOT_EXIST');
    // Custom ids are any string, from servers only.
    expect((await h.get(itemPath('custom', 'org:42', 'tokens'), project.server())).body.quantity).toBe(0);
    expectKnownError(await h.get(itemPath('custom', 'org:42', 'tokens'), user.client), 401, 'INSUFFICIENT_ACCESS_TYPE');
    // A client cannot change quantities, nor read another user's.
    expectKnownError(await h.post(`${itemPath('user', user.id, 'credits')}/update-quantity`, { delta: 1 }, user.client), 401, 'INSUFFICIENT_ACCESS_TYPE');
    const other = await newUser(h, project);
    expect((await h.get(itemPath('user', other.id, 'credits'), user.client)).status).toBeGreaterThanOrEqual(400);
  });

  it('lets 100 concurrent decreases of 1 on a balance of 50 succeed exactly 50 times', async () => {
    const { project } = await paymentsProject();
    const path = `${itemPath('custom', 'race', 'tokens')}/update-quantity`;
    expectStatus(await h.post(path, { delta: 50 }, project.server()), 200);
    const results = await Promise.all(Array.from({ length: 100 }, () => h.post(path, { delta: -1 }, project.server())));
    expect(results.filter((r) => r.status === 200)).toHaveLength(50);
    const refused = results.filter((r) => r.status !== 200);
    expect(refused).toHaveLength(50);
    for (const r of refused) expectKnownError(r, 400, 'ITEM_QUANTITY_INSUFFICIENT_AMOUNT');
    expect((await h.get(itemPath('custom', 'race', 'tokens'), project.server())).body.quantity).toBe(0);
  }, 120_000);
});

describe('products', () => {
  it('grants a product, adds its items, lists it, and refuses a second non-stackable grant', async () => {
    const { project, user } = await paymentsProject();
    const path = `/payments/products/user/${user.id}`;
    const granted = await h.post(path, { product_id: 'pro' }, project.server());
    expectStatus(granted, 201);
    expect(granted.body).toEqual({ id: 'pro', quantity: 1, product: { display_name: 'Pro', customer_type: 'user', server_only: false, stackable: false } });
    expect((await h.get(itemPath('user', user.id, 'credits'), user.client)).body.quantity).toBe(1000);
    expectKnownError(await h.post(path, { product_id: 'pro' }, project.server()), 400, 'PRODUCT_ALREADY_GRANTED');
    expectStatus(await h.post(path, { product_id: 'boost', quantity: 3 }, project.server()), 201);
    expectStatus(await h.post(path, { product_id: 'boost' }, project.server()), 201);
    expect((await h.get(itemPath('user', user.id, 'credits'), user.client)).body.quantity).toBe(1040);
    const listed = await h.get(`/payments/products/user/me`, user.client);
    expectStatus(listed, 200);
    expect(listed.body.items.map((p: { id: string; quantity: number }) => [p.id, p.quantity])).toEqual([
      ['pro', 1],
      ['boost', 3],
      ['boost', 1],
    ]);
  });

  it('switches within a product line (the plans are mutually exclusive)', async () => {
    const { project, user } = await paymentsProject();
    const path = `/payments/products/user/${user.id}`;
    expectStatus(await h.post(path, { product_id: 'starter' }, project.server()), 201);
    expect((await h.get(itemPath('user', user.id, 'credits'), project.server())).body.quantity).toBe(100);
    expectStatus(await h.post(path, { product_id: 'pro' }, project.server()), 201);
    const listed = await h.get(path, project.server());
    expect(listed.body.items.map((p: { id: string }) => p.id)).toEqual(['pro']);
  });

  it('answers PRODUCT_DOES_NOT_EXIST, PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH, and grants inline products with server_only by default', async () => {
    const { project, user } = await paymentsProject();
    const team = await newTeam(h, project, user);
    expectKnownError(await h.post(`/payments/products/user/${user.id}`, { product_id: 'nope' }, project.server()), 400, 'PRODUCT_DOES_NOT_EXIST');
    const item = await h.post(`/payments/products/user/${user.id}`, { product_id: 'credits' }, project.server());
    expectKnownError(item, 400, 'PRODUCT_DOES_NOT_EXIST');
    expect(item.body.details.context).toBe('item_exists');
    expectKnownError(await h.post(`/payments/products/team/${team.id}`, { product_id: 'pro' }, project.server()), 400, 'PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH');
    expectKnownError(await h.post(`/payments/products/team/${user.id}`, { product_id: 'team_plan' }, project.server()), 400, 'CUSTOMER_DOES_NOT_EXIST');
    expectStatus(await h.post(`/payments/products/team/${team.id}`, { product_id: 'team_plan' }, project.server()), 201);
    expect((await h.get(itemPath('team', team.id, 'seats'), user.client)).body.quantity).toBe(5);
    const inline = await h.post(
      `/payments/products/user/${user.id}`,
      { product_inline: { display_name: 'Gift', customer_type: 'user', prices: 'include-by-default', included_items: { credits: { quantity: 7 } } } },
      project.server(),
    );
    expectStatus(inline, 201);
    expect(inline.body).toEqual({ id: null, quantity: 1, product: { display_name: 'Gift', customer_type: 'user', server_only: true, stackable: false } });
    // Server-only products are hidden from clients.
    expect((await h.get(`/payments/products/user/me`, user.client)).body.items).toEqual([]);
    expect((await h.get(`/payments/products/user/${user.id}`, project.server())).body.items).toHaveLength(1);
    expect((await h.get(itemPath('user', user.id, 'credits'), user.client)).body.quantity).toBe(7);
    expectKnownError(await h.post(`/payments/products/user/${user.id}`, { product_id: 'pro' }, user.client), 401, 'INSUFFICIENT_ACCESS_TYPE');
  });

  it('pages with a keyset cursor', async () => {
    const { project } = await paymentsProject();
    const path = `/payments/products/custom/acme`;
    const inline = { customer_type: 'custom', stackable: true, prices: 'include-by-default' };
    for (let i = 0; i < 5; i++) expectStatus(await h.post(path, { product_inline: { ...inline, display_name: `P${i}` } }, project.server()), 201);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { items: { product: { display_name: string } }[]; pagination: { next_cursor: string | null } } } = await h.get(
        `${path}?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        project.server(),
      );
      seen.push(...page.body.items.map((p) => p.product.display_name));
      cursor = page.body.pagination.next_cursor;
    } while (cursor);
    expect(seen).toEqual(['P0', 'P1', 'P2', 'P3', 'P4']);
    expectKnownError(await h.get(`${path}?cursor=garbage`, project.server()), 400, 'SCHEMA_ERROR');
  });
});

describe('tenancy', () => {
  it("keeps one project's customers, items and products invisible to another", async () => {
    const a = await paymentsProject();
    const b = await h.createProject({ config: { payments: PAYMENTS } });
    expectStatus(await h.post(`${itemPath('custom', 'shared-id', 'tokens')}/update-quantity`, { delta: 9 }, a.project.server()), 200);
    expectStatus(
      await h.post(`/payments/products/custom/shared-id`, { product_inline: { customer_type: 'custom', prices: 'include-by-default' } }, a.project.server()),
      201,
    );
    expect((await h.get(itemPath('custom', 'shared-id', 'tokens'), b.server())).body.quantity).toBe(0);
    expect((await h.get(`/payments/products/custom/shared-id`, b.server())).body.items).toEqual([]);
    // A's user is no customer of B.
    expectKnownError(await h.get(itemPath('user', a.user.id, 'credits'), b.server()), 400, 'CUSTOMER_DOES_NOT_EXIST');
    expectKnownError(await h.post(`/payments/products/user/${a.user.id}`, { product_id: 'pro' }, b.server()), 400, 'CUSTOMER_DOES_NOT_EXIST');
  });
});
