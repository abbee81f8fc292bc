import type { KyselyPlugin } from 'kysely';
import { describe, expect, it } from 'vitest';
import { type ProjectFixture, useHarness } from '../../test/harness.js';
import { addMember, defineTeamPermission, expectKnownError, expectStatus, grantTeamPermission, newTeam, newUser, tenancyOf } from '../../test/team-fixtures.js';
import * as q from './queries.js';
import { SYSTEM_TEAM_PERMISSIONS } from '../../../contract/schemas/permissions.js';

const h = useHarness();

const SYSTEM_IDS = Object.keys(SYSTEM_TEAM_PERMISSIONS);

async function define(project: ProjectFixture, scope: 'team' | 'project', id: string, contained: string[] = [], description?: string) {
  const res = await h.post(
    `/${scope}-permission-definitions`,
    { id, contained_permission_ids: contained, ...(description ? { description } : {}) },
    project.admin(),
  );
  expectStatus(res, 201);
  return res.body;
}

function ids(res: { body: { items: { id: string }[] } }): string[] {
  return res.body.items.map((item) => item.id).sort();
}

/** A Kysely plugin that counts the statements sent through it. */
function countingPlugin(): KyselyPlugin & { count: number } {
  const plugin = {
    count: 0,
    transformQuery(args: Parameters<KyselyPlugin['transformQuery']>[0]) {
      plugin.count++;
      return args.node;
    },
    async transformResult(args: Parameters<KyselyPlugin['transformResult']>[0]) {
      return args.result;
    },
  };
  return plugin;
}

