import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { totpClock, totpCode } from '../server/crypto/totp.js';
import type { ProjectFixture } from '../server/test/harness.js';
import { base32ToBase64 } from '../sdk/test/totp-secret.js';
import { openAppPage, useUiSuite } from './test/suite.js';

/**
 * Issue 16, item 5, in real headless Chromium against a real Latch server: a user turns on
 * two-factor authentication in account settings (the QR code drawn in the page, a code from the
 * "authenticator" confirming it, the recovery codes shown once), then signs in again: the password
 * form goes to the mfa page, which takes a TOTP code or a recovery code and returns to
 * after_auth_return_to; a used recovery code shows in account settings. The TOTP clock is fixed
 * (the server runs in this process).
 */

const SUITE = 'react-ui';
let now = 30_000 * 63_333_400;
totpClock.now = () => now;

const ui = useUiSuite();

async function newPage(project: ProjectFixture): Promise<{ context: BrowserContext; page: Page }> {
  return openAppPage(ui, project, { timeoutMs: 8000 });
}

const shot = (page: Page, name: string) => ui.browser.screenshot(page, SUITE, name);
const field = (page: Page, name: string) => page.getByRole('textbox', { name, exact: true });

async function signIn(page: Page, email: string, password: string) {
  await field(page, 'Email').fill(email);
  await field(page, 'Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

describe('two-factor authentication in the UI kit', () => {
  it('is set up in account settings, then asked for by the mfa page (TOTP or recovery code)', async () => {
    const project = await ui.h.createProject({ displayName: 'Acme notes' });
    const user = await ui.h.signUpUser(project);

    // Enrolment, in account settings.
    const first = await newPage(project);
    let page = first.page;
    await page.goto(`${ui.host.url}/handler/sign-in?after_auth_return_to=%2Fhandler%2Faccount-settings`);
    await signIn(page, user.email, user.password);
    await page.waitForURL('**/handler/account-settings');
    await page.getByRole('button', { name: 'Set up two-factor authentication' }).click();
    const qr = page.getByRole('img', { name: 'QR code for your authenticator app' });
    await qr.waitFor();
    // Drawn in the page: an inline SVG, no request to an image service.
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml/);
    const secret = base32ToBase64((await page.locator('form[aria-label="Confirm two-factor authentication"] code').innerText()).trim());
    await shot(page, 'mfa-enrolment');
    await field(page, 'Code from the app').fill('000000');
    await page.getByRole('button', { name: 'Turn on' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toBe('The TOTP code is invalid. Please try again.');
    await field(page, 'Code from the app').fill(await totpCode(secret));
    await page.getByRole('button', { name: 'Turn on' }).click();
    const list = page.getByRole('list', { name: 'Recovery codes' });
    await list.waitFor();
    await expect.poll(() => list.getByRole('listitem').count()).toBe(10);
    const codes = await list.getByRole('listitem').allInnerTexts();
    await shot(page, 'mfa-recovery-codes');
    // An async failure nobody handles (here the clipboard refusing) shows the provider's alert
    // (spec section 8: unhandled async errors show an alert), which the user can dismiss.
    await page.evaluate(() => {
      Object.defineProperty(navigator.clipboard, 'writeText', { configurable: true, value: () => Promise.reject(new Error('Clipboard access denied')) });
    });
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    const unhandled = page.locator('.latch-unhandled-alert');
    await expect.poll(() => unhandled.innerText(), { timeout: 10_000 }).toContain('An unhandled error occurred: Clipboard access denied');
    expect(await unhandled.getAttribute('role')).toBe('alert');
    await unhandled.getByRole('button', { name: 'Dismiss' }).click();
    await expect.poll(() => unhandled.count(), { timeout: 10_000 }).toBe(0);
    await page.getByRole('button', { name: 'I saved them' }).click();
    await expect.poll(() => page.getByTestId('recovery-codes-left').innerText()).toBe('10 of 10 recovery codes left.');
    expect((await ui.h.get(`/users/${user.userId}`, project.server())).body.requires_totp_mfa).toBe(true);
    await first.context.close();
    now += 30_000;

    // Sign-in: the password goes to the mfa page, which keeps after_auth_return_to.
    const second = await newPage(project);
    page = second.page;
    await page.goto(`${ui.host.url}/handler/sign-in?after_auth_return_to=%2Fprotected`);
    await signIn(page, user.email, user.password);
    await page.waitForURL('**/handler/mfa?after_auth_return_to=%2Fprotected');
    const stored = await page.evaluate(() => Object.entries(sessionStorage));
    expect(stored.map(([key]) => key)).toEqual([`latch:${project.id}:mfa_attempt_code`]);
    await page.getByRole('heading', { name: 'Two-factor authentication' }).waitFor();
    await shot(page, 'mfa');
    await field(page, 'Authentication code').fill('123');
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect.poll(() => page.locator('.latch-field-error').innerText()).toBe('Enter the 6-digit code from your authenticator app.');
    await field(page, 'Authentication code').fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toBe('The TOTP code is invalid. Please try again.');
    await field(page, 'Authentication code').fill(await totpCode(secret));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(`${ui.host.url}/protected`);
    expect(await page.evaluate(() => Object.keys(sessionStorage))).toEqual([]);
    await second.context.close();

    // A recovery code instead; its use shows in account settings.
    const third = await newPage(project);
    page = third.page;
    await page.goto(`${ui.host.url}/handler/sign-in?after_auth_return_to=%2Fhandler%2Faccount-settings`);
    await signIn(page, user.email, user.password);
    await page.waitForURL('**/handler/mfa?**');
    await page.getByRole('button', { name: 'Use a recovery code' }).click();
    await field(page, 'Recovery code').fill(codes[0]!);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL('**/handler/account-settings');
    await expect.poll(() => page.getByTestId('recovery-codes-left').innerText()).toMatch(/^9 of 10 recovery codes left\. A recovery code was last used /);
    await shot(page, 'mfa-recovery-code-used');
    await third.context.close();
  });
});
