import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import type { ProjectFixture } from '../server/test/harness.js';
import { type SmtpSink, startSmtpSink } from '../server/test/smtp-sink.js';
import { ServerApp } from '../sdk/index.js';
import { axeViolations, openAppPage, useUiSuite } from './test/suite.js';

/**
 * The UI kit in real headless Chromium against a real Latch server: the example app (built once
 * with Vite) signs up, verifies the email through the SMTP sink, signs out and in, returns to
 * `after_auth_return_to`, resets a password, switches teams and edits account settings. Every
 * page is kept as a screenshot under test-artifacts/react-ui/, and the forms are checked for
 * accessibility (axe-core, labels, roles and Tab order).
 */

const SUITE = 'react-ui';
const PASSWORD = 'correct-horse-battery';

let sink: SmtpSink;
// Registered first, so it runs last (after hooks run in reverse): the server goes before its sink.
afterAll(() => sink?.close());
const ui = useUiSuite(async () => {
  sink = await startSmtpSink();
  return { email: { smtpUrl: sink.url, from: 'noreply@latch.test', perProjectPerHour: 1000, pollIntervalMs: 25 } };
});

const FULL_CONFIG = {
  magic_link_enabled: true,
  client_team_creation_enabled: true,
  client_user_deletion_enabled: true,
  allow_user_api_keys: true,
};

/** A project and a browser context whose pages run the example app against it. */
async function setup(
  config: Record<string, unknown> = FULL_CONFIG,
  redirectMethod: 'window' | 'history' = 'history',
): Promise<{ project: ProjectFixture; context: BrowserContext; page: Page; server: ServerApp }> {
  const project = await ui.h.createProject({ config, displayName: 'Acme notes' });
  const { context, page } = await openAppPage(ui, project, { timeoutMs: 8000, redirectMethod });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const server = new ServerApp({ projectId: project.id, secretServerKey: project.secretServerKey, baseUrl: ui.h.url });
  return { project, context, page, server };
}

const shot = (page: Page, name: string) => ui.browser.screenshot(page, SUITE, name);
const path = (page: Page) => new URL(page.url()).pathname + new URL(page.url()).search;
/** An input by its label (forms have accessible names too, so getByLabel alone can match a form). */
const field = (page: Page, name: string) => page.getByRole('textbox', { name, exact: true });
const emailField = (page: Page) => field(page, 'Email');

