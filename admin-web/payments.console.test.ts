import { describe, expect, it } from 'vitest';
import { expectStatus, newUser } from '../server/test/team-fixtures.js';
import { signInOwner, useConsoleSuite } from './test/console-suite.js';

/**
 * The console's Payments page in headless Chromium against a real server: the owner turns test
 * mode on (and the server's checkout then grants without Stripe: the switch is read), creates an
 * item and a product whose bad amounts show the spec's money messages under the field as they are
 * typed, grants the product to a user in customer lookup and changes a balance, then sees the
 * transactions (the test-mode purchase marked) and the revenue chart.
 */

const suite = useConsoleSuite({}, 180_000);

describe('payments in the console', { timeout: 180_000 }, () => {
  it('catalogue with inline money messages, customer lookup grant, transactions and revenue', async () => {
    const owner = await suite.h.signUpOwner();
    const project = await suite.h.createProject({ owner, displayName: 'Console payments' });
    const buyer = await newUser(suite.h, project);
    const tester = await newUser(suite.h, project);
    const { context, page } = await suite.newPage({ timeoutMs: 30_000 });
    await signInOwner(suite, page, `/projects/${project.id}/payments`, owner.email, { until: page.getByText('Stripe is not connected') });

    const tabs = page.getByRole('navigation', { name: 'Payments' });
    // Test mode on: saved to the config the server reads at checkout.
    await page.getByRole('switch', { name: 'Test mode' }).check();
    await expect
      .poll(async () => (await suite.h.get('/internal/projects/current', project.admin())).body.config.payments.test_mode, { timeout: 20_000 })
      .toBe(true);

    // Catalogue: an item, then a product whose amount is wrong three ways before it is right.
    await tabs.getByRole('link', { name: 'Catalogue' }).click();
    await page.getByLabel('Item ID').fill('credits');
    await page.getByLabel('Item display name').fill('Credits');
    await page.getByRole('button', { name: 'Add item' }).click();
    await page.getByRole('table', { name: 'Items' }).getByRole('cell', { name: 'credits', exact: true }).waitFor();

    await page.getByRole('button', { name: 'Create product' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create product' });
    await dialog.getByLabel('Product ID').fill('pro');
    await dialog.getByLabel('Display name').fill('Pro');
    await dialog.getByText('At least one currency is required').waitFor();
    const usd = dialog.getByLabel('USD amount');
    await usd.fill('9.999');
    await dialog.getByText('Too many decimals; USD only has 2 decimals').waitFor();
    await suite.browser.screenshot(page, 'payments', 'money-message');
    expect(await usd.getAttribute('aria-invalid')).toBe('true');
    await usd.fill('09.99');
    await dialog.getByText('Money amount must not have leading zeros').waitFor();
    await usd.fill('9,99');
    await dialog.getByText('Money amount must be in the format of <number> or <number>.<number>').waitFor();
    await dialog.getByLabel('JPY amount').fill('1200.5');
    await dialog.getByText('Too many decimals; JPY only has 0 decimals').waitFor();
    await dialog.getByLabel('JPY amount').fill('');
    await usd.fill('9.99');
    expect(await usd.getAttribute('aria-invalid')).toBe('false');
    await expect.poll(() => dialog.locator('.field-error').count()).toBe(0);
    await dialog.getByLabel('Billing interval unit').selectOption('month');
    await dialog.getByRole('button', { name: 'Add included item' }).click();
    await dialog.getByLabel('Quantity').fill('100');
    await dialog.getByRole('button', { name: 'Create product' }).click();
    await page.getByRole('table', { name: 'Products' }).getByRole('cell', { name: 'pro', exact: true }).waitFor();
    const stored = (await suite.h.get('/internal/projects/current', project.admin())).body.config.payments.products.pro;
    expect(stored).toMatchObject({
      displayName: 'Pro',
      customerType: 'user',
      prices: { default: { USD: '9.99', interval: [1, 'month'] } },
      includedItems: { credits: { quantity: 100, repeat: 'never', expires: 'never' } },
    });

    // Customer lookup: find the user, grant Pro, take 5 credits away with a reason.
    await tabs.getByRole('link', { name: 'Customers' }).click();
    await page.getByLabel('Find a user').fill(buyer.email);
    const match = page.getByRole('table', { name: 'Matching users' }).getByRole('row').filter({ hasText: buyer.id });
    await match.getByRole('button', { name: 'Select' }).click();
    await page.getByRole('button', { name: 'Grant product' }).click();
    await page.getByText('Granted.').waitFor();
    const balance = page.getByTestId('item-balance').filter({ hasText: 'Credits' });
    await expect.poll(() => balance.textContent(), { timeout: 20_000 }).toContain('100');
    await page.getByTestId('held-product').filter({ hasText: 'Pro' }).waitFor();
    await page.getByLabel('Change by').fill('-5');
    await page.getByLabel('Description').fill('support adjustment');
    await page.getByRole('button', { name: 'Change quantity' }).click();
    await expect.poll(() => balance.textContent(), { timeout: 20_000 }).toContain('95');
    // Granting it again: the server's catalogued error, shown as is.
    await page.getByRole('button', { name: 'Grant product' }).click();
    await page.getByRole('alert').filter({ hasText: 'PRODUCT_ALREADY_GRANTED' }).waitFor();

    // Another user buys Pro through checkout: test mode (switched on above) grants it without Stripe.
    const bought = await suite.h.post(
      '/payments/purchases/create-purchase-url',
      { customer_type: 'user', customer_id: 'me', product_id: 'pro', return_url: 'http://localhost:3000/back' },
      tester.client,
    );
    expectStatus(bought, 200);
    expect(bought.body.url).toBe('http://localhost:3000/back');

    // Transactions: the grant, the manual change, and the test-mode purchase marked as such.
    await tabs.getByRole('link', { name: 'Transactions' }).click();
    const rows = page.getByTestId('transaction-row');
    await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(3);
    const purchase = rows.filter({ hasText: 'purchase' });
    expect(await purchase.textContent()).toContain('Test mode');
    expect(await purchase.textContent()).toContain('9.99 USD');
    expect(await rows.filter({ hasText: 'support adjustment' }).textContent()).toContain('credits -5');
    expect(await rows.filter({ hasText: 'grant' }).textContent()).toContain('Pro');
    await page.getByLabel('Transaction type').selectOption('grant');
    await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(1);

    // Revenue: no live money; the test-mode purchase in the chart.
    await tabs.getByRole('link', { name: 'Stripe and revenue' }).click();
    await page.getByText('No revenue in this range').waitFor();
    await page.getByLabel('Revenue mode').selectOption('test');
    const chart = page.getByRole('img', { name: /Test-mode revenue in USD/ });
    await chart.waitFor();
    expect(await chart.getAttribute('aria-label')).toContain('9.99 USD net over 30 days');
    expect(await page.getByTestId('revenue-total').textContent()).toContain('9.99 USD sold');
    await suite.browser.screenshot(page, 'payments', 'revenue');
    await context.close();
  });
});
