import { describe, expect, it } from 'vitest';
import { useHarness } from '../../test/harness.js';
import { isForeignKeyViolation } from '../../db/errors.js';
import { effectiveConfig } from '../../../contract/config/project-config.js';
import { deleteTeam } from './service.js';
import { addMember, defineTeamPermission, expectKnownError, expectStatus, grantTeamPermission, newTeam, newUser, tenancyOf } from '../../test/team-fixtures.js';

const h = useHarness();

const NO_SUCH_TEAM = '00000000-0000-4000-8000-000000000000';

describe('creating teams', () => {
  it('lets a client create a team only when client_team_creation_enabled', async () => {
    const closed = await h.createProject();
    const user = await newUser(h, closed);
    expectKnownError(await h.post('/teams', { display_name: 'Nope' }, user.client), 401, 'INSUFFICIENT_ACCESS_TYPE');
    expect((await h.get('/teams', closed.server())).body.items).toEqual([]);

    const open = await h.createProject({ config: { client_team_creation_enabled: true } });
    const creator = await newUser(h, open);
    const res = await h.post('/teams', { display_name: 'Rocket', client_metadata: { color: 'red' } }, creator.client);
    expectStatus(res, 201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      display_name: 'Rocket',
      profile_image_url: null,
      client_metadata: { color: 'red' },
      client_read_only_metadata: null,
      created_at_millis: expect.any(Number),
    });
    // The creator is a member and the new team is their selected team.
    const me = await h.get('/users/me', creator.client);
    expect(me.body.selected_team_id).toBe(res.body.id);
    expect((await h.get(`/users?team_id=${res.body.id}`, open.server())).body.items.map((u: { id: string }) => u.id)).toEqual([creator.id]);
    expect((await h.get('/teams?user_id=me', creator.client)).body.items.map((t: { id: string }) => t.id)).toEqual([res.body.id]);
  });

  it('refuses server-only fields, unknown fields and bad values from clients', async () => {
    const project = await h.createProject({ config: { client_team_creation_enabled: true } });
    const user = await newUser(h, project);
    const serverOnly = await h.post('/teams', { display_name: 'X', server_metadata: { a: 1 } }, user.client);
    expectKnownError(serverOnly, 400, 'SCHEMA_ERROR');
    expect(serverOnly.body.details.issues).toEqual([{ path: 'server_metadata', message: 'can only be set with server access' }]);
    expectKnownError(await h.post('/teams', { display_name: 'X', owner: 'me' }, user.client), 400, 'SCHEMA_ERROR');
    expectKnownError(await h.post('/teams', {}, user.client), 400, 'SCHEMA_ERROR');
    expectKnownError(await h.post('/teams', { display_name: 'x'.repeat(257) }, user.client), 400, 'SCHEMA_ERROR');
    const other = await newUser(h, project);
    expectKnownError(await h.post('/teams', { display_name: 'X', creator_user_id: other.id }, user.client), 404, 'USER_NOT_FOUND');
    expectKnownError(await h.post('/teams', { display_name: 'X' }, project.client()), 401, 'USER_AUTHENTICATION_REQUIRED');
  });

  it('lets the server create teams with all three metadata fields, with or without a creator', async () => {
    const project = await h.createProject();
    const user = await newUser(h, project);
    const res = await h.post(
      '/teams',
      {
        display_name: 'Server team',
        profile_image_url: 'https://example.com/logo.png',
        client_metadata: { a: 1 },
        client_read_only_metadata: { plan: 'pro' },
        server_metadata: { stripe: 'cus_1' },
        creator_user_id: user.id,
      },
      project.server(),
    );
    expectStatus(res, 201);
    expect(res.body).toMatchObject({ client_metadata: { a: 1 }, client_read_only_metadata: { plan: 'pro' }, server_metadata: { stripe: 'cus_1' } });
    // The same visibility rules as users: clients never see server_metadata.
    const asClient = await h.get(`/teams/${res.body.id}`, user.client);
    expect(asClient.body).toMatchObject({ client_metadata: { a: 1 }, client_read_only_metadata: { plan: 'pro' } });
    expect(asClient.body).not.toHaveProperty('server_metadata');
    expect((await h.get(`/teams/${res.body.id}`, project.server())).body.server_metadata).toEqual({ stripe: 'cus_1' });

    const empty = await newTeam(h, project);
    expect((await h.get(`/users?team_id=${empty.id}`, project.server())).body.items).toEqual([]);
    expectKnownError(await h.post('/teams', { display_name: 'X', creator_user_id: NO_SUCH_TEAM }, project.server()), 404, 'USER_NOT_FOUND');
  });

  it('creates a personal team at sign-up with create_team_on_sign_up', async () => {
    const project = await h.createProject({ config: { create_team_on_sign_up: true, team_creator_default_permissions: [{ id: '$update_team' }] } });
    const session = await h.signUpUser(project);
    const me = await h.get('/users/me', project.client(session.accessToken));
    expect(me.body.selected_team_id).toEqual(expect.any(String));
    const teams = await h.get('/teams', project.client(session.accessToken));
    expect(teams.body.items).toHaveLength(1);
    expect(teams.body.items[0]).toMatchObject({ id: me.body.selected_team_id, display_name: `${session.email}'s team` });
    expect(
      (await h.get(`/team-permissions?team_id=${me.body.selected_team_id}`, project.client(session.accessToken))).body.items.map((p: { id: string }) => p.id),
    ).toEqual(['$update_team']);
  });
});

