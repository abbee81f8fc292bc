import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { expectStatus } from '../server/test/team-fixtures.js';
import { type StripeFake, startStripeFake } from '../server/test/stripe-fake.js';
import { SECRET_KEY, WEBHOOK_SECRET } from '../server/test/stripe-fixtures.js';
import { ServerApp } from '../sdk/index.js';
import { openAppPage, useUiSuite } from './test/suite.js';

/**
 * Buying a plan end to end, in Chromium: the example app's pricing page (PlanPicker) → the Stripe
 * fake's hosted checkout page → Pay (the fake delivers the signed checkout.session.completed
 * webhook to Latch, then redirects back) → the pricing page with the plan current, and account
 * settings' billing section with the plan's included credits and a "Manage billing" button that
 * opens the fake's billing portal. Team billing shows in team management for the team's admin
 * ($update_team) and not for a plain member.
 */

let fake: StripeFake;
// Registered first, so it runs last (after hooks run in reverse): the server goes before its Stripe.
afterAll(() => fake?.close());
const ui = useUiSuite(async () => {
  fake = await startStripeFake({ webhookSecret: WEBHOOK_SECRET });
  return { stripeApiBase: fake.url };
});

const PAYMENTS = {
  items: { credits: { displayName: 'Credits', customerType: 'user' }, seats: { displayName: 'Seats', customerType: 'team' } },
  productLines: { plans: { displayName: 'Plans', customerType: 'user' } },
  products: {
    starter: {
      displayName: 'Starter',
      productLineId: 'plans',
      customerType: 'user',
      prices: { monthly: { USD: '5', interval: [1, 'month'] } },
      includedItems: { credits: { quantity: 10 } },
    },
    pro: {
      displayName: 'Pro',
      productLineId: 'plans',
      customerType: 'user',
      prices: { monthly: { USD: '20', interval: [1, 'month'] } },
      includedItems: { credits: { quantity: 100 } },
    },
  },
};
const APP_CONFIG = { paymentItems: { user: ['credits'], team: ['seats'] } };
const field = (page: Page, name: string) => page.getByRole('textbox', { name, exact: true });

async function signIn(page: Page, base: string, email: string, password: string, returnTo: string) {
  await page.goto(`${base}/handler/sign-in?after_auth_return_to=${encodeURIComponent(returnTo)}`);
  await field(page, 'Email').fill(email);
  await field(page, 'Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(`**${returnTo}`);
}

describe('payments in the UI kit', () => {
  it('pricing page → Stripe checkout → back with the plan current and its credits granted; billing portal; team billing for $update_team', async () => {
    const project = await ui.h.createProject({ config: { payments: PAYMENTS }, displayName: 'Acme notes', defaultTeamRoles: true });
    const setup = await ui.h.post('/internal/payments/setup', { stripe_secret_key: SECRET_KEY, stripe_webhook_secret: WEBHOOK_SECRET }, project.admin());
    expectStatus(setup, 200);
    // The fake's Pay button delivers its event where Stripe would: the webhook URL Latch answered.
    fake.webhookUrl = `${ui.h.url}/api/v1/integrations/stripe/webhooks/${String(setup.body.webhook_url).split('/').pop()}`;
    const server = new ServerApp({ projectId: project.id, secretServerKey: project.secretServerKey, baseUrl: ui.h.url });
    const buyer = await ui.h.signUpUser(project);
    const member = await ui.h.signUpUser(project);
    const team = await server.createTeam({ display_name: 'Rocket', creator_user_id: buyer.userId });
    await server.addTeamMember(team.id, member.userId);

    const { context, page } = await openAppPage(ui, project, { timeoutMs: 15_000, config: APP_CONFIG });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await signIn(page, ui.host.url, buyer.email, buyer.password, '/pricing');

    // The pricing page: two plans of the line, none held yet.
    const plans = page.getByRole('list', { name: 'Plans' });
    await plans.getByRole('button', { name: 'Choose Pro' }).waitFor();
    expect(await plans.locator('[aria-current="true"]').count()).toBe(0);
    await plans.getByRole('button', { name: 'Choose Pro' }).click();

    // Stripe's hosted checkout (the fake's page), for Pro's price in minor units.
    await page.waitForURL(`${fake.url}/pay/**`);
    await page.getByRole('heading', { name: 'Fake Stripe Checkout' }).waitFor();
    expect(await page.getByText('Pay 2000 USD').count()).toBe(1);
    await page.getByRole('button', { name: 'Pay' }).click();

    // Back on the pricing page; the webhook's job grants the plan (asynchronously: reload until it shows).
    await page.waitForURL(`${ui.host.url}/pricing`);
    await expect
      .poll(
        async () => {
          await page.reload();
          await plans.waitFor();
          return plans.getByRole('listitem', { name: 'Pro' }).getAttribute('aria-current');
        },
        { timeout: 45_000, interval: 1000 },
      )
      .toBe('true');
    expect(await plans.getByRole('button', { name: 'Current plan' }).isDisabled()).toBe(true);
    expect(await plans.getByRole('button', { name: 'Choose Starter' }).isEnabled()).toBe(true);
    expect((await server.getItem({ userId: buyer.userId, itemId: 'credits' })).quantity).toBe(100);

    // Account settings: the billing section shows the credits, the plan, and the portal button.
    await page.goto(`${ui.host.url}/handler/account-settings`);
    const items = page.getByRole('list', { name: 'Your items' });
    await expect.poll(() => items.innerText(), { timeout: 15_000 }).toMatch(/Credits\s+100/);
    expect(await page.getByRole('list', { name: 'Your plans and purchases' }).innerText()).toMatch(/Pro\s+Active/);
    await page.getByRole('button', { name: 'Manage billing' }).click();
    await page.waitForURL(`${fake.url}/portal/**`);
    await page.getByRole('heading', { name: 'Fake Stripe billing portal' }).waitFor();
    expect(await page.getByRole('list', { name: 'Subscriptions' }).innerText()).toContain('active');
    await page.getByRole('link', { name: 'Return' }).click();
    await page.waitForURL(`${ui.host.url}/handler/account-settings`);

    // Team billing, for the team's admin ($update_team): the team's items and plans.
    await page.getByRole('button', { name: 'Manage Rocket' }).click();
    const region = page.getByRole('region', { name: 'Manage Rocket' });
    await expect.poll(() => region.getByRole('list', { name: 'Team items' }).innerText(), { timeout: 15_000 }).toMatch(/Seats\s+0/);
    expect(await region.getByText('No plan or purchase yet.').count()).toBe(1);
    expect(await region.getByRole('button', { name: 'Manage billing' }).count()).toBe(1);
    expect(errors).toEqual([]);
    await context.close();

    // A plain member (team_member: no $update_team) sees the team but not its billing.
    const asMember = await openAppPage(ui, project, { timeoutMs: 15_000, config: APP_CONFIG });
    await signIn(asMember.page, ui.host.url, member.email, member.password, '/handler/account-settings');
    await asMember.page.getByRole('button', { name: 'Manage Rocket' }).click();
    const memberRegion = asMember.page.getByRole('region', { name: 'Manage Rocket' });
    await memberRegion.getByRole('list', { name: 'Members' }).waitFor();
    expect(await memberRegion.getByRole('heading', { name: 'Team billing' }).count()).toBe(0);
    expect(await memberRegion.getByRole('list', { name: 'Team items' }).count()).toBe(0);
    await asMember.context.close();
  }, 240_000);
});