describe('permission definitions (admin)', () => {
  it('creates, reads, lists, updates and deletes definitions in both scopes', async () => {
    const project = await h.createProject();
    const created = await define(project, 'project', 'read:docs', [], 'Read the docs');
    expect(created).toEqual({ id: 'read:docs', description: 'Read the docs', contained_permission_ids: [], is_system_permission: false });
    await define(project, 'project', 'edit:docs', ['read:docs']);
    const teamDef = await define(project, 'team', 'moderator', ['$remove_members', '$read_members']);
    expect(teamDef.contained_permission_ids).toEqual(['$read_members', '$remove_members']);

    const projectList = await h.get('/project-permission-definitions', project.admin());
    expectStatus(projectList, 200);
    expect(projectList.body).toEqual({
      is_paginated: false,
      items: [
        { id: 'edit:docs', description: null, contained_permission_ids: ['read:docs'], is_system_permission: false },
        { id: 'read:docs', description: 'Read the docs', contained_permission_ids: [], is_system_permission: false },
      ],
    });
    // The team scope lists the six system permissions first, then custom ones.
    const teamList = await h.get('/team-permission-definitions', project.server());
    expect(teamList.body.items.map((d: { id: string }) => d.id)).toEqual([...SYSTEM_IDS, 'moderator']);
    expect(teamList.body.items[0]).toMatchObject({ id: '$update_team', is_system_permission: true, contained_permission_ids: [] });

    expect((await h.get('/project-permission-definitions/edit:docs', project.admin())).body.contained_permission_ids).toEqual(['read:docs']);
    expect((await h.get('/team-permission-definitions/$invite_members', project.admin())).body).toMatchObject({
      id: '$invite_members',
      is_system_permission: true,
    });

    const updated = await h.patch('/project-permission-definitions/edit:docs', { description: 'Edit', contained_permission_ids: [] }, project.admin());
    expectStatus(updated, 200);
    expect(updated.body).toEqual({ id: 'edit:docs', description: 'Edit', contained_permission_ids: [], is_system_permission: false });

    expect((await h.del('/project-permission-definitions/edit:docs', project.admin())).body).toEqual({ success: true });
    expectKnownError(await h.get('/project-permission-definitions/edit:docs', project.admin()), 404, 'PERMISSION_NOT_FOUND');
  });

  it('enforces the id rules of spec section 5 with their exact messages', async () => {
    const project = await h.createProject();
    const cases: [string, string][] = [
      ['Read', 'Only lowercase letters, numbers, ":", "_" and optional "$" at the beginning are allowed'],
      ['read-docs', 'Only lowercase letters, numbers, ":", "_" and optional "$" at the beginning are allowed'],
      ['read$', 'Only lowercase letters, numbers, ":", "_" and optional "$" at the beginning are allowed'],
      ['$custom', 'Invalid system permission'],
      ['$update_team', 'Custom permission ids may not start with "$"; it marks system permissions'],
    ];
    for (const [id, message] of cases) {
      const res = await h.post('/team-permission-definitions', { id }, project.admin());
      expectKnownError(res, 400, 'SCHEMA_ERROR');
      expect(res.body.details.issues, id).toEqual([{ path: 'id', message }]);
    }
    // In the team scope the bare name of a system permission would be a look-alike that grants nothing.
    const lookAlike = await h.post('/team-permission-definitions', { id: 'update_team' }, project.admin());
    expect(lookAlike.body.details.issues[0].message).toBe('System permissions must start with a dollar sign');
    expectStatus(await h.post('/project-permission-definitions', { id: 'update_team' }, project.admin()), 201);
    // Contained ids and grants follow the same rules.
    const badContained = await h.post('/team-permission-definitions', { id: 'x', contained_permission_ids: ['$nope'] }, project.admin());
    expect(badContained.body.details.issues).toEqual([{ path: 'contained_permission_ids.0', message: 'Invalid system permission' }]);
    // Unknown properties are refused (strict bodies).
    expectKnownError(await h.post('/team-permission-definitions', { id: 'ok', scope: 'team' }, project.admin()), 400, 'SCHEMA_ERROR');
  });

  it('refuses a taken id in either scope, unknown or other-scope contained ids, and changes to system permissions', async () => {
    const project = await h.createProject();
    await define(project, 'project', 'billing');
    expectKnownError(await h.post('/project-permission-definitions', { id: 'billing' }, project.admin()), 400, 'PERMISSION_ID_ALREADY_EXISTS');
    expectKnownError(await h.post('/team-permission-definitions', { id: 'billing' }, project.admin()), 400, 'PERMISSION_ID_ALREADY_EXISTS');
    const missing = await h.post('/project-permission-definitions', { id: 'admin', contained_permission_ids: ['billing', 'nope'] }, project.admin());
    expectKnownError(missing, 400, 'CONTAINED_PERMISSION_NOT_FOUND');
    expect(missing.body.details).toEqual({ permission_id: 'nope' });
    // A project permission cannot contain a team permission, nor a system (team) permission.
    await define(project, 'team', 'team_admin');
    expectKnownError(
      await h.post('/project-permission-definitions', { id: 'admin', contained_permission_ids: ['team_admin'] }, project.admin()),
      400,
      'CONTAINED_PERMISSION_NOT_FOUND',
    );
    expectKnownError(
      await h.post('/project-permission-definitions', { id: 'admin', contained_permission_ids: ['$update_team'] }, project.admin()),
      400,
      'CONTAINED_PERMISSION_NOT_FOUND',
    );
    // The other scope's endpoints answer WRONG_PERMISSION_SCOPE.
    expectKnownError(await h.get('/team-permission-definitions/billing', project.admin()), 404, 'WRONG_PERMISSION_SCOPE');
    expectKnownError(await h.get('/project-permission-definitions/$update_team', project.admin()), 404, 'WRONG_PERMISSION_SCOPE');
    // System permissions are read-only.
    expectKnownError(await h.patch('/team-permission-definitions/$update_team', { description: 'x' }, project.admin()), 400, 'SCHEMA_ERROR');
    expectKnownError(await h.del('/team-permission-definitions/$update_team', project.admin()), 400, 'SCHEMA_ERROR');
    // Renaming onto a taken id.
    await define(project, 'project', 'other');
    expectKnownError(await h.patch('/project-permission-definitions/other', { id: 'billing' }, project.admin()), 400, 'PERMISSION_ID_ALREADY_EXISTS');
  });

  it('refuses every change that would make a cycle, and leaves the graph as it was', async () => {
    const project = await h.createProject();
    await define(project, 'team', 'a');
    await define(project, 'team', 'b', ['a']);
    await define(project, 'team', 'c', ['b']);
    await define(project, 'team', 'd', ['c']);
    const self = await h.patch('/team-permission-definitions/a', { contained_permission_ids: ['a'] }, project.admin());
    expectKnownError(self, 400, 'SCHEMA_ERROR');
    expect(self.body.error).toContain('cannot contain itself');
    expectKnownError(await h.post('/team-permission-definitions', { id: 'e', contained_permission_ids: ['e'] }, project.admin()), 400, 'SCHEMA_ERROR');
    const two = await h.patch('/team-permission-definitions/a', { contained_permission_ids: ['b'] }, project.admin());
    expectKnownError(two, 400, 'SCHEMA_ERROR');
    expect(two.body.details.issues).toEqual([{ path: 'contained_permission_ids', message: 'would make a cycle' }]);
    const long = await h.patch('/team-permission-definitions/a', { contained_permission_ids: ['$read_members', 'd'] }, project.admin());
    expectKnownError(long, 400, 'SCHEMA_ERROR');
    expect(long.body.error).toContain('"d" already contains "a"');
    // Nothing changed; a legal change still works.
    expect((await h.get('/team-permission-definitions/a', project.admin())).body.contained_permission_ids).toEqual([]);
    expectStatus(await h.patch('/team-permission-definitions/d', { contained_permission_ids: ['c', 'a', '$read_members'] }, project.admin()), 200);
  });

  it('refuses concurrent edits that would close a cycle together (one of them wins)', async () => {
    const project = await h.createProject();
    await define(project, 'project', 'x');
    await define(project, 'project', 'y');
    const [first, second] = await Promise.all([
      h.patch('/project-permission-definitions/x', { contained_permission_ids: ['y'] }, project.admin()),
      h.patch('/project-permission-definitions/y', { contained_permission_ids: ['x'] }, project.admin()),
    ]);
    expect([first.status, second.status].sort()).toEqual([200, 400]);
  });

  it('renames a definition together with its grants and the definitions that contain it', async () => {
    const project = await h.createProject();
    const user = await newUser(h, project);
    await define(project, 'project', 'old_name');
    await define(project, 'project', 'parent', ['old_name']);
    expectStatus(await h.post(`/project-permissions/${user.id}/old_name`, {}, project.server()), 201);
    const renamed = await h.patch('/project-permission-definitions/old_name', { id: 'new_name' }, project.admin());
    expect(renamed.body.id).toBe('new_name');
    expect((await h.get('/project-permission-definitions/parent', project.admin())).body.contained_permission_ids).toEqual(['new_name']);
    expect(ids(await h.get(`/project-permissions?user_id=${user.id}`, project.server()))).toEqual(['new_name']);
  });

  it('deletes a definition with its grants and its place in other definitions', async () => {
    const project = await h.createProject();
    const user = await newUser(h, project);
    const team = await newTeam(h, project, user);
    await defineTeamPermission(h, project, 'editor');
    await defineTeamPermission(h, project, 'lead', ['editor', '$update_team']);
    await grantTeamPermission(h, project, team.id, user.id, 'editor');
    expectStatus(await h.del('/team-permission-definitions/editor', project.admin()), 200);
    expect((await h.get('/team-permission-definitions/lead', project.admin())).body.contained_permission_ids).toEqual(['$update_team']);
    expect(ids(await h.get(`/team-permissions?team_id=${team.id}&user_id=${user.id}`, project.server()))).toEqual([]);
    // Re-creating the id does not bring the old grant back.
    await defineTeamPermission(h, project, 'editor');
    expect(ids(await h.get(`/team-permissions?team_id=${team.id}&user_id=${user.id}`, project.server()))).toEqual([]);
  });

  it('is admin-only for writes; clients cannot read definitions either', async () => {
    const project = await h.createProject();
    const user = await newUser(h, project);
    expectKnownError(await h.post('/team-permission-definitions', { id: 'x' }, project.server()), 401, 'INSUFFICIENT_ACCESS_TYPE');
    expectKnownError(await h.post('/project-permission-definitions', { id: 'x' }, user.client), 401, 'INSUFFICIENT_ACCESS_TYPE');
    expectKnownError(await h.get('/team-permission-definitions', user.client), 401, 'INSUFFICIENT_ACCESS_TYPE');
    expectStatus(await h.post('/project-permission-definitions', { id: 'x' }, project.ownerAdmin()), 201);
  });
});

