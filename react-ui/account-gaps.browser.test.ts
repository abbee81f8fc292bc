import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ServerApp } from '../sdk/index.js';
import { openAppPage, useUiSuite } from './test/suite.js';

/**
 * Issue 20 item 6 in Chromium: a wrong current password is named on its field, no form shows an
 * error and "saved" at once or a red border on a field that was edited, and a team's API keys are
 * listed, created and revoked by a member holding $manage_api_keys.
 */
const ui = useUiSuite();
const field = (page: Page, name: string) => page.getByRole('textbox', { name, exact: true });

describe('account settings gaps', () => {
  it('names a wrong current password, keeps no contradictory state, and manages team API keys', async () => {
    const project = await ui.h.createProject({ displayName: 'Acme keys', defaultTeamRoles: true, config: { allow_team_api_keys: true } });
    const server = new ServerApp({ projectId: project.id, secretServerKey: project.secretServerKey, baseUrl: ui.h.url });
    const user = await ui.h.signUpUser(project);
    const team = await server.createTeam({ display_name: 'Key team', creator_user_id: user.userId });
    const { page, context } = await openAppPage(ui, project, { timeoutMs: 15_000 });
    await page.goto(`${ui.host.url}/handler/sign-in?after_auth_return_to=%2Fhandler%2Faccount-settings`);
    await field(page, 'Email').fill(user.email);
    await field(page, 'Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL('**/handler/account-settings');

    // Display name saved, then an invalid one: the old "saved" goes; editing clears the red border.
    const profile = page.getByRole('form', { name: 'Display name' });
    await profile.getByLabel('Display name').fill('Ann');
    await profile.getByRole('button', { name: 'Save' }).click();
    await profile.getByText('Display name saved.').waitFor();
    await profile.getByLabel('Display name').fill('x'.repeat(300));
    await profile.getByRole('button', { name: 'Save' }).click();
    await profile.locator('.latch-field-error').waitFor();
    expect(await profile.getByText('Display name saved.').count()).toBe(0);
    await profile.getByLabel('Display name').fill('Ann B');
    expect(await profile.getByLabel('Display name').getAttribute('aria-invalid')).toBeNull();

    // Wrong current password: said on the field, no "Passwords do not match." alert.
    const password = page.getByRole('form', { name: 'Change password' });
    await password.getByLabel('Current password').fill('not-the-password');
    await password.getByLabel('New password', { exact: true }).fill('brand-new-password-1');
    await password.getByLabel('Repeat new password').fill('brand-new-password-1');
    await password.getByRole('button', { name: 'Change password' }).click();
    await password.getByText('Your current password is not correct.').waitFor();
    expect(await password.getByText('Passwords do not match.').count()).toBe(0);
    await password.getByLabel('Current password').fill(user.password);
    expect(await password.getByLabel('Current password').getAttribute('aria-invalid')).toBeNull();
    await password.getByRole('button', { name: 'Change password' }).click();
    await password.getByText('Password changed.', { exact: false }).waitFor();
    expect(await password.getByRole('alert').count()).toBe(0);

    // Team API keys: create (shown once), listed, revoked — checked through the API.
    await page.getByRole('button', { name: 'Manage Key team' }).click();
    const region = page.getByRole('region', { name: 'Manage Key team' });
    const keys = region.getByRole('form', { name: 'Create a team API key' });
    await keys.getByRole('button', { name: 'Create team key' }).click();
    await keys.getByText('Please describe what the key is for.').waitFor();
    await keys.getByLabel('Team key description').fill('CI deploys');
    await keys.getByRole('button', { name: 'Create team key' }).click();
    const secret = await region.getByRole('textbox', { name: 'New team API key' }).inputValue();
    expect((await server.checkTeamApiKey(secret))?.team_id).toBe(team.id);
    await region.getByRole('list', { name: 'Team API keys' }).getByText('CI deploys').waitFor();
    await region.getByRole('button', { name: 'Revoke CI deploys' }).click();
    await expect.poll(async () => server.checkTeamApiKey(secret), { timeout: 15_000 }).toBeNull();
    await context.close();
  }, 180_000);
});