describe('reading, updating and deleting teams', () => {
  it('shows clients only the teams they are in', async () => {
    const project = await h.createProject();
    const alice = await newUser(h, project);
    const bob = await newUser(h, project);
    const aliceTeam = await newTeam(h, project, alice, { display_name: 'Alice' });
    const bobTeam = await newTeam(h, project, bob, { display_name: 'Bob' });
    expect((await h.get('/teams', alice.client)).body.items.map((t: { id: string }) => t.id)).toEqual([aliceTeam.id]);
    expectKnownError(await h.get(`/teams/${bobTeam.id}`, alice.client), 404, 'TEAM_NOT_FOUND');
    expectKnownError(await h.get(`/teams?user_id=${bob.id}`, alice.client), 404, 'USER_NOT_FOUND');
    expectKnownError(await h.patch(`/teams/${bobTeam.id}`, { display_name: 'Mine now' }, alice.client), 404, 'TEAM_NOT_FOUND');
    expectKnownError(await h.del(`/teams/${bobTeam.id}`, alice.client), 404, 'TEAM_NOT_FOUND');
    expectKnownError(await h.get(`/team-member-profiles?team_id=${bobTeam.id}`, alice.client), 404, 'TEAM_NOT_FOUND');
    // The server sees everything.
    expect((await h.get('/teams', project.server())).body.items.map((t: { id: string }) => t.id).sort()).toEqual([aliceTeam.id, bobTeam.id].sort());
    expect((await h.get(`/teams?user_id=${bob.id}`, project.server())).body.items.map((t: { id: string }) => t.id)).toEqual([bobTeam.id]);
    expectKnownError(await h.get(`/teams/${NO_SUCH_TEAM}`, project.server()), 404, 'TEAM_NOT_FOUND');
  });

  it('lets a member update the team exactly when they hold $update_team (directly or contained)', async () => {
    const project = await h.createProject();
    const member = await newUser(h, project);
    const team = await newTeam(h, project, member);
    const denied = await h.patch(`/teams/${team.id}`, { display_name: 'Renamed' }, member.client);
    expectKnownError(denied, 401, 'TEAM_PERMISSION_REQUIRED');
    expect(denied.body.details).toEqual({ team_id: team.id, user_id: member.id, permission_id: '$update_team' });

    await defineTeamPermission(h, project, 'team_admin', ['$update_team']);
    await grantTeamPermission(h, project, team.id, member.id, 'team_admin');
    const ok = await h.patch(`/teams/${team.id}`, { display_name: 'Renamed', client_metadata: { x: 1 } }, member.client);
    expectStatus(ok, 200);
    expect(ok.body).toMatchObject({ display_name: 'Renamed', client_metadata: { x: 1 } });
    // Still client fields only.
    expectKnownError(await h.patch(`/teams/${team.id}`, { client_read_only_metadata: { plan: 'free' } }, member.client), 400, 'SCHEMA_ERROR');
    const server = await h.patch(
      `/teams/${team.id}`,
      { client_read_only_metadata: { plan: 'pro' }, server_metadata: { s: 1 }, profile_image_url: null },
      project.server(),
    );
    expect(server.body).toMatchObject({ display_name: 'Renamed', client_read_only_metadata: { plan: 'pro' }, server_metadata: { s: 1 } });
  });

  it('lets a member delete the team exactly when they hold $delete_team, with everything attached', async () => {
    const project = await h.createProject({ config: { allow_team_api_keys: true } });
    const owner = await newUser(h, project);
    const member = await newUser(h, project);
    const team = await newTeam(h, project, owner);
    await addMember(h, project, team.id, member);
    expectStatus(await h.patch(`/users/${member.id}`, { selected_team_id: team.id }, project.server()), 200);
    expectStatus(await h.post('/team-api-keys', { team_id: team.id, description: 'ci' }, project.server()), 201);

    expectKnownError(await h.del(`/teams/${team.id}`, owner.client), 401, 'TEAM_PERMISSION_REQUIRED');
    await grantTeamPermission(h, project, team.id, owner.id, '$delete_team');
    expect((await h.del(`/teams/${team.id}`, owner.client)).body).toEqual({ success: true });

    expectKnownError(await h.get(`/teams/${team.id}`, project.server()), 404, 'TEAM_NOT_FOUND');
    expect((await h.get(`/users/${member.id}`, project.server())).body.selected_team_id).toBeNull();
    expect((await h.get(`/users/${owner.id}`, project.server())).body.selected_team_id).toBeNull();
    const db = h.latch.deps.db;
    expect(await db.selectFrom('team_members').select('user_id').where('team_id', '=', team.id).execute()).toEqual([]);
    expect(await db.selectFrom('team_permission_grants').select('user_id').where('team_id', '=', team.id).execute()).toEqual([]);
    expect(await db.selectFrom('user_team_api_keys').select('id').where('team_id', '=', team.id).execute()).toEqual([]);
  });
});