describe('granting, revoking and listing', () => {
  it('grants team permissions to members only, and resolves contained permissions unless recursive=false', async () => {
    const project = await h.createProject();
    const member = await newUser(h, project);
    const outsider = await newUser(h, project);
    const team = await newTeam(h, project, member);
    await defineTeamPermission(h, project, 'read');
    await defineTeamPermission(h, project, 'write', ['read']);
    await defineTeamPermission(h, project, 'admin', ['write', '$update_team']);

    const granted = await h.post(`/team-permissions/${team.id}/${member.id}/admin`, {}, project.server());
    expectStatus(granted, 201);
    expect(granted.body).toEqual({ id: 'admin', team_id: team.id, user_id: member.id });
    // Granting twice is harmless.
    expectStatus(await h.post(`/team-permissions/${team.id}/${member.id}/admin`, {}, project.server()), 201);

    const recursive = await h.get(`/team-permissions?team_id=${team.id}&user_id=${member.id}`, project.server());
    expect(recursive.body.items).toContainEqual({ id: '$update_team', team_id: team.id, user_id: member.id });
    expect(ids(recursive)).toEqual(['$update_team', 'admin', 'read', 'write']);
    expect(ids(await h.get(`/team-permissions?team_id=${team.id}&user_id=${member.id}&recursive=false`, project.server()))).toEqual(['admin']);
    expect(ids(await h.get(`/team-permissions?team_id=${team.id}&user_id=${member.id}&recursive=true&permission_id=read`, project.server()))).toEqual(['read']);
    expect(ids(await h.get(`/team-permissions?team_id=${team.id}&user_id=${member.id}&recursive=false&permission_id=read`, project.server()))).toEqual([]);
    // The member sees their own; `me` works on the client.
    expect(ids(await h.get(`/team-permissions?team_id=${team.id}&user_id=me`, member.client))).toEqual(['$update_team', 'admin', 'read', 'write']);

    expectKnownError(await h.post(`/team-permissions/${team.id}/${outsider.id}/read`, {}, project.server()), 404, 'TEAM_MEMBERSHIP_NOT_FOUND');
    expectKnownError(await h.post(`/team-permissions/${team.id}/${member.id}/nope`, {}, project.server()), 404, 'PERMISSION_NOT_FOUND');
    expectKnownError(await h.post(`/team-permissions/00000000-0000-4000-8000-000000000000/${member.id}/read`, {}, project.server()), 404, 'TEAM_NOT_FOUND');

    expectStatus(await h.del(`/team-permissions/${team.id}/${member.id}/admin`, project.server()), 200);
    expect(ids(await h.get(`/team-permissions?team_id=${team.id}&user_id=${member.id}`, project.server()))).toEqual([]);
  });

  it("grants, lists and revokes project permissions; each scope refuses the other's ids", async () => {
    const project = await h.createProject();
    const user = await newUser(h, project);
    const team = await newTeam(h, project, user);
    await define(project, 'project', 'view');
    await define(project, 'project', 'manage', ['view']);
    await defineTeamPermission(h, project, 'team_only');

    expect((await h.post(`/project-permissions/${user.id}/manage`, {}, project.server())).body).toEqual({ id: 'manage', user_id: user.id });
    expect(ids(await h.get(`/project-permissions?user_id=${user.id}`, project.server()))).toEqual(['manage', 'view']);
    expect(ids(await h.get(`/project-permissions?user_id=${user.id}&recursive=false`, project.server()))).toEqual(['manage']);
    expect(ids(await h.get('/project-permissions', user.client))).toEqual(['manage', 'view']);

    expectKnownError(await h.post(`/project-permissions/${user.id}/team_only`, {}, project.server()), 404, 'WRONG_PERMISSION_SCOPE');
    expectKnownError(await h.post(`/project-permissions/${user.id}/$update_team`, {}, project.server()), 404, 'WRONG_PERMISSION_SCOPE');
    expectKnownError(await h.post(`/team-permissions/${team.id}/${user.id}/view`, {}, project.server()), 404, 'WRONG_PERMISSION_SCOPE');
    expectKnownError(await h.post(`/project-permissions/${user.id}/unknown`, {}, project.server()), 404, 'PERMISSION_NOT_FOUND');
    expectKnownError(await h.post('/project-permissions/00000000-0000-4000-8000-000000000000/view', {}, project.server()), 404, 'USER_NOT_FOUND');
    expectKnownError(await h.post(`/project-permissions/${user.id}/Bad-Id`, {}, project.server()), 400, 'SCHEMA_ERROR');

    expectStatus(await h.del(`/project-permissions/${user.id}/manage`, project.server()), 200);
    expect(ids(await h.get(`/project-permissions?user_id=${user.id}`, project.server()))).toEqual([]);
  });

  it('requires a project permission: the grant when held (directly or contained), else 401 PROJECT_PERMISSION_REQUIRED', async () => {
    const project = await h.createProject();
    const user = await newUser(h, project);
    const other = await newUser(h, project);
    await define(project, 'project', 'view');
    await define(project, 'project', 'manage', ['view']);
    await define(project, 'project', 'audit');
    expectStatus(await h.post(`/project-permissions/${user.id}/manage`, {}, project.server()), 201);

    // Server: held directly, held through a containing permission, and lacking.
    expect((await h.get(`/project-permissions/${user.id}/manage`, project.server())).body).toEqual({ id: 'manage', user_id: user.id });
    expect((await h.get(`/project-permissions/${user.id}/view`, project.server())).body).toEqual({ id: 'view', user_id: user.id });
    const lacking = await h.get(`/project-permissions/${user.id}/audit`, project.server());
    expectKnownError(lacking, 401, 'PROJECT_PERMISSION_REQUIRED');
    expect(lacking.body.details).toEqual({ user_id: user.id, permission_id: 'audit' });
    expectKnownError(await h.get(`/project-permissions/${other.id}/view`, project.server()), 401, 'PROJECT_PERMISSION_REQUIRED');
    // A typo is not a missing grant; an unknown user is not either.
    expectKnownError(await h.get(`/project-permissions/${user.id}/unknown`, project.server()), 404, 'PERMISSION_NOT_FOUND');
    expectKnownError(await h.get('/project-permissions/00000000-0000-4000-8000-000000000000/view', project.server()), 404, 'USER_NOT_FOUND');
    // Wrong types: a user id that is no uuid, a permission id outside the identifier syntax.
    expectKnownError(await h.get('/project-permissions/not-a-uuid/view', project.server()), 400, 'SCHEMA_ERROR');
    expectKnownError(await h.get(`/project-permissions/${user.id}/Bad-Id`, project.server()), 400, 'SCHEMA_ERROR');

    // Client: its own only (me or its id); another user's reads as not found.
    expect((await h.get('/project-permissions/me/view', user.client)).body).toEqual({ id: 'view', user_id: user.id });
    expectKnownError(await h.get(`/project-permissions/${user.id}/audit`, user.client), 401, 'PROJECT_PERMISSION_REQUIRED');
    expectKnownError(await h.get('/project-permissions/me/view', other.client), 401, 'PROJECT_PERMISSION_REQUIRED');
    expectKnownError(await h.get(`/project-permissions/${user.id}/view`, other.client), 404, 'USER_NOT_FOUND');

    // Revoked: required again.
    expectStatus(await h.del(`/project-permissions/${user.id}/manage`, project.server()), 200);
    expectKnownError(await h.get('/project-permissions/me/view', user.client), 401, 'PROJECT_PERMISSION_REQUIRED');
    // Another project's credentials cannot check this project's user.
    const elsewhere = await h.createProject();
    expectKnownError(await h.get(`/project-permissions/${user.id}/view`, elsewhere.server()), 404, 'USER_NOT_FOUND');
  });

  it('resolves a chain nested 10 deep in a single SQL statement', async () => {
    const project = await h.createProject();
    const user = await newUser(h, project);
    const team = await newTeam(h, project, user);
    // level_10 is the leaf; level_0 contains level_1 contains … level_10.
    for (let level = 10; level >= 0; level--) await define(project, 'project', `level_${level}`, level < 10 ? [`level_${level + 1}`] : []);
    for (let level = 10; level >= 0; level--)
      await defineTeamPermission(h, project, `t_level_${level}`, level < 10 ? [`t_level_${level + 1}`] : ['$invite_members']);
    expectStatus(await h.post(`/project-permissions/${user.id}/level_0`, {}, project.server()), 201);
    await grantTeamPermission(h, project, team.id, user.id, 't_level_0');

    const rest = await h.get(`/project-permissions?user_id=${user.id}&permission_id=level_10`, project.server());
    expect(rest.body.items).toEqual([{ id: 'level_10', user_id: user.id }]);
    expect(ids(await h.get(`/project-permissions?user_id=${user.id}`, project.server()))).toHaveLength(11);

    const tenancy = await tenancyOf(h, project.id);
    const counter = countingPlugin();
    const db = h.latch.deps.db.withPlugin(counter);
    const projectRows = await q.listProjectPermissions(db, tenancy.id, { userId: user.id, permissionId: null, recursive: true });
    expect(projectRows.map((r) => r.id).sort()).toEqual(Array.from({ length: 11 }, (_, i) => `level_${i}`).sort());
    const teamRows = await q.listTeamPermissions(db, tenancy.id, { teamId: team.id, userId: user.id, permissionId: '$invite_members', recursive: true });
    expect(teamRows).toEqual([{ team_id: team.id, user_id: user.id, id: '$invite_members' }]);
    const access = await q.findTeamAccess(db, tenancy.id, team.id, user.id, '00000000-0000-4000-8000-000000000000', '$invite_members');
    expect(access).toMatchObject({ is_member: true, has_permission: true });
    expect(counter.count).toBe(3);
  });

  it('does not let a client grant, revoke or read permissions beyond its own', async () => {
    const project = await h.createProject({ config: { client_team_creation_enabled: true } });
    const user = await newUser(h, project);
    const other = await newUser(h, project);
    await define(project, 'project', 'superpower');
    const created = await h.post('/teams', { display_name: 'Mine' }, user.client);
    expectStatus(created, 201);
    const teamId = created.body.id;
    // Even in a team it created, a client cannot hand itself permissions.
    expectKnownError(await h.post(`/team-permissions/${teamId}/me/$update_team`, {}, user.client), 401, 'INSUFFICIENT_ACCESS_TYPE');
    expectKnownError(await h.post(`/team-permissions/${teamId}/${user.id}/$delete_team`, {}, user.client), 401, 'INSUFFICIENT_ACCESS_TYPE');
    expectKnownError(await h.post(`/project-permissions/${user.id}/superpower`, {}, user.client), 401, 'INSUFFICIENT_ACCESS_TYPE');
    expectKnownError(
      await h.post('/project-permission-definitions', { id: 'mine', contained_permission_ids: ['superpower'] }, user.client),
      401,
      'INSUFFICIENT_ACCESS_TYPE',
    );
    expectKnownError(await h.patch('/project-permission-definitions/superpower', { description: 'x' }, user.client), 401, 'INSUFFICIENT_ACCESS_TYPE');
    expectKnownError(await h.del(`/project-permissions/${other.id}/superpower`, user.client), 401, 'INSUFFICIENT_ACCESS_TYPE');
    // Nor read someone else's.
    expectStatus(await h.post(`/project-permissions/${other.id}/superpower`, {}, project.server()), 201);
    expectKnownError(await h.get(`/project-permissions?user_id=${other.id}`, user.client), 404, 'USER_NOT_FOUND');
    expectKnownError(await h.get(`/team-permissions?user_id=${other.id}`, user.client), 404, 'USER_NOT_FOUND');
    expect(ids(await h.get('/project-permissions', user.client))).toEqual([]);
    // And the team operations stay closed.
    expectKnownError(await h.patch(`/teams/${teamId}`, { display_name: 'Renamed' }, user.client), 401, 'TEAM_PERMISSION_REQUIRED');
  });
});

