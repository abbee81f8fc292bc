import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { totpClock, totpCode } from '../server/crypto/totp.js';
import { secretOfOtpauthUri } from '../sdk/test/totp-secret.js';
import { signInOwner, useConsoleSuite } from './test/console-suite.js';

/**
 * Issue 16, item 6, in real headless Chromium: a user's page in the console shows their TOTP MFA
 * and recovery-code use, and the owner resets it only after typing the user's email. What the page
 * claims is checked through the API. The TOTP clock is fixed (the server runs in this process).
 */

let now = 30_000 * 63_333_500;
totpClock.now = () => now;

const suite = useConsoleSuite();

async function ownerPage(path: string, ownerEmail: string): Promise<Page> {
  const { page } = await suite.newPage();
  await signInOwner(suite, page, path, ownerEmail);
  return page;
}

describe('console: a user with MFA', { timeout: 90_000 }, () => {
  it('asks an owner with TOTP for the code after the password: a wrong code is refused, the right one signs in', async () => {
    const owner = await suite.h.signUpOwner();
    const client = suite.h.internalClient(owner.accessToken);
    const started = await suite.h.post('/users/me/mfa/totp/enroll', {}, client);
    const secret = secretOfOtpauthUri(started.body.otpauth_uri);
    expect((await suite.h.post('/users/me/mfa/totp/confirm', { totp: await totpCode(secret) }, client)).status).toBe(200);
    now += 30_000; // a fresh time step: the confirmation's code is spent

    const { page } = await suite.newPage();
    await signInOwner(suite, page, '/projects', owner.email, { until: page.getByRole('heading', { name: 'Two-factor authentication' }) });
    await page.getByLabel('Code').fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByText('Could not sign in').waitFor();
    await page.getByLabel('Code').fill(await totpCode(secret));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  });

  it('shows TOTP on and the recovery-code use, and resets it after the owner types the email', async () => {
    const project = await suite.h.createProject({ displayName: 'Console MFA' });
    const user = await suite.h.signUpUser(project);
    const client = project.client(user.accessToken);
    const started = await suite.h.post('/users/me/mfa/totp/enroll', {}, client);
    const confirmed = await suite.h.post('/users/me/mfa/totp/confirm', { totp: await totpCode(secretOfOtpauthUri(started.body.otpauth_uri)) }, client);
    expect(confirmed.status).toBe(200);
    // A sign-in with a recovery code: the use the console must show.
    const gated = await suite.h.post('/auth/password/sign-in', { email: user.email, password: user.password }, project.client());
    const recovered = await suite.h.post(
      '/auth/mfa/sign-in',
      { type: 'recovery_code', recovery_code: confirmed.body.recovery_codes[0], code: gated.body.details.attempt_code },
      project.client(),
    );
    expect(recovered.status).toBe(200);
    now += 30_000;

    const page = await ownerPage(`/projects/${project.id}/users/${user.userId}`, project.owner.email);
    const card = page.getByRole('region', { name: 'Two-factor authentication' });
    await card.getByText('TOTP on').waitFor();
    await expect.poll(() => card.getByTestId('mfa-recovery-codes').innerText()).toMatch(/^9 of 10 recovery codes left; one was last used .+\.$/);
    await suite.browser.screenshot(page, 'admin-web', 'user-mfa');

    await card.getByRole('button', { name: 'Reset two-factor authentication' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reset two-factor authentication?' });
    const reset = dialog.getByRole('button', { name: 'Reset' });
    expect(await reset.isDisabled()).toBe(true);
    await dialog.getByLabel('Type the email to confirm').fill('someone-else@example.com');
    expect(await reset.isDisabled()).toBe(true);
    // Nothing was reset by the wrong confirmation.
    expect((await suite.h.get(`/users/${user.userId}/mfa`, project.server())).body.requires_totp_mfa).toBe(true);
    await suite.browser.screenshot(page, 'admin-web', 'user-mfa-reset-confirm');
    await dialog.getByLabel('Type the email to confirm').fill(user.email);
    await reset.click();
    await page.getByText('Two-factor authentication was reset.').waitFor();
    await card.getByText('off', { exact: true }).waitFor();
    expect((await suite.h.get(`/users/${user.userId}/mfa`, project.server())).body).toMatchObject({ requires_totp_mfa: false, recovery_codes_total: 0 });
    // The password alone signs in again.
    expect((await suite.h.post('/auth/password/sign-in', { email: user.email, password: user.password }, project.client())).status).toBe(200);
  });
});