async function signInThroughForm(page: Page, email: string, password: string) {
  await emailField(page).fill(email);
  await field(page, 'Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

describe('sign-up, email verification, sign-out, sign-in', () => {
  it('a visitor of a protected page signs up, confirms the email from the SMTP sink and lands back on that page', async () => {
    const { page, context } = await setup();
    await page.goto(`${ui.host.url}/protected?tab=notes`);
    // useUser({ or: 'redirect' }) sends the visitor to sign-in, carrying the page.
    await page.waitForURL('**/handler/sign-in?after_auth_return_to=*');
    expect(path(page)).toBe('/handler/sign-in?after_auth_return_to=%2Fprotected%3Ftab%3Dnotes');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await shot(page, 'sign-in');

    await page.getByRole('link', { name: 'Sign up' }).click();
    await page.waitForURL('**/handler/sign-up?after_auth_return_to=%2Fprotected%3Ftab%3Dnotes');
    // A client-side page change puts focus on the new page's title (the clicked link is gone).
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Create an account');
    await shot(page, 'sign-up');

    // Field validation with the spec's messages, before anything is sent.
    await emailField(page).fill('.ann@example.com');
    await field(page, 'Password').fill(PASSWORD);
    await field(page, 'Repeat password').fill(`${PASSWORD}-typo`);
    await page.getByRole('button', { name: 'Sign up', exact: true }).click();
    await expect.poll(() => page.locator('.latch-field-error').allInnerTexts()).toEqual(['Please enter a valid email address.', 'Passwords do not match.']);
    await expect(field(page, 'Repeat password').getAttribute('aria-invalid')).resolves.toBe('true');
    await shot(page, 'sign-up-validation');

    // The server's own refusal shows as an alert.
    await emailField(page).fill(ui.h.uniqueEmail('ann'));
    await field(page, 'Password').fill('short');
    await field(page, 'Repeat password').fill('short');
    await page.getByRole('button', { name: 'Sign up', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toBe('Password too short. Minimum length is 8.');

    const email = ui.h.uniqueEmail('ann');
    await emailField(page).fill(email);
    await field(page, 'Password').fill(PASSWORD);
    await field(page, 'Repeat password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign up', exact: true }).click();
    await page.waitForURL('**/protected?tab=notes');
    await expect.poll(() => page.getByTestId('protected').innerText()).toContain(email);
    await shot(page, 'after-sign-up');

    // The verification email links to the handler, and carries the return location too.
    const mail = await sink.waitForTo(email);
    expect(mail.link).toMatch(new RegExp(`^${ui.host.url}/handler/email-verification\\?after_auth_return_to=%2Fprotected%3Ftab%3Dnotes&code=`));
    const started = Date.now();
    await page.goto(mail.link!);
    await expect.poll(() => page.getByRole('status').first().innerText()).toContain('Your email is verified');
    await shot(page, 'email-verification');
    // After the spec's 2000 ms redirect wait, back where the visitor started.
    await page.waitForURL('**/protected?tab=notes');
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);

    await page.goto(`${ui.host.url}/`);
    await expect.poll(() => page.getByTestId('greeting').innerText()).toContain('verified)');
    // A second visit of the same link says why it no longer works.
    await page.goto(mail.link!);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe('Verify your email');
    await context.close();
  });

  it('signs out from the user button, then signs in again and returns to after_auth_return_to', async () => {
    const { page, context, project } = await setup();
    const user = await ui.h.signUpUser(project);
    await page.goto(`${ui.host.url}/handler/sign-in`);
    await signInThroughForm(page, user.email, 'wrong-password-1');
    await expect.poll(() => page.getByRole('alert').innerText()).toBe('Wrong e-mail or password.');
    await shot(page, 'sign-in-wrong-password');
    await signInThroughForm(page, user.email, user.password);
    // No after_auth_return_to: after-sign-in, which defaults to home.
    await page.waitForURL(`${ui.host.url}/`);
    await expect.poll(() => page.getByTestId('greeting').innerText()).toContain(user.email);

    // The user button's menu, by keyboard.
    const button = page.getByRole('button', { name: /\(account menu\)$/ });
    await button.focus();
    await page.keyboard.press('ArrowDown');
    const menu = page.getByRole('menu');
    await menu.waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Account settings');
    await page.keyboard.press('Escape');
    await expect.poll(() => menu.count()).toBe(0);
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-haspopup'))).toBe('menu');
    await button.click();
    await shot(page, 'user-button-menu');
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    // after-sign-out defaults to home.
    await page.waitForURL(`${ui.host.url}/`);
    await expect.poll(() => page.getByRole('main').innerText()).toContain('You are signed out.');
    const cookies = await context.cookies(ui.host.url);
    expect(cookies.filter((cookie) => cookie.name.startsWith('latch-'))).toEqual([]);

    await page.goto(`${ui.host.url}/protected`);
    await page.waitForURL('**/handler/sign-in?after_auth_return_to=%2Fprotected');
    await signInThroughForm(page, user.email, user.password);
    await page.waitForURL('**/protected');
    await expect.poll(() => page.getByTestId('protected').innerText()).toContain(user.email);

    // An absolute after_auth_return_to is never followed.
    await page.goto(`${ui.host.url}/handler/sign-out`);
    await page.waitForURL(`${ui.host.url}/`);
    await page.goto(`${ui.host.url}/handler/sign-in?after_auth_return_to=${encodeURIComponent('https://evil.example/')}`);
    await signInThroughForm(page, user.email, user.password);
    await page.waitForURL(`${ui.host.url}/`);
    await context.close();
  });
});

// The real multi-factor flow (enrolment in account settings, the mfa page) is react-ui/mfa.browser.test.ts.

describe('redirect method window (the default)', () => {
  it('signs in and out with full page loads, still returning to after_auth_return_to', async () => {
    const { page, context, project } = await setup(FULL_CONFIG, 'window');
    const user = await ui.h.signUpUser(project);
    await page.goto(`${ui.host.url}/protected`);
    await page.waitForURL('**/handler/sign-in?after_auth_return_to=%2Fprotected');
    // A marker that survives client-side navigation but not a page load.
    await page.evaluate(() => ((window as unknown as { marker: boolean }).marker = true));
    await signInThroughForm(page, user.email, user.password);
    await page.waitForURL('**/protected');
    await expect.poll(() => page.getByTestId('protected').innerText()).toContain(user.email);
    expect(await page.evaluate(() => (window as unknown as { marker?: boolean }).marker)).toBeUndefined();
    await page.goto(`${ui.host.url}/handler/sign-out`);
    await page.waitForURL(`${ui.host.url}/`);
    await expect.poll(() => page.getByRole('main').innerText()).toContain('You are signed out.');
    await context.close();
  });
});

describe('password reset', () => {
  it('forgot password → the emailed link → a new password (twice) → sign in with it', async () => {
    const { page, context, project } = await setup();
    const user = await ui.h.signUpUser(project);
    await page.goto(`${ui.host.url}/handler/sign-in`);
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.waitForURL('**/handler/forgot-password');
    await emailField(page).fill(user.email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await expect.poll(() => page.getByRole('status').innerText()).toContain('a link to reset its password is on its way');
    await shot(page, 'forgot-password-sent');

    const mail = await sink.waitForTo(user.email);
    expect(mail.link).toMatch(new RegExp(`^${ui.host.url}/handler/password-reset\\?code=`));
    await page.goto(mail.link!);
    await field(page, 'New password').fill('a-brand-new-password');
    await field(page, 'Repeat new password').fill('a-different-password');
    await page.getByRole('button', { name: 'Reset password' }).click();
    await expect.poll(() => page.locator('.latch-field-error').allInnerTexts()).toEqual(['Passwords do not match.']);
    await shot(page, 'password-reset');
    await field(page, 'Repeat new password').fill('a-brand-new-password');
    await page.getByRole('button', { name: 'Reset password' }).click();
    await expect.poll(() => page.getByRole('status').innerText()).toContain('Your password is reset');
    await shot(page, 'password-reset-done');
    await page.waitForURL('**/handler/sign-in');

    await signInThroughForm(page, user.email, user.password);
    await expect.poll(() => page.getByRole('alert').innerText()).toBe('Wrong e-mail or password.');
    await signInThroughForm(page, user.email, 'a-brand-new-password');
    await page.waitForURL(`${ui.host.url}/`);

    // The used link now explains itself.
    await page.goto(mail.link!);
    await expect.poll(() => page.getByRole('alert').innerText()).toMatch(/already been used|already used/i);
    await context.close();
  });
});

describe('magic link and one-time code', () => {
  it('a new address signs up with the typed code; a second email signs in through the link', async () => {
    const { page, context } = await setup();
    const email = ui.h.uniqueEmail('magic');
    await page.goto(`${ui.host.url}/handler/sign-up`);
    await page.getByRole('tab', { name: 'Email link or code' }).click();
    await emailField(page).fill(email);
    await page.getByRole('button', { name: 'Email me a link' }).click();
    const mail = await sink.waitForTo(email);
    const code = /\b([A-Z0-9]{6})\b/.exec(mail.text)?.[1];
    expect(code).toBeTruthy();
    await field(page, 'Code').fill(code!);
    await shot(page, 'one-time-code');
    await page.getByRole('button', { name: 'Sign up', exact: true }).click();
    await page.waitForURL(`${ui.host.url}/`);
    await expect.poll(() => page.getByTestId('greeting').innerText()).toContain(email);

    await page.goto(`${ui.host.url}/handler/sign-out`);
    await page.waitForURL(`${ui.host.url}/`);
    await page.goto(`${ui.host.url}/handler/sign-in?after_auth_return_to=%2Fprotected`);
    await page.getByRole('tab', { name: 'Email link or code' }).click();
    await emailField(page).fill(email);
    await page.getByRole('button', { name: 'Email me a link' }).click();
    const second = await sink.waitFor((m) => m.to.includes(email) && m !== mail);
    expect(second.link).toMatch(new RegExp(`^${ui.host.url}/handler/magic-link-callback\\?after_auth_return_to=%2Fprotected&code=`));
    await page.goto(second.link!);
    await page.waitForURL('**/protected');
    await expect.poll(() => page.getByTestId('protected').innerText()).toContain(email);
    await context.close();
  });
});

describe('account settings, user button and team switcher', () => {
  it('a new display name shows in the user button and the page at once; emails, teams, API keys and sessions', async () => {
    const { page, context, project, server } = await setup();
    const user = await ui.h.signUpUser(project);
    // A second session (another device) to revoke, and two teams to switch between.
    await server.createSession({ user_id: user.userId });
    const red = await server.createTeam({ display_name: 'Red team', creator_user_id: user.userId });
    await server.createTeam({ display_name: 'Blue team', creator_user_id: user.userId });

    await page.goto(`${ui.host.url}/handler/sign-in`);
    await signInThroughForm(page, user.email, user.password);
    await page.waitForURL(`${ui.host.url}/`);

    // Team switcher: a labelled select; choosing a team selects it on the server.
    const switcher = page.getByRole('combobox', { name: 'Team' });
    await switcher.selectOption({ label: 'Red team' });
    await expect
      .poll(
        async () =>
          (await server.getUser({ or: 'return-null', tokenStore: { accessToken: user.accessToken, refreshToken: user.refreshToken } }))?.selected_team_id,
      )
      .toBe(red.id);
    await expect.poll(() => switcher.inputValue()).toBe(red.id);
    await shot(page, 'team-switcher');

    await page.getByRole('button', { name: /\(account menu\)$/ }).click();
    await page.getByRole('menuitem', { name: 'Account settings' }).click();
    await page.waitForURL('**/handler/account-settings');
    await page.getByRole('heading', { name: 'Profile' }).waitFor();
    await shot(page, 'account-settings');

    // Display name: the field's validation, then a save that shows everywhere without a reload.
    const nameField = field(page, 'Display name');
    await nameField.fill('x'.repeat(257));
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => page.locator('.latch-field-error').allInnerTexts()).toEqual(['Display name must be at most 256 characters.']);
    await nameField.fill('Ann Example');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => page.getByText('Display name saved.').count()).toBe(1);
    const stored = await server.getUserById(user.userId);
    expect(stored?.display_name).toBe('Ann Example');
    // The host's header above the settings shows it at once, without a reload or navigation.
    await expect.poll(() => page.getByRole('button', { name: 'Ann Example (account menu)' }).count()).toBe(1);
    // Back home by client-side navigation: the page reads the same cache.
    await page.getByRole('link', { name: '← Back to the app' }).click();
    await page.waitForURL(`${ui.host.url}/`);
    await expect.poll(() => page.getByTestId('display-name').innerText()).toBe('Ann Example');
    await page.goBack();
    await page.getByRole('heading', { name: 'Emails' }).waitFor();

    // Profile image: square and under 100 KB, checked before upload; the header's avatar shows it at once.
    const png = async (width: number, height: number) =>
      Buffer.from(
        await page.evaluate(
          ([w, h]) => {
            const canvas = document.createElement('canvas');
            canvas.width = w!;
            canvas.height = h!;
            const context2d = canvas.getContext('2d')!;
            context2d.fillStyle = '#0f766e';
            context2d.fillRect(0, 0, w!, h!);
            return canvas.toDataURL('image/png').split(',')[1]!;
          },
          [width, height],
        ),
        'base64',
      );
    const upload = page.getByLabel('Upload image');
    await upload.setInputFiles({ name: 'wide.png', mimeType: 'image/png', buffer: await png(40, 30) });
    await expect.poll(() => page.getByRole('alert').innerText()).toBe('The image must be square.');
    await upload.setInputFiles({ name: 'big.png', mimeType: 'image/png', buffer: Buffer.alloc(100 * 1024, 1) });
    await expect.poll(() => page.getByRole('alert').innerText()).toBe('The image must be under 100 KB.');
    await upload.setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: await png(40, 40) });
    await expect.poll(() => page.getByText('Profile image saved.').count()).toBe(1);
    expect((await ui.h.get(`/users/${user.userId}`, project.server())).body.profile_image_url).toMatch(/^data:image\/png;base64,/);
    await expect.poll(() => page.getByRole('banner').locator('img.latch-avatar').count()).toBe(1);

    // Emails: add one; it is unverified until its emailed link is followed.
    const extra = ui.h.uniqueEmail('work');
    await field(page, 'Add an email').fill(extra);
    await page.getByRole('button', { name: 'Add email' }).click();
    await expect.poll(() => page.getByText(`Added ${extra}. We sent it a verification link.`).count()).toBe(1);
    await expect.poll(() => page.getByRole('listitem').filter({ hasText: extra }).innerText()).toContain('Unverified');
    expect((await sink.waitForTo(extra)).link).toMatch(/\/handler\/email-verification\?code=/);

    // Teams: create one (it becomes the selected team).
    await field(page, 'New team name').fill('Green team');
    await page.getByRole('button', { name: 'Create team' }).click();
    await expect.poll(() => page.getByRole('listitem').filter({ hasText: 'Green team' }).innerText()).toContain('Selected');
    expect((await server.listTeams({ userId: user.userId })).map((team) => team.display_name).sort()).toEqual(['Blue team', 'Green team', 'Red team']);

    // API keys: the full key once, then only its last four characters.
    await field(page, 'Key description').fill('CI script');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = await field(page, 'New API key').inputValue();
    expect(secret.length).toBeGreaterThan(20);
    await expect.poll(() => page.getByRole('listitem').filter({ hasText: 'CI script' }).innerText()).toContain(`…${secret.slice(-4)}`);
    expect(await server.checkUserApiKey(secret)).not.toBeNull();

    // Sessions: this device plus the other one, which we revoke.
    const sessionItems = page.getByRole('listitem').filter({ hasText: 'Signed in' });
    // Three: the harness's sign-up, the server-made one, and this browser's (the only one without Revoke).
    await expect.poll(() => sessionItems.count()).toBe(3);
    expect(await sessionItems.filter({ hasText: 'This device' }).getByRole('button', { name: 'Revoke' }).count()).toBe(0);
    await sessionItems.getByRole('button', { name: 'Revoke' }).first().click();
    await expect.poll(() => sessionItems.count()).toBe(2);
    await sessionItems.getByRole('button', { name: 'Revoke' }).first().click();
    await expect.poll(() => sessionItems.count()).toBe(1);
    expect(await server.listSessions({ userId: user.userId })).toHaveLength(1);
    await shot(page, 'account-settings-edited');

    // Password: the confirmation must match; the old password must be right.
    await field(page, 'Current password').fill(user.password);
    await field(page, 'New password').fill('another-password-1');
    await field(page, 'Repeat new password').fill('another-password-2');
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => page.locator('.latch-field-error').allInnerTexts()).toEqual(['Passwords do not match.']);
    await field(page, 'Repeat new password').fill('another-password-1');
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => page.getByText('Password changed.', { exact: false }).count()).toBe(1);

    // Delete account (the project allows it): confirm, then the user is gone and signed out.
    await page.getByRole('button', { name: 'Delete account' }).click();
    await page.getByRole('button', { name: 'Yes, delete my account' }).click();
    await page.waitForURL(`${ui.host.url}/`);
    // And it stays there: the settings page, now without a user, must not send it on to sign-in.
    await page.waitForTimeout(500);
    expect(path(page)).toBe('/');
    await expect.poll(() => page.getByRole('main').innerText()).toContain('You are signed out.');
    // Straight to the server (the ServerApp's cache still holds the user it read earlier).
    expect((await ui.h.get(`/users/${user.userId}`, project.server())).status).toBe(404);
    await context.close();
  });
});