describe('default permissions', () => {
  it('grants user_default_permissions at sign-up and on server-created users, skipping undefined ids', async () => {
    const project = await h.createProject({ config: { user_default_permissions: [{ id: 'member' }, { id: 'not_defined_yet' }] } });
    await define(project, 'project', 'read_only');
    await define(project, 'project', 'member', ['read_only']);

    const signedUp = await h.signUpUser(project);
    expect(ids(await h.get('/project-permissions', project.client(signedUp.accessToken)))).toEqual(['member', 'read_only']);
    const created = await newUser(h, project);
    expect(ids(await h.get(`/project-permissions?user_id=${created.id}&recursive=false`, project.server()))).toEqual(['member']);
  });

  it('grants team_creator_default_permissions to creators and team_member_default_permissions to joiners', async () => {
    const project = await h.createProject({
      config: {
        client_team_creation_enabled: true,
        team_creator_default_permissions: [{ id: '$update_team' }, { id: '$delete_team' }, { id: 'owner' }],
        team_member_default_permissions: [{ id: '$read_members' }],
      },
    });
    await defineTeamPermission(h, project, 'owner');
    const creator = await newUser(h, project);
    const joiner = await newUser(h, project);
    const created = await h.post('/teams', { display_name: 'Defaults' }, creator.client);
    await addMember(h, project, created.body.id, { ...joiner });
    expect(ids(await h.get(`/team-permissions?team_id=${created.body.id}`, creator.client))).toEqual(['$delete_team', '$update_team', 'owner']);
    expect(ids(await h.get(`/team-permissions?team_id=${created.body.id}`, joiner.client))).toEqual(['$read_members']);
  });
});

