import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ServerApp } from '../sdk/index.js';
import { openAppPage, useUiSuite } from './test/suite.js';

/**
 * Team management in account settings, in Chromium: what a team's admin and a plain member each
 * see and can do, on a project with the console's default team roles (team_admin for a team's
 * creator, team_member for later members).
 */
const ui = useUiSuite();
const field = (page: Page, name: string) => page.getByRole('textbox', { name, exact: true });

async function signInToSettings(page: Page, email: string, password: string) {
  await page.goto(`${ui.host.url}/handler/sign-in?after_auth_return_to=%2Fhandler%2Faccount-settings`);
  await field(page, 'Email').fill(email);
  await field(page, 'Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL('**/handler/account-settings');
}

describe('team management in the UI kit', () => {
  it('an admin renames, invites and removes; a member reads the members but is offered nothing it may not do', async () => {
    const project = await ui.h.createProject({ displayName: 'Acme notes', defaultTeamRoles: true });
    const server = new ServerApp({ projectId: project.id, secretServerKey: project.secretServerKey, baseUrl: ui.h.url });
    const admin = await ui.h.signUpUser(project);
    const member = await ui.h.signUpUser(project);
    const leaver = await ui.h.signUpUser(project);
    const team = await server.createTeam({ display_name: 'Red team', creator_user_id: admin.userId });
    await server.addTeamMember(team.id, member.userId);
    await server.addTeamMember(team.id, leaver.userId);

    const asAdmin = await openAppPage(ui, project, { timeoutMs: 10_000 });
    let page = asAdmin.page;
    await signInToSettings(page, admin.email, admin.password);
    await page.getByRole('button', { name: 'Manage Red team' }).click();
    let region = page.getByRole('region', { name: 'Manage Red team' });
    await region.waitFor();
    await expect.poll(() => region.getByRole('list', { name: 'Your permissions' }).innerText(), { timeout: 10_000 }).toContain('$remove_members');
    // Rename.
    const settings = region.getByRole('form', { name: 'Team settings' });
    await settings.getByRole('textbox', { name: 'Team name' }).fill('Blue team');
    await settings.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(async () => (await server.getTeam(team.id))?.display_name, { timeout: 10_000 }).toBe('Blue team');
    // The page follows the new name at once.
    region = page.getByRole('region', { name: 'Manage Blue team' });
    await region.waitFor();
    // Invite.
    const invitee = ui.h.uniqueEmail('invitee');
    await region.getByRole('textbox', { name: 'Email to invite' }).fill(invitee);
    await region.getByRole('button', { name: 'Send invitation' }).click();
    await region.getByRole('list', { name: 'Pending invitations' }).getByText(invitee).waitFor();
    // Remove a member.
    const members = region.getByRole('list', { name: 'Members' });
    await expect.poll(() => members.getByRole('listitem').count(), { timeout: 10_000 }).toBe(3);
    await members
      .getByRole('button', { name: /^Remove / })
      .first()
      .click();
    await expect.poll(async () => (await server.listTeamUsers(team.id)).length, { timeout: 10_000 }).toBe(2);
    await asAdmin.context.close();

    const asMember = await openAppPage(ui, project, { timeoutMs: 10_000 });
    page = asMember.page;
    const remaining = (await server.listTeamUsers(team.id)).map((u) => u.user_id);
    const stillMember = remaining.includes(member.userId) ? member : leaver;
    await signInToSettings(page, stillMember.email, stillMember.password);
    await page.getByRole('button', { name: 'Manage Blue team' }).click();
    const memberRegion = page.getByRole('region', { name: 'Manage Blue team' });
    await memberRegion.getByRole('list', { name: 'Members' }).waitFor();
    // team_member: reads the members and invites; no rename form, no remove or delete buttons.
    expect(await memberRegion.getByRole('form', { name: 'Team settings' }).count()).toBe(0);
    expect(await memberRegion.getByRole('button', { name: /^Remove / }).count()).toBe(0);
    expect(await memberRegion.getByRole('button', { name: 'Delete team' }).count()).toBe(0);
    expect(await memberRegion.getByRole('form', { name: 'Invite a member' }).count()).toBe(1);
    await asMember.context.close();
  }, 180_000);
});