describe('memberships', () => {
  it('adds members on the server, refusing duplicates, unknown users and clients', async () => {
    const project = await h.createProject();
    const user = await newUser(h, project);
    const team = await newTeam(h, project);
    const added = await h.post(`/team-memberships/${team.id}/${user.id}`, {}, project.server());
    expectStatus(added, 201);
    expect(added.body).toEqual({ team_id: team.id, user_id: user.id });
    expectKnownError(await h.post(`/team-memberships/${team.id}/${user.id}`, {}, project.server()), 409, 'TEAM_MEMBERSHIP_ALREADY_EXISTS');
    expectKnownError(await h.post(`/team-memberships/${team.id}/${NO_SUCH_TEAM}`, {}, project.server()), 404, 'USER_NOT_FOUND');
    expectKnownError(await h.post(`/team-memberships/${NO_SUCH_TEAM}/${user.id}`, {}, project.server()), 404, 'TEAM_NOT_FOUND');
    const other = await newTeam(h, project);
    expectKnownError(await h.post(`/team-memberships/${other.id}/me`, {}, user.client), 401, 'INSUFFICIENT_ACCESS_TYPE');
    expect((await h.get(`/users?team_id=${team.id}`, project.server())).body.items.map((u: { id: string }) => u.id)).toEqual([user.id]);
  });

  it('lets a member leave (losing their team permissions and selection)', async () => {
    const project = await h.createProject();
    const user = await newUser(h, project);
    const team = await newTeam(h, project, user);
    await grantTeamPermission(h, project, team.id, user.id, '$update_team');
    expect((await h.del(`/team-memberships/${team.id}/me`, user.client)).body).toEqual({ success: true });
    expect((await h.get('/users/me', user.client)).body.selected_team_id).toBeNull();
    expect((await h.get('/teams', user.client)).body.items).toEqual([]);
    expectKnownError(await h.del(`/team-memberships/${team.id}/me`, user.client), 404, 'TEAM_NOT_FOUND');
    // Re-joining starts without the old permissions.
    await addMember(h, project, team.id, user);
    expect((await h.get(`/team-permissions?team_id=${team.id}`, user.client)).body.items).toEqual([]);
    // Leaving through the generic path works too.
    expectStatus(await h.del(`/team-memberships/${team.id}/${user.id}`, user.client), 200);
    expectKnownError(await h.del(`/team-memberships/${team.id}/${user.id}`, project.server()), 404, 'TEAM_MEMBERSHIP_NOT_FOUND');
  });

  it('lets a member remove others exactly when they hold $remove_members', async () => {
    const project = await h.createProject();
    const lead = await newUser(h, project);
    const member = await newUser(h, project);
    const outsider = await newUser(h, project);
    const team = await newTeam(h, project, lead);
    await addMember(h, project, team.id, member);
    expectKnownError(await h.del(`/team-memberships/${team.id}/${member.id}`, lead.client), 401, 'TEAM_PERMISSION_REQUIRED');
    await grantTeamPermission(h, project, team.id, lead.id, '$remove_members');
    expectKnownError(await h.del(`/team-memberships/${team.id}/${outsider.id}`, lead.client), 404, 'TEAM_MEMBERSHIP_NOT_FOUND');
    expectStatus(await h.del(`/team-memberships/${team.id}/${member.id}`, lead.client), 200);
    expect((await h.get(`/users?team_id=${team.id}`, project.server())).body.items.map((u: { id: string }) => u.id)).toEqual([lead.id]);
    // The removed member can no longer act on the team.
    expectKnownError(await h.get(`/teams/${team.id}`, member.client), 404, 'TEAM_NOT_FOUND');
  });
});

