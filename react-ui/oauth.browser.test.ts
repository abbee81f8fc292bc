import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import type { ProjectFixture } from '../server/test/harness.js';
import { type Zoo, startZoo } from '../server/test/oauth-zoo.js';
import { knownErrorsByCode } from '../contract/errors/known-errors.js';
import { ServerApp } from '../sdk/index.js';
import { axeViolations, openAppPage, useUiSuite } from './test/suite.js';

/**
 * OAuth in real headless Chromium (issue 15, "Chromium end to end"): the example app with the UI
 * kit, a real Latch server, and the provider zoo (server/test/oauth-zoo.ts) standing in for GitHub
 * and Google with their own JSON. The zoo's authorize endpoint is its consent step: it approves at
 * once for the zoo's signed-in user, or refuses with `access_denied` on demand. Pages are kept as
 * screenshots under test-artifacts/react-ui-oauth/.
 */

const SUITE = 'react-ui-oauth';

let zoo: Zoo;
// Registered first, so it runs last (after hooks run in reverse): the server goes before its zoo.
afterAll(() => zoo?.close());
const ui = useUiSuite(async () => {
  zoo = await startZoo();
  return { oauth: { shared: { github: zoo.clients.github! }, endpointOverrides: zoo.overrides() } };
});

/** A project with GitHub (shared keys) and Google (its own client), and a page of the example app against it. */
async function setup(): Promise<{ project: ProjectFixture; context: BrowserContext; page: Page; server: ServerApp; navigations: string[] }> {
  const google = zoo.clients.google!;
  const project = await ui.h.createProject({
    displayName: 'Acme notes',
    config: {
      allow_localhost: true,
      oauth_providers: [
        { id: 'github', enabled: true, type: 'shared' },
        { id: 'google', enabled: true, type: 'standard', client_id: google.clientId, client_secret: google.clientSecret },
      ],
    },
  });
  const { context, page } = await openAppPage(ui, project);
  // Every document the tab asks for: the way through Latch and the zoo is part of what is tested.
  const navigations: string[] = [];
  // Requests, not committed navigations: each hop of a redirect chain is a request of its own.
  page.on('request', (request) => {
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) navigations.push(request.url());
  });
  const server = new ServerApp({ projectId: project.id, secretServerKey: project.secretServerKey, baseUrl: ui.h.url });
  return { project, context, page, server, navigations };
}

const shot = (page: Page, name: string) => ui.browser.screenshot(page, SUITE, name);
const path = (page: Page) => new URL(page.url()).pathname + new URL(page.url()).search;

async function signInWithGitHub(page: Page, navigations: string[], email: string): Promise<void> {
  zoo.setUser('github', { id: `gh-${Math.random().toString(36).slice(2)}`, email, emailVerified: true, name: 'Ada Lovelace' });
  await page.goto(`${ui.host.url}/protected?tab=notes`);
  await page.waitForURL('**/handler/sign-in?after_auth_return_to=*');
  await page.getByRole('button', { name: 'Sign in with GitHub' }).click();
  await page.waitForURL(`${ui.host.url}/protected?tab=notes`);
  await page.getByTestId('protected').waitFor();
  expect(navigations.some((url) => url.startsWith(`${zoo.url}/github/authorize`))).toBe(true);
}