describe('tenant isolation', () => {
  it("never lets project B's credentials see or change project A's definitions, grants or teams", async () => {
    const [a, b] = await Promise.all([h.createProject(), h.createProject()]);
    const userA = await newUser(h, a);
    const userB = await newUser(h, b);
    const teamA = await newTeam(h, a, userA);
    await define(a, 'project', 'a_secret');
    await defineTeamPermission(h, a, 'a_team_perm');

    expect((await h.get('/project-permission-definitions', b.admin())).body.items).toEqual([]);
    expect((await h.get('/team-permission-definitions', b.admin())).body.items.map((d: { id: string }) => d.id)).toEqual(SYSTEM_IDS);
    expectKnownError(await h.get('/project-permission-definitions/a_secret', b.admin()), 404, 'PERMISSION_NOT_FOUND');
    expectKnownError(await h.patch('/project-permission-definitions/a_secret', { description: 'pwned' }, b.admin()), 404, 'PERMISSION_NOT_FOUND');
    expectKnownError(await h.del('/team-permission-definitions/a_team_perm', b.admin()), 404, 'PERMISSION_NOT_FOUND');
    expectKnownError(await h.post(`/project-permissions/${userB.id}/a_secret`, {}, b.server()), 404, 'PERMISSION_NOT_FOUND');
    expectKnownError(await h.post(`/project-permissions/${userA.id}/a_secret`, {}, b.server()), 404, 'PERMISSION_NOT_FOUND');
    expectKnownError(await h.post(`/team-permissions/${teamA.id}/${userA.id}/$update_team`, {}, b.server()), 404, 'TEAM_NOT_FOUND');
    // B may define the same id for itself without clashing with A.
    await define(b, 'project', 'a_secret');
    expectStatus(await h.post(`/project-permissions/${userA.id}/a_secret`, {}, b.server()), 404);
    expect((await h.get('/project-permissions', b.server())).body.items).toEqual([]);
    expect((await h.get('/team-permissions', b.server())).body.items).toEqual([]);
    // A is untouched.
    expect((await h.get('/project-permission-definitions/a_secret', a.admin())).body.description).toBeNull();
  });
});