describe('team member profiles', () => {
  it("lists a team's profiles with $read_members, and always the caller's own", async () => {
    const project = await h.createProject();
    const lead = await newUser(h, project, { display_name: 'Lead' });
    const member = await newUser(h, project, { display_name: 'Member' });
    const team = await newTeam(h, project, lead);
    await addMember(h, project, team.id, member);

    expectKnownError(await h.get(`/team-member-profiles?team_id=${team.id}`, member.client), 401, 'TEAM_PERMISSION_REQUIRED');
    const own = await h.get('/team-member-profiles?user_id=me', member.client);
    expect(own.body.items).toEqual([{ team_id: team.id, user_id: member.id, display_name: 'Member', profile_image_url: null }]);
    expectStatus(await h.get(`/team-member-profiles/${team.id}/me`, member.client), 200);
    expectKnownError(await h.get(`/team-member-profiles/${team.id}/${lead.id}`, member.client), 401, 'TEAM_PERMISSION_REQUIRED');

    await grantTeamPermission(h, project, team.id, member.id, '$read_members');
    const list = await h.get(`/team-member-profiles?team_id=${team.id}`, member.client);
    expect(list.body.items.map((p: { display_name: string }) => p.display_name)).toEqual(['Lead', 'Member']);
    expect(list.body.items[0]).not.toHaveProperty('user');
    expectStatus(await h.get(`/team-member-profiles/${team.id}/${lead.id}`, member.client), 200);

    // The server view carries each member's user.
    const server = await h.get(`/team-member-profiles?team_id=${team.id}`, project.server());
    expect(server.body.items[1].user).toMatchObject({ id: member.id, display_name: 'Member', server_metadata: null });
    expectKnownError(await h.get('/team-member-profiles', project.server()), 400, 'SCHEMA_ERROR');
  });

  it('lets members edit their own profile only; the server edits any', async () => {
    const project = await h.createProject();
    const lead = await newUser(h, project, { display_name: 'Lead' });
    const member = await newUser(h, project);
    const team = await newTeam(h, project, lead);
    await addMember(h, project, team.id, member);
    const own = await h.patch(
      `/team-member-profiles/${team.id}/me`,
      { display_name: 'Team alias', profile_image_url: 'https://example.com/me.png' },
      member.client,
    );
    expectStatus(own, 200);
    expect(own.body).toEqual({ team_id: team.id, user_id: member.id, display_name: 'Team alias', profile_image_url: 'https://example.com/me.png' });
    expectKnownError(await h.patch(`/team-member-profiles/${team.id}/${lead.id}`, { display_name: 'Hacked' }, member.client), 401, 'INSUFFICIENT_ACCESS_TYPE');
    expectKnownError(
      await h.patch(`/team-member-profiles/${team.id}/me`, { display_name: 'x', user_id: lead.id, extra: 1 }, member.client),
      400,
      'SCHEMA_ERROR',
    );
    const byServer = await h.patch(`/team-member-profiles/${team.id}/${lead.id}`, { display_name: null }, project.server());
    // Back to the user's own name when the team alias is cleared.
    expect(byServer.body).toMatchObject({ display_name: 'Lead', user: { id: lead.id } });
    expectKnownError(
      await h.patch(`/team-member-profiles/${team.id}/${(await newUser(h, project)).id}`, { display_name: 'x' }, project.server()),
      404,
      'TEAM_MEMBERSHIP_NOT_FOUND',
    );
  });
});