describe('OAuth sign-in', () => {
  it('a visitor clicks "Sign in with GitHub", goes through the zoo and comes back signed in, to the page they asked for', async () => {
    const { page, server, navigations } = await setup();
    const email = ui.h.uniqueEmail('ada');
    zoo.setUser('github', { id: `gh-${Date.now()}`, email, emailVerified: true, name: 'Ada Lovelace' });
    await page.goto(`${ui.host.url}/protected?tab=notes`);
    await page.waitForURL('**/handler/sign-in?after_auth_return_to=*');
    // The buttons are named for what they do; their icons are decorative.
    const github = page.getByRole('button', { name: 'Sign in with GitHub' });
    await github.waitFor();
    await expect(page.getByRole('button', { name: 'Sign in with Google' }).isVisible()).resolves.toBe(true);
    await expect(github.locator('svg').getAttribute('aria-hidden')).resolves.toBe('true');
    await shot(page, 'sign-in-with-providers');
    expect(await axeViolations(page)).toEqual([]);

    await github.click();
    await page.waitForURL(`${ui.host.url}/protected?tab=notes`);
    await expect(page.getByTestId('protected').innerText()).resolves.toContain('Ada Lovelace');
    await shot(page, 'signed-in-with-github');

    // The way: Latch's authorize, the zoo (its consent step), Latch's callback, then the app's callback page with a code.
    const step = (prefix: string) => navigations.findIndex((url) => url.startsWith(prefix));
    const authorize = step(`${ui.h.url}/api/v1/auth/oauth/authorize/github?`);
    const consent = step(`${zoo.url}/github/authorize?`);
    const latchCallback = step(`${ui.h.url}/api/v1/auth/oauth/callback/github?`);
    const callback = step(`${ui.host.url}/handler/oauth-callback?`);
    expect(authorize).toBeGreaterThanOrEqual(0);
    expect([authorize, consent, latchCallback, callback]).toEqual([...[authorize, consent, latchCallback, callback]].sort((a, b) => a - b));
    expect(new Set([authorize, consent, latchCallback, callback]).size).toBe(4);
    const landed = new URL(navigations[callback]!);
    expect(landed.searchParams.get('code')).toBeTruthy();
    expect(landed.searchParams.get('after_auth_return_to')).toBe('/protected?tab=notes');
    // The SDK consumed its state cookie.
    const cookies = await page.context().cookies(ui.host.url);
    expect(cookies.filter((cookie) => cookie.name.startsWith('latch-oauth-outer-'))).toEqual([]);

    const { items } = await server.listUsers({ query: email });
    expect(items).toHaveLength(1);
    expect(items[0]?.oauth_providers).toEqual([expect.objectContaining({ type: 'github' })]);
  });

  it('reloading the callback (its code already spent) shows a clean message, and the user stays signed in', async () => {
    const { page, navigations } = await setup();
    await signInWithGitHub(page, navigations, ui.h.uniqueEmail('reload'));
    const appCallback = navigations.find((url) => url.startsWith(`${ui.host.url}/handler/oauth-callback?`))!;
    const latchCallback = navigations.find((url) => url.startsWith(`${ui.h.url}/api/v1/auth/oauth/callback/github?`))!;

    // The app's callback page again, with the same code and state: the state cookie is gone.
    await page.goto(appCallback);
    await expect(page.getByRole('alert').innerText()).resolves.toContain('This sign-in cannot be completed here');
    await page.getByRole('link', { name: 'Back to sign in' }).waitFor();
    // Nothing was exchanged, and the address bar no longer carries the code.
    expect(new URL(page.url()).searchParams.get('code')).toBeNull();
    await shot(page, 'callback-reloaded');

    // Latch's own callback again (the provider's code and Latch's flow are spent): Latch answers with
    // its error redirect to the app's callback page (a catalogued code), never a 500.
    const seen = navigations.length;
    const response = await page.goto(latchCallback);
    let first = response!.request();
    while (first.redirectedFrom()) first = first.redirectedFrom()!;
    expect((await first.response())?.status()).toBe(302);
    const errorHop = navigations.slice(seen).find((url) => url.startsWith(`${ui.host.url}/handler/oauth-callback?`))!;
    const code = new URL(errorHop).searchParams.get('error')!;
    expect(knownErrorsByCode.has(code)).toBe(true);
    await expect(page.getByRole('alert').innerText()).resolves.not.toMatch(/unknown error|undefined/);
    // The error parameters are gone from the address bar; the return location stays.
    expect([...new URL(page.url()).searchParams.keys()]).toEqual(['after_auth_return_to']);
    await shot(page, 'latch-callback-reloaded');

    await page.goto(`${ui.host.url}/protected`);
    await page.getByTestId('protected').waitFor();
  });

  it('denying consent at the provider brings the visitor back to a clear error, signed out', async () => {
    const { page, navigations } = await setup();
    zoo.setUser('github', { id: `gh-deny-${Date.now()}`, email: ui.h.uniqueEmail('deny'), emailVerified: true });
    zoo.failNext('github', 'access_denied');
    await page.goto(`${ui.host.url}/handler/sign-in`);
    await page.getByRole('button', { name: 'Sign in with GitHub' }).click();
    await page.waitForURL(`${ui.host.url}/handler/oauth-callback**`);
    await expect(page.getByRole('alert').innerText()).resolves.toBe('The OAuth provider denied access (the user may have cancelled the consent screen).');
    expect(navigations.some((url) => url.startsWith(`${ui.h.url}/api/v1/auth/oauth/callback/github?`) && url.includes('error=access_denied'))).toBe(true);
    // The error parameters are gone from the address bar.
    expect(new URL(page.url()).search).toBe('');
    await shot(page, 'consent-denied');
    await page.getByRole('link', { name: 'Back to sign in' }).click();
    await page.waitForURL('**/handler/sign-in');
    await page.getByRole('button', { name: 'Sign in with GitHub' }).waitFor();
  });
});

describe('connected accounts', () => {
  it('a signed-in user links Google from account settings, comes back there, turns its sign-in on and off, and disconnects it', async () => {
    const { page, server, navigations } = await setup();
    const email = ui.h.uniqueEmail('link');
    await signInWithGitHub(page, navigations, email);
    zoo.setUser('google', { id: `g-${Date.now()}`, email: 'ada.work@example.com', emailVerified: true, name: 'Ada at work' });

    await page.goto(`${ui.host.url}/handler/account-settings`);
    const section = page.getByRole('region', { name: 'Connected accounts' });
    await section.waitFor();
    await expect(section.getByText('GitHub').first().isVisible()).resolves.toBe(true);
    await section.getByRole('button', { name: 'Connect Google' }).click();
    // Linking returns to the page that started it (afterCallbackRedirectUrl).
    await page.waitForURL(`${ui.host.url}/handler/account-settings`);
    await section.getByRole('button', { name: 'Disconnect Google (ada.work@example.com)' }).waitFor();
    await shot(page, 'google-linked');
    expect(await axeViolations(page)).toEqual([]);

    const [user] = (await server.listUsers({ query: email })).items;
    expect(user?.oauth_providers.map((provider) => provider.type).sort()).toEqual(['github', 'google']);

    // Fresh reads (the SDK caches lists until its own writes change them).
    const accountsOf = async () => (server.queryClient.clear(), server.listOAuthProviders({ userId: user!.id }));
    const accounts = await accountsOf();
    const google = accounts.find((account) => account.type === 'google')!;
    const toggle = section.getByRole('checkbox', { name: 'Use Google (ada.work@example.com) to sign in' });
    const before = google.allow_sign_in;
    await toggle.click();
    await expect.poll(async () => (await accountsOf()).find((a) => a.id === google.id)?.allow_sign_in).toBe(!before);

    await section.getByRole('button', { name: 'Disconnect Google (ada.work@example.com)' }).click();
    await expect.poll(async () => (await accountsOf()).map((a) => a.type)).toEqual(['github']);
    // The page refetches the list after the server has answered: wait for it, as for the server above.
    await expect.poll(() => section.getByRole('button', { name: /Disconnect Google/ }).count()).toBe(0);
  });
});