describe('team invitation', () => {
  it('a signed-out invitee signs in from the emailed link, comes back, joins, and the team is selected', async () => {
    const { page, context, project, server } = await setup();
    const owner = await ui.h.signUpUser(project);
    const invitee = await ui.h.signUpUser(project);
    const team = await server.createTeam({ display_name: 'Design crew', creator_user_id: owner.userId });
    await server.inviteUser(team.id, { email: invitee.email, callback_url: `${ui.host.url}/handler/team-invitation` });
    const mail = await sink.waitForTo(invitee.email);
    expect(mail.link).toMatch(new RegExp(`^${ui.host.url}/handler/team-invitation\\?code=`));

    await page.goto(mail.link!);
    await expect.poll(() => page.getByRole('main').innerText()).toContain('You are invited to join Design crew.');
    await shot(page, 'team-invitation-signed-out');
    await page.getByRole('main').getByRole('link', { name: 'Sign in' }).click();
    await page.waitForURL('**/handler/sign-in?after_auth_return_to=*');
    await signInThroughForm(page, invitee.email, invitee.password);
    await page.waitForURL('**/handler/team-invitation?code=*');
    await page.getByRole('button', { name: 'Join Design crew' }).click();
    await expect.poll(() => page.getByRole('status').first().innerText()).toContain('You joined Design crew.');
    await shot(page, 'team-invitation-joined');
    // The header's team switcher shows the joined team as selected, from the same cache.
    await expect.poll(() => page.getByRole('combobox', { name: 'Team' }).inputValue()).toBe(team.id);
    expect((await server.listTeams({ userId: invitee.userId })).map((t) => t.id)).toEqual([team.id]);
    // Then home, after the redirect wait.
    await page.waitForURL(`${ui.host.url}/`);
    await context.close();
  });
});

