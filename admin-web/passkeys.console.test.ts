import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, type ProjectFixture, startHarness } from '../server/test/harness.js';
import { type TestBrowser, launchBrowser } from '../server/test/browser.js';
import { createCredential } from '../server/test/soft-authenticator.js';
import { buildAdminIfStale } from './build.js';

/**
 * The console's side of passkeys, in headless Chromium against a real server: the project's
 * passkey switch really turns the four /auth/passkey/* calls on and off, and a user's page lists
 * their passkeys (name, host, added, last used) and removes one. The passkey itself is made by a
 * software authenticator over HTTP (server/test/soft-authenticator.ts).
 */

const OWNER_PASSWORD = 'owner-password-1';
let h: Harness;
let browser: TestBrowser;

beforeAll(async () => {
  await buildAdminIfStale();
  [h, browser] = await Promise.all([startHarness(), launchBrowser()]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

async function ownerOn(project: ProjectFixture, pagePath: string): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${h.url}/projects/${project.id}/${pagePath}`);
  await page.getByLabel('Email').fill(project.owner.email);
  await page.getByLabel('Password').fill(OWNER_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  return page;
}

describe('passkeys in the console', { timeout: 90_000 }, () => {
  it('the passkey switch turns passkeys on and off; a user page lists their passkeys and removes one', async () => {
    const owner = await h.signUpOwner();
    const project = await h.createProject({ owner, displayName: 'Console passkeys' });
    const start = () => h.post('/auth/passkey/initiate-passkey-authentication', {}, project.client());
    expect((await start()).body.code).toBe('PASSKEY_AUTHENTICATION_NOT_ENABLED');

    const page = await ownerOn(project, 'auth-methods');
    await page.getByRole('switch', { name: 'Passkeys' }).check();
    await expect.poll(async () => (await start()).status).toBe(200);

    // A user adds a passkey (from http://localhost, which the project allows by default).
    const user = await h.signUpUser(project);
    const started = await h.post('/auth/passkey/initiate-passkey-registration', {}, project.client(user.accessToken));
    const { response } = createCredential(started.body.options_json, { origin: 'http://localhost:3000' });
    const added = await h.post(
      '/auth/passkey/register',
      { credential: response, code: started.body.code, name: 'Office key' },
      project.client(user.accessToken),
    );
    expect(added.status).toBe(200);

    await page.goto(`${h.url}/projects/${project.id}/users/${user.userId}`);
    const table = page.getByRole('table', { name: 'Passkeys' });
    await table.getByText('Office key').waitFor();
    await table.getByText('localhost', { exact: true }).waitFor();
    await browser.screenshot(page, 'admin-web', 'user-passkeys');
    await table.getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await page.getByText('No passkeys').waitFor();
    expect((await h.get(`/passkeys?user_id=${user.userId}`, project.server())).body.items).toEqual([]);
    expect((await h.get(`/users/${user.userId}`, project.server())).body.passkey_auth_enabled).toBe(false);

    // Off again: every passkey call is refused.
    await page.goto(`${h.url}/projects/${project.id}/auth-methods`);
    await page.getByRole('switch', { name: 'Passkeys' }).uncheck();
    await expect.poll(async () => (await start()).body.code).toBe('PASSKEY_AUTHENTICATION_NOT_ENABLED');
    await page.context().close();
  });
});