describe('default team roles (default_team_roles, what the console asks for)', () => {
  it("gives a team's creator team_admin and later members team_member; a bare project grants nothing", async () => {
    const project = await h.createProject({ defaultTeamRoles: true });
    const creator = await newUser(h, project);
    const member = await newUser(h, project);
    const outsider = await newUser(h, project);
    const team = await newTeam(h, project, creator);
    await addMember(h, project, team.id, member);
    await addMember(h, project, team.id, outsider);
    const held = async (userId: string) =>
      (await h.get(`/team-permissions?team_id=${team.id}&user_id=${userId}&recursive=true`, project.server())).body.items
        .map((p: { id: string }) => p.id)
        .sort();
    expect(await held(creator.id)).toEqual(
      ['$delete_team', '$invite_members', '$manage_api_keys', '$read_members', '$remove_members', '$update_team', 'team_admin'].sort(),
    );
    expect(await held(member.id)).toEqual(['$invite_members', '$read_members', 'team_member']);
    // What that means: a member reads the members and invites, but removes no one and renames nothing.
    expectStatus(await h.get(`/team-member-profiles?team_id=${team.id}`, member.client), 200);
    expectKnownError(await h.del(`/team-memberships/${team.id}/${outsider.id}`, member.client), 401, 'TEAM_PERMISSION_REQUIRED');
    expectKnownError(await h.patch(`/teams/${team.id}`, { display_name: 'Mine' }, member.client), 401, 'TEAM_PERMISSION_REQUIRED');
    expectStatus(await h.del(`/team-memberships/${team.id}/${outsider.id}`, creator.client), 200);
    // The roles are ordinary definitions the owner can change.
    const definitions = (await h.get('/team-permission-definitions', project.admin())).body.items.map((d: { id: string }) => d.id);
    expect(definitions).toEqual(expect.arrayContaining(['team_admin', 'team_member']));

    const bare = await h.createProject();
    const bareCreator = await newUser(h, bare);
    const bareTeam = await newTeam(h, bare, bareCreator);
    expect((await h.get(`/team-permissions?team_id=${bareTeam.id}&user_id=${bareCreator.id}`, bare.server())).body.items).toEqual([]);
  });
});

