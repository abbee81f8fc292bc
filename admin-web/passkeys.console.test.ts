import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { ProjectFixture } from '../server/test/harness.js';
import { createCredential } from '../server/test/soft-authenticator.js';
import { signInOwner, useConsoleSuite } from './test/console-suite.js';

/**
 * The console's side of passkeys, in headless Chromium against a real server: the project's
 * passkey switch really turns the four /auth/passkey/* calls on and off, and a user's page lists
 * their passkeys (name, host, added, last used) and removes one. The passkey itself is made by a
 * software authenticator over HTTP (server/test/soft-authenticator.ts).
 */

const suite = useConsoleSuite();

async function ownerOn(project: ProjectFixture, pagePath: string): Promise<Page> {
  const { page } = await suite.newPage({ timeoutMs: 10_000 });
  await signInOwner(suite, page, `/projects/${project.id}/${pagePath}`, project.owner.email);
  return page;
}

describe('passkeys in the console', { timeout: 90_000 }, () => {
  it('the passkey switch turns passkeys on and off; a user page lists their passkeys and removes one', async () => {
    const owner = await suite.h.signUpOwner();
    const project = await suite.h.createProject({ owner, displayName: 'Console passkeys' });
    const start = () => suite.h.post('/auth/passkey/initiate-passkey-authentication', {}, project.client());
    expect((await start()).body.code).toBe('PASSKEY_AUTHENTICATION_NOT_ENABLED');

    const page = await ownerOn(project, 'auth-methods');
    await page.getByRole('switch', { name: 'Passkeys' }).check();
    await expect.poll(async () => (await start()).status).toBe(200);

    // A user adds a passkey (from http://localhost, which the project allows by default).
    const user = await suite.h.signUpUser(project);
    const started = await suite.h.post('/auth/passkey/initiate-passkey-registration', {}, project.client(user.accessToken));
    const { response } = createCredential(started.body.options_json, { origin: 'http://localhost:3000' });
    const added = await suite.h.post(
      '/auth/passkey/register',
      { credential: response, code: started.body.code, name: 'Office key' },
      project.client(user.accessToken),
    );
    expect(added.status).toBe(200);

    await page.goto(`${suite.h.url}/projects/${project.id}/users/${user.userId}`);
    const table = page.getByRole('table', { name: 'Passkeys' });
    await table.getByText('Office key').waitFor();
    await table.getByText('localhost', { exact: true }).waitFor();
    await suite.browser.screenshot(page, 'admin-web', 'user-passkeys');
    await table.getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await page.getByText('No passkeys').waitFor();
    expect((await suite.h.get(`/passkeys?user_id=${user.userId}`, project.server())).body.items).toEqual([]);
    expect((await suite.h.get(`/users/${user.userId}`, project.server())).body.passkey_auth_enabled).toBe(false);

    // Off again: every passkey call is refused.
    await page.goto(`${suite.h.url}/projects/${project.id}/auth-methods`);
    await page.getByRole('switch', { name: 'Passkeys' }).uncheck();
    await expect.poll(async () => (await start()).body.code).toBe('PASSKEY_AUTHENTICATION_NOT_ENABLED');
    await page.context().close();
  });
});