describe('what the project enables', () => {
  it('shows only enabled methods, says when sign-up is off, and the routes of later features say they are not enabled', async () => {
    const { page, context } = await setup({ sign_up_enabled: false, magic_link_enabled: false });
    await page.goto(`${ui.host.url}/handler/sign-in`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.getByRole('tab').count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Sign up' }).count()).toBe(0);
    await page.goto(`${ui.host.url}/handler/sign-up`);
    await expect.poll(() => page.getByRole('status').innerText()).toBe('Sign-up is not enabled for this project.');
    // A callback this browser did not start (no state cookie): a clear message, nothing exchanged.
    await page.goto(`${ui.host.url}/handler/oauth-callback?code=x&state=y`);
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('This sign-in cannot be completed here');
    await shot(page, 'oauth-callback');
    for (const [route, text] of [['mfa', 'No sign-in is waiting for a second factor. Sign in first.']] as const) {
      await page.goto(`${ui.host.url}/handler/${route}`);
      await expect.poll(() => page.getByRole('status').innerText()).toBe(text);
      await shot(page, route.split('?')[0]!);
    }
    await page.goto(`${ui.host.url}/handler/error?error_code=SOME_CODE&message=call+this+number`);
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('SOME_CODE');
    expect(await page.getByRole('alert').innerText()).not.toContain('call this number');
    await shot(page, 'error');
    await page.goto(`${ui.host.url}/handler/nope`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe('Page not found');
    await page.goto(`${ui.host.url}/handler/email-verification`);
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('This link is incomplete');
    await context.close();
  });

  it('follows the dark colour scheme', async () => {
    const { page, context } = await setup();
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${ui.host.url}/handler/sign-in`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const background = await page.locator('.latch-card').evaluate((card) => getComputedStyle(card).backgroundColor);
    expect(background).toBe('rgb(24, 24, 27)');
    await shot(page, 'sign-in-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await page.locator('.latch-card').evaluate((card) => getComputedStyle(card).backgroundColor)).toBe('rgb(255, 255, 255)');
    await context.close();
  });
});

describe('accessibility', () => {
  it('the forms pass axe, every input has a label, and Tab moves through them in reading order', async () => {
    const { page, context, project } = await setup();
    for (const route of ['sign-in', 'sign-up', 'forgot-password']) {
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.goto(`${ui.host.url}/handler/${route}`);
        await page.getByRole('heading', { level: 1 }).waitFor();
        expect(await axeViolations(page), `${route} (${scheme})`).toEqual([]);
      }
      // Every input is reachable by its accessible name.
      const unlabelled = await page.evaluate(
        () =>
          [...document.querySelectorAll('input, select, textarea')].filter(
            (input) => !(input as HTMLInputElement).labels?.length && !input.getAttribute('aria-label'),
          ).length,
      );
      expect(unlabelled, route).toBe(0);
    }
    await page.emulateMedia({ colorScheme: 'light' });

    // Sign-in: the method tabs (arrow keys switch), then the fields, the button and the links.
    await page.goto(`${ui.host.url}/handler/sign-in`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const order: string[] = [];
    // Start from the card (the host's header comes first in the page; its order is the host's).
    await page.locator('.latch-card').evaluate((card) => {
      card.setAttribute('tabindex', '-1');
      (card as HTMLElement).focus();
    });
    for (let i = 0; i < 7; i++) {
      await page.keyboard.press('Tab');
      order.push(
        await page.evaluate(() => {
          const el = document.activeElement as HTMLElement | null;
          if (!el) return '';
          const label = (el as HTMLInputElement).labels?.[0]?.textContent ?? el.querySelector('.latch-sr-only')?.textContent;
          return `${el.getAttribute('role') ?? el.tagName.toLowerCase()}:${label ?? el.textContent ?? ''}`;
        }),
      );
    }
    expect(order).toEqual([
      'tab:Email & password',
      'input:Email',
      'input:Password',
      'button:Show password',
      'button:Sign in',
      'a:Forgot password?',
      'a:Sign up',
    ]);
    // The show-password toggle: a pressed state, and the field turns to plain text and back.
    const toggle = page.getByRole('button', { name: 'Show password' });
    await toggle.press('Enter');
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    expect(await page.locator('input[name="password"]').getAttribute('type')).toBe('text');
    await toggle.press('Space');
    expect(await page.locator('input[name="password"]').getAttribute('type')).toBe('password');
    await page.getByRole('tab', { name: 'Email & password' }).focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.getByRole('tab', { name: 'Email link or code' }).getAttribute('aria-selected')).toBe('true');
    expect(await page.getByRole('tabpanel').getByRole('button', { name: 'Email me a link' }).count()).toBe(1);

    // Errors are announced (role alert) and tied to their field.
    await page.getByRole('tab', { name: 'Email & password' }).click();
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const email = emailField(page);
    expect(await email.getAttribute('aria-invalid')).toBe('true');
    const describedBy = await email.getAttribute('aria-describedby');
    expect(await page.locator(`[id="${describedBy}"]`).innerText()).toBe('Please enter your email address.');

    // Account settings, signed in.
    const user = await ui.h.signUpUser(project);
    await signInThroughForm(page, user.email, user.password);
    await page.waitForURL(`${ui.host.url}/`);
    await page.getByTestId('greeting').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.goto(`${ui.host.url}/handler/account-settings`);
    await page.getByRole('heading', { name: 'Profile' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await context.close();
    // Six pages × two schemes × axe: ~20 s quiet, past vitest's 30 s default on a loaded machine.
  }, 90_000);
});

describe('impersonation', () => {
  it('the impersonate page signs in with the single-use code, the banner shows on every page of this tab only, and ends it', async () => {
    const { page, context, project, server } = await setup();
    const user = await ui.h.signUpUser(project);
    // What the console does: a code from the admin (here the server) key, opened in a new tab.
    const { code } = await server.createImpersonationCode(user.userId);
    await page.goto(`${ui.host.url}/handler/impersonate?code=${encodeURIComponent(code)}`);
    const banner = page.getByRole('status', { name: 'Impersonation' });
    await expect.poll(() => banner.innerText(), { timeout: 10_000 }).toContain(`You are impersonating ${user.email}`);
    // After-sign-in (home) with the banner still there.
    await page.waitForURL(`${ui.host.url}/`);
    await expect.poll(() => page.getByTestId('greeting').innerText()).toContain(user.email);
    expect(await banner.count()).toBe(1);
    await shot(page, 'impersonation-banner');
    const sessions = await server.listSessions({ userId: user.userId });
    expect(sessions.filter((session) => session.is_impersonation)).toHaveLength(1);

    // Another tab of the same app shares the session (cookies) but is not marked: no banner there.
    const other = await context.newPage();
    await other.goto(`${ui.host.url}/`);
    await expect.poll(() => other.getByTestId('greeting').innerText()).toContain(user.email);
    expect(await other.getByRole('status', { name: 'Impersonation' }).count()).toBe(0);
    await other.close();

    // The same link again: used.
    const again = await context.newPage();
    await again.goto(`${ui.host.url}/handler/impersonate?code=${encodeURIComponent(code)}`);
    await expect.poll(() => again.getByRole('alert').innerText()).toContain('Impersonation links work once, for 60 seconds');
    await again.close();

    await banner.getByRole('button', { name: 'End impersonation' }).click();
    await expect.poll(() => page.getByRole('main').innerText()).toContain('You are signed out.');
    expect(await banner.count()).toBe(0);
    // Signed out on the server too (read over HTTP: the ServerApp's cached list is from before).
    const after = await ui.h.get(`/auth/sessions?user_id=${user.userId}`, project.server());
    expect(after.body.items.filter((session: { is_impersonation: boolean }) => session.is_impersonation)).toHaveLength(0);
    await context.close();
  });
});
