import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { type Zoo, startZoo } from '../server/test/oauth-zoo.js';
import { ServerApp } from '../sdk/index.js';
import { signInOwner, useConsoleSuite } from './test/console-suite.js';

/**
 * The console's OAuth pages in headless Chromium against a real server and the provider zoo
 * (server/test/oauth-zoo.ts): a provider's setup shows the callback URL to paste, "Test … sign-in"
 * runs the real flow in a popup and reports the user it signed in, and a user's page lists their
 * connected accounts and unlinks one. Screenshots go to test-artifacts/admin-web-oauth/.
 */
let zoo: Zoo;
afterAll(async () => {
  await zoo?.close();
});
const suite = useConsoleSuite(async () => {
  zoo = await startZoo();
  return { oauth: { shared: { github: zoo.clients.github! }, endpointOverrides: zoo.overrides() } };
});

async function shot(page: Page, name: string) {
  await suite.browser.screenshot(page, 'admin-web-oauth', name);
}

async function ownerOn(pagePath: string, config: Record<string, unknown> = {}) {
  const project = await suite.h.createProject({ displayName: 'OAuth console test', config: { allow_localhost: true, ...config } });
  const { context, page, errors } = await suite.newPage({ timeoutMs: 10_000 });
  await signInOwner(suite, page, `/projects/${project.id}/${pagePath}`, project.owner.email);
  const server = new ServerApp({ projectId: project.id, secretServerKey: project.secretServerKey, baseUrl: suite.h.url });
  return { project, context, page, errors, server };
}

describe('console: OAuth providers', { timeout: 90_000 }, () => {
  it('shows the callback URL to paste, and "Test GitHub sign-in" runs the real flow in a popup and reports the user', async () => {
    const { project, page, errors, server } = await ownerOn('auth-methods');
    await page.getByRole('button', { name: 'Configure GitHub' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByLabel('Callback URL').inputValue()).resolves.toBe(`${suite.h.url}/api/v1/auth/oauth/callback/github`);
    // Not saved yet: nothing to test.
    const test = dialog.getByRole('button', { name: 'Test GitHub sign-in' });
    await expect(test.isDisabled()).resolves.toBe(true);
    await dialog.getByText('Save the provider enabled to test it.').waitFor();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Shared', { exact: true }).waitFor();

    const email = suite.h.uniqueEmail('tester');
    zoo.setUser('github', { id: `gh-console-${Date.now()}`, email, emailVerified: true, name: 'Console Tester' });
    await page.getByRole('button', { name: 'Configure GitHub' }).click();
    const [popup] = await Promise.all([page.waitForEvent('popup'), dialog.getByRole('button', { name: 'Test GitHub sign-in' }).click()]);
    await popup.waitForURL(`${suite.h.url}/oauth-test-callback**`);
    await popup.getByText('The provider works').waitFor();
    await shot(popup, 'test-popup');
    const report = dialog.getByText(/^It works: signed in as user /);
    await report.waitFor();
    await shot(page, 'provider-tested');

    // The popup signed the tester's provider account in as a real user of the project.
    const { items } = await server.listUsers({ query: email });
    expect(items).toHaveLength(1);
    expect(await report.innerText()).toContain(items[0]!.id);
    expect(items[0]!.oauth_providers.map((provider) => provider.type)).toEqual(['github']);
    // ... and signed that test session out again.
    expect(await server.listSessions({ userId: items[0]!.id })).toEqual([]);
    // The test key expires by itself (10 minutes).
    const keys = await suite.h.get('/internal/api-keys', project.admin());
    const testKeys = (keys.body.items as { description: string; expires_at_millis: number | null }[]).filter((key) =>
      key.description.startsWith('OAuth provider test'),
    );
    expect(testKeys).toHaveLength(1);
    expect(testKeys[0]!.expires_at_millis).toBeLessThanOrEqual(Date.now() + 10 * 60 * 1000);
    expect(errors).toEqual([]);
  });

  it('configures the generic OpenID Connect provider: its issuer URL and own credentials (it has no shared keys)', async () => {
    const { project, page, errors } = await ownerOn('auth-methods');
    await page.getByRole('button', { name: 'Configure OpenID Connect (any IdP)' }).click();
    const dialog = page.getByRole('dialog');
    // No "shared" choice for it.
    await expect(dialog.getByLabel('Shared (development only)').isVisible()).resolves.toBe(false);
    await dialog.getByLabel('Client ID').fill('latch-app');
    await dialog.getByLabel('Client secret').fill('idp-secret');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('the generic OIDC provider needs issuer_url').waitFor();
    await dialog.getByLabel('Issuer URL').fill('https://idp.example.com/realms/acme');
    await expect(dialog.getByLabel('Callback URL').inputValue()).resolves.toBe(`${suite.h.url}/api/v1/auth/oauth/callback/oidc`);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Own app (latch-app)').waitFor();
    const config = (await suite.h.get('/internal/projects/current', project.admin())).body.config as { oauth_providers: Record<string, unknown>[] };
    expect(config.oauth_providers.find((provider) => provider.id === 'oidc')).toMatchObject({
      type: 'standard',
      client_id: 'latch-app',
      issuer_url: 'https://idp.example.com/realms/acme',
      has_client_secret: true,
    });
    expect(errors).toEqual([]);
  });

  it("lists a user's connected accounts on their page and unlinks one", async () => {
    const { project, page, server } = await ownerOn('users', { oauth_providers: [{ id: 'github', enabled: true, type: 'shared' }] });
    const user = await server.createUser({ primary_email: suite.h.uniqueEmail('linked'), primary_email_auth_enabled: true });
    const created = await server.createOAuthProvider({
      user_id: user.id,
      provider_config_id: 'github',
      account_id: '583231',
      email: 'octo@example.com',
      allow_sign_in: true,
      allow_connected_accounts: true,
    });
    expect(created.status).toBe('ok');
    await page.goto(`${suite.h.url}/projects/${project.id}/users/${user.id}`);
    const card = page.getByRole('table', { name: 'Connected accounts' });
    await card.getByRole('cell', { name: 'octo@example.com' }).waitFor();
    await expect(card.getByRole('cell', { name: '583231' }).isVisible()).resolves.toBe(true);
    await shot(page, 'user-connected-accounts');
    await card.getByRole('button', { name: 'Unlink' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Unlink' }).click();
    await expect.poll(async () => (server.queryClient.clear(), (await server.listOAuthProviders({ userId: user.id })).length)).toBe(0);
  });
});