describe('sessions and tenancy', () => {
  it('stops a revoked session at once', async () => {
    const project = await h.createProject({ config: { client_team_creation_enabled: true } });
    const user = await newUser(h, project);
    const team = await newTeam(h, project, user);
    expectStatus(await h.del('/auth/sessions/current', user.client), 200);
    expectKnownError(await h.get(`/teams/${team.id}`, user.client), 401, 'ACCESS_TOKEN_EXPIRED');
    expectKnownError(await h.get('/teams', user.client), 401, 'ACCESS_TOKEN_EXPIRED');
    expectKnownError(await h.post('/teams', { display_name: 'x' }, user.client), 401, 'ACCESS_TOKEN_EXPIRED');
  });

  it("never lets project B's credentials see or change project A's teams", async () => {
    const [a, b] = await Promise.all([h.createProject(), h.createProject()]);
    const userA = await newUser(h, a);
    const userB = await newUser(h, b);
    const teamA = await newTeam(h, a, userA);
    expect((await h.get('/teams', b.server())).body.items).toEqual([]);
    expectKnownError(await h.get(`/teams/${teamA.id}`, b.server()), 404, 'TEAM_NOT_FOUND');
    expectKnownError(await h.patch(`/teams/${teamA.id}`, { display_name: 'pwned' }, b.server()), 404, 'TEAM_NOT_FOUND');
    expectKnownError(await h.del(`/teams/${teamA.id}`, b.server()), 404, 'TEAM_NOT_FOUND');
    expectKnownError(await h.post(`/team-memberships/${teamA.id}/${userB.id}`, {}, b.server()), 404, 'TEAM_NOT_FOUND');
    expectKnownError(await h.del(`/team-memberships/${teamA.id}/${userA.id}`, b.server()), 404, 'TEAM_NOT_FOUND');
    expectKnownError(await h.get(`/team-member-profiles?team_id=${teamA.id}`, b.server()), 404, 'TEAM_NOT_FOUND');
    expectKnownError(await h.get(`/teams?user_id=${userA.id}`, b.server()), 404, 'USER_NOT_FOUND');
    // A's access token is refused by B outright.
    expectKnownError(await h.get('/teams', b.client(userA.accessToken)), 401, 'INVALID_PROJECT_FOR_ACCESS_TOKEN');
    expect((await h.get(`/teams/${teamA.id}`, a.server())).body.display_name).toBe('Team');
  });
});

describe('internal project', () => {
  it('refuses to delete a team that owns projects (its members would lose admin access)', async () => {
    const project = await h.createProject();
    const ownerRow = await h.latch.deps.db.selectFrom('projects').select('owner_team_id').where('id', '=', project.id).executeTakeFirstOrThrow();
    const tenancy = await tenancyOf(h, 'internal');
    const auth = {
      type: 'server' as const,
      project: {
        id: 'internal',
        displayName: 'Internal',
        description: null,
        isProductionMode: false,
        logoUrl: null,
        fullLogoUrl: null,
        ownerTeamId: null,
        createdAt: new Date(),
        config: effectiveConfig({}),
      },
      tenancy,
      user: null,
      adminUserId: null,
    };
    await expect(deleteTeam(h.latch.deps, auth, ownerRow.owner_team_id!)).rejects.toMatchObject({ code: 'SCHEMA_ERROR' });
    // The owner still administers the project.
    expectStatus(await h.get('/internal/projects/current', project.ownerAdmin()), 200);
  });
});

describe('races', () => {
  it('recognises the foreign-key violation a concurrent delete causes, by column, on this driver', async () => {
    const project = await h.createProject();
    const user = await newUser(h, project);
    const tenancy = await tenancyOf(h, project.id);
    const error = await h.latch.deps.db
      .insertInto('team_members')
      .values({ tenancy_id: tenancy.id, team_id: NO_SUCH_TEAM, user_id: user.id })
      .execute()
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(isForeignKeyViolation(error)).toBe(true);
    expect(isForeignKeyViolation(error, 'team_id')).toBe(true);
    expect(isForeignKeyViolation(error, 'user_id')).toBe(false);
    expect(isForeignKeyViolation(new Error('x'))).toBe(false);
  });
});
