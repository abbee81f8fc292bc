import { describe, expect, it } from 'vitest';
import { useHarness } from '../server/test/harness.js';
import { CALLBACK_URL, lastEmailTo } from '../server/test/team-fixtures.js';
import { AdminApp } from './admin-app.js';
import { ClientApp } from './client-app.js';
import { KnownErrors } from './errors.js';
import { ServerApp } from './server-app.js';
import { sessionClientApp } from './test/apps.js';
import { useProxy } from './test/proxy.js';

/**
 * Teams, memberships, invitations, permissions and user/team API keys through the SDK, against a
 * real server (the fault-free proxy in front of it counts requests, to see the cache at work).
 */

const h = useHarness();
const proxy = useProxy(h);

/** A project with its three apps; users are made by the server and signed in with a server-made session (fast). */
async function newProject() {
  const project = await h.createProject();
  const baseUrl = proxy.url;
  const admin = new AdminApp({ projectId: project.id, superSecretAdminKey: project.superSecretAdminKey, baseUrl });
  const server = new ServerApp({ projectId: project.id, secretServerKey: project.secretServerKey, baseUrl });
  const clientApp = () => new ClientApp({ projectId: project.id, publishableClientKey: project.publishableClientKey, baseUrl, tokenStore: 'memory' });
  const signedIn = async (options: { teamInvitationPage?: string } = {}) => {
    const user = await server.createUser({ primary_email: h.uniqueEmail('member') });
    const tokens = await server.createSession({ user_id: user.id });
    const app = sessionClientApp(project, baseUrl, tokens, { teamInvitation: options.teamInvitationPage });
    return { user, app };
  };
  return { project, admin, server, clientApp, signedIn };
}

function ids(items: { id: string }[]): string[] {
  return items.map((item) => item.id).sort();
}

describe('the acceptance flow, through the SDK', () => {
  it('create a team from the client, invite by email, accept, grant nested permissions, and use a team API key until it is revoked', async () => {
    const { admin, server, clientApp } = await newProject();

    // 0. Alice signs up; teams cannot be created from the client until the admin allows it.
    const alice = clientApp();
    expect((await alice.signUpWithPassword({ email: h.uniqueEmail('alice'), password: 'correct-horse-1' })).status).toBe('ok');
    await expect(alice.createTeam({ display_name: 'Too early' })).rejects.toBeInstanceOf(KnownErrors.InsufficientAccessType);
    await admin.updateProject({
      config: {
        client_team_creation_enabled: true,
        allow_team_api_keys: true,
        allow_user_api_keys: true,
        team_creator_default_permissions: [{ id: '$invite_members' }, { id: '$read_members' }, { id: '$manage_api_keys' }],
      },
    });

    // 1. Alice creates a team: she is its member, with the creator defaults, and it is her selected team.
    expect(await alice.listTeams()).toEqual([]);
    const listed = proxy.count('teams.list');
    expect(await alice.listTeams()).toEqual([]); // cached
    expect(proxy.count('teams.list')).toBe(listed);
    const team = await alice.createTeam({ display_name: 'Rocket', client_metadata: { color: 'red' } });
    expect(team).toEqual({
      id: expect.any(String),
      display_name: 'Rocket',
      profile_image_url: null,
      client_metadata: { color: 'red' },
      client_read_only_metadata: null,
      created_at_millis: expect.any(Number),
    });
    expect(ids(await alice.listTeams())).toEqual([team.id]); // the mutation invalidated the list
    expect((await alice.getUser({ or: 'throw' })).selected_team_id).toBe(team.id);
    expect(await alice.hasPermission('$invite_members', { teamId: team.id })).toBe(true);
    expect(await alice.hasPermission('$update_team', { teamId: team.id })).toBe(false);

    // 2. She invites Bob by email; the code travels in the emailed link (the outbox table here).
    const bobEmail = h.uniqueEmail('bob');
    const invitation = await alice.inviteUser(team.id, { email: bobEmail, callback_url: CALLBACK_URL });
    const mail = await lastEmailTo(h, bobEmail);
    expect(mail.subject).toBe('You are invited to join a team');
    const code = mail.code!;
    expect(code).toEqual(expect.any(String));
    expect(await alice.listTeamInvitations(team.id)).toEqual([
      { id: invitation.id, team_id: team.id, recipient_email: bobEmail, expires_at_millis: expect.any(Number) },
    ]);

    // 3. Bob signs up and accepts with the emailed code; the code is then used up.
    const bob = clientApp();
    const bobSignUp = await bob.signUpWithPassword({ email: bobEmail, password: 'correct-horse-2' });
    if (bobSignUp.status !== 'ok') throw bobSignUp.error;
    const bobId = bobSignUp.data.user_id;
    expect(await bob.getTeamInvitationDetails(code)).toEqual({ status: 'ok', data: { team_id: team.id, team_display_name: 'Rocket' } });
    expect(await bob.checkTeamInvitationCode(code)).toEqual({ status: 'ok', data: undefined });
    expect(await bob.listTeams()).toEqual([]);
    expect(await bob.acceptTeamInvitation(code)).toEqual({ status: 'ok', data: { team_id: team.id } });
    const again = await bob.acceptTeamInvitation(code);
    if (again.status !== 'error') throw new Error('a used code was accepted twice');
    expect(again.error).toBeInstanceOf(KnownErrors.VerificationCodeAlreadyUsed);
    expect(ids(await bob.listTeams())).toEqual([team.id]);
    expect(await server.listTeamInvitations(team.id)).toEqual([]);
    const members = await alice.listTeamUsers(team.id);
    expect(members.map((m) => m.user_id).sort()).toEqual([bobId, (await alice.getUser({ or: 'throw' })).id].sort());
    expect(members.every((m) => !('user' in m))).toBe(true); // client view of profiles

    // 4. The admin defines a nested permission, the server grants it and $invite_members to Bob.
    await admin.createTeamPermissionDefinition({ id: 'docs:read' });
    await admin.createTeamPermissionDefinition({ id: 'docs:write', contained_permission_ids: ['docs:read'] });
    await admin.createTeamPermissionDefinition({ id: 'editor', description: 'Edits docs', contained_permission_ids: ['docs:write'] });
    expect(await server.hasPermission('docs:read', { teamId: team.id, userId: bobId })).toBe(false);
    await server.grantTeamPermission(team.id, bobId, '$invite_members');
    expect(await server.grantTeamPermission(team.id, bobId, 'editor')).toEqual({ id: 'editor', team_id: team.id, user_id: bobId });
    expect(await server.hasPermission('docs:read', { teamId: team.id, userId: bobId })).toBe(true); // the grant invalidated the cached list
    // Checked recursively by Bob himself: editor ⊃ docs:write ⊃ docs:read.
    expect(await bob.hasPermission('docs:read', { teamId: team.id })).toBe(true);
    expect(await bob.hasPermission('$invite_members', { teamId: team.id })).toBe(true);
    expect(await bob.hasPermission('$remove_members', { teamId: team.id })).toBe(false);
    expect(await bob.hasPermission('docs:read')).toBe(false); // not a project permission
    expect(ids(await bob.listTeamPermissions(team.id, { recursive: false }))).toEqual(['$invite_members', 'editor']);
    expect(ids(await bob.listTeamPermissions(team.id))).toEqual(['$invite_members', 'docs:read', 'docs:write', 'editor']);
    // Bob can now invite too.
    const carolEmail = h.uniqueEmail('carol');
    await bob.inviteUser(team.id, { email: carolEmail, callback_url: CALLBACK_URL });
    expect((await lastEmailTo(h, carolEmail)).code).toEqual(expect.any(String));

    // 5. Alice creates a team API key; the server checks it.
    const key = await alice.createTeamApiKey(team.id, { description: 'deploy bot' });
    expect(key.value).toMatch(/^latch_tsk_/);
    const checked = await server.checkTeamApiKey(key.value);
    expect(checked).toMatchObject({ id: key.id, type: 'team', team_id: team.id, manually_revoked_at_millis: null, value: { last_four: key.value.slice(-4) } });
    expect(await server.checkUserApiKey(key.value)).toBeNull(); // a team key is not a user key
    await expect(server.checkUserApiKey(key.value, { or: 'throw' })).rejects.toBeInstanceOf(KnownErrors.WrongApiKeyType);
    expect(await server.checkTeamApiKey(`${key.value.slice(0, -1)}${key.value.endsWith('A') ? 'B' : 'A'}`)).toBeNull(); // a typo
    expect((await alice.listTeamApiKeys(team.id)).map((k) => [k.id, k.manually_revoked_at_millis])).toEqual([[key.id, null]]);

    // 6. She revokes it: the check returns null, and with { or: 'throw' } says why.
    expect((await alice.revokeTeamApiKey(key.id)).manually_revoked_at_millis).toEqual(expect.any(Number));
    expect((await alice.listTeamApiKeys(team.id))[0]?.manually_revoked_at_millis).toEqual(expect.any(Number));
    expect(await server.checkTeamApiKey(key.value)).toBeNull();
    const failure = await server.checkTeamApiKey(key.value, { or: 'throw' }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(KnownErrors.ApiKeyRevoked);
    expect(failure).toMatchObject({ code: 'API_KEY_REVOKED', status: 401, details: { reason: 'manually-revoked' } });
  });
});

describe('client team operations follow the system permissions', () => {
  it('manages a team, members and profiles only with the matching permission', async () => {
    const { admin, server, signedIn } = await newProject();
    await admin.updateProject({ config: { client_team_creation_enabled: true } });
    const carol = await signedIn();
    const dave = await signedIn();

    // No creator defaults in this project: Carol is a member of her team, with no permissions.
    const team = await carol.app.createTeam({ display_name: 'Rocket' });
    expect((await carol.app.getTeam(team.id))?.display_name).toBe('Rocket');
    await expect(carol.app.updateTeam(team.id, { display_name: 'Nope' })).rejects.toBeInstanceOf(KnownErrors.TeamPermissionRequired);
    await server.grantTeamPermission(team.id, carol.user.id, '$update_team');
    expect((await carol.app.updateTeam(team.id, { display_name: 'Rocket 2' })).display_name).toBe('Rocket 2');
    expect((await carol.app.getTeam(team.id))?.display_name).toBe('Rocket 2'); // invalidated by the update

    // Dave, not a member, sees nothing of it. (Each app caches its own reads: the server adding
    // him below does not reach this app's cache, so his team list is read only after that.)
    expect(await dave.app.getTeam(team.id)).toBeNull();
    expect(await server.listTeams({ userId: dave.user.id })).toEqual([]);
    await expect(dave.app.listTeamUsers(team.id)).rejects.toBeInstanceOf(KnownErrors.TeamNotFound);
    expect(await dave.app.hasPermission('$update_team', { teamId: team.id })).toBe(false);

    // The server adds him; a second add is refused.
    expect(await server.addTeamMember(team.id, dave.user.id)).toEqual({ team_id: team.id, user_id: dave.user.id });
    await expect(server.addTeamMember(team.id, dave.user.id)).rejects.toBeInstanceOf(KnownErrors.TeamMembershipAlreadyExists);
    expect(ids(await dave.app.listTeams())).toEqual([team.id]);
    await expect(dave.app.listTeamUsers(team.id)).rejects.toBeInstanceOf(KnownErrors.TeamPermissionRequired);

    // His own profile in the team is his to read and change.
    expect(await dave.app.getTeamMemberProfile(team.id)).toEqual({ team_id: team.id, user_id: dave.user.id, display_name: null, profile_image_url: null });
    await dave.app.updateTeamMemberProfile(team.id, { display_name: 'Dave in Rocket' });
    expect(await dave.app.listTeamMemberProfiles({ userId: 'me' })).toEqual([
      { team_id: team.id, user_id: dave.user.id, display_name: 'Dave in Rocket', profile_image_url: null },
    ]);
    const serverProfiles = await server.listTeamUsers(team.id);
    expect(serverProfiles.find((p) => p.user_id === dave.user.id)).toMatchObject({
      display_name: 'Dave in Rocket',
      user: { id: dave.user.id, primary_email: dave.user.primary_email },
    });

    // Removing others takes $remove_members; deleting the team $delete_team.
    await expect(carol.app.removeTeamMember(team.id, dave.user.id)).rejects.toBeInstanceOf(KnownErrors.TeamPermissionRequired);
    await expect(carol.app.deleteTeam(team.id)).rejects.toBeInstanceOf(KnownErrors.TeamPermissionRequired);

    // Dave selects the team, then leaves it: it is no longer his, nor selected.
    expect((await dave.app.selectTeam(team.id)).selected_team_id).toBe(team.id);
    await dave.app.leaveTeam(team.id);
    expect(await dave.app.listTeams()).toEqual([]);
    expect((await dave.app.getUser({ or: 'throw' })).selected_team_id).toBeNull();
    expect(await dave.app.getTeam(team.id)).toBeNull();
    expect(await dave.app.getTeamMemberProfile(team.id)).toBeNull();

    // With $delete_team, Carol deletes the team.
    await server.grantTeamPermission(team.id, carol.user.id, '$delete_team');
    await carol.app.deleteTeam(team.id);
    expect(await carol.app.listTeams()).toEqual([]);
    expect(await server.getTeam(team.id)).toBeNull();
  });

  it('returns bad invitation codes as result errors, and withdrawn invitations stop working', async () => {
    const { server, signedIn } = await newProject();
    const team = await server.createTeam({ display_name: 'Rocket' });
    const erin = await signedIn();

    const unknown = await erin.app.acceptTeamInvitation('not-a-code');
    if (unknown.status !== 'error') throw new Error('an unknown code was accepted');
    expect(unknown.error).toBeInstanceOf(KnownErrors.VerificationCodeNotFound);
    expect((await erin.app.getTeamInvitationDetails('not-a-code')).status).toBe('error');

    const email = h.uniqueEmail('guest');
    const { id } = await server.inviteUser(team.id, { email, callback_url: CALLBACK_URL });
    const { code } = await lastEmailTo(h, email);
    expect((await erin.app.checkTeamInvitationCode(code!)).status).toBe('ok');
    expect(ids(await server.listTeamInvitations(team.id))).toEqual([id]);
    await server.revokeTeamInvitation(team.id, id);
    expect(await server.listTeamInvitations(team.id)).toEqual([]);
    const withdrawn = await erin.app.checkTeamInvitationCode(code!);
    expect(withdrawn.status === 'error' && withdrawn.error).toBeInstanceOf(KnownErrors.VerificationCodeNotFound);

    // The link defaults to urls.teamInvitation, which must be absolute outside a browser.
    await expect(server.inviteUser(team.id, { email })).rejects.toThrow(/callback_url/);
    const inviter = await signedIn({ teamInvitationPage: 'http://localhost:3000/join' });
    await server.addTeamMember(team.id, inviter.user.id);
    await server.grantTeamPermission(team.id, inviter.user.id, '$invite_members');
    const other = h.uniqueEmail('guest');
    await inviter.app.inviteUser(team.id, { email: other });
    expect((await lastEmailTo(h, other)).text).toContain('http://localhost:3000/join?code=');
  });
});

describe('server and admin apps', () => {
  it('manage teams with server views, permission definitions of both scopes, and project permissions', async () => {
    const { admin, signedIn } = await newProject();
    const { user, app } = await signedIn();

    const ops = await admin.createTeam({ display_name: 'Ops', creator_user_id: user.id, server_metadata: { plan: 'pro' } });
    expect(ops.server_metadata).toEqual({ plan: 'pro' });
    const idle = await admin.createTeam({ display_name: 'Idle' });
    expect(ids(await admin.listTeams())).toEqual(ids([ops, idle]));
    expect(ids(await admin.listTeams({ userId: user.id }))).toEqual([ops.id]);
    expect((await admin.updateTeam(ops.id, { client_read_only_metadata: { seats: 5 } })).client_read_only_metadata).toEqual({ seats: 5 });
    expect((await app.getTeam(ops.id))?.client_read_only_metadata).toEqual({ seats: 5 });
    expect((await admin.listUsers({ team_id: ops.id })).items.map((u) => u.id)).toEqual([user.id]);
    expect((await admin.listTeamUsers(ops.id)).map((p) => [p.user.id, p.display_name])).toEqual([[user.id, null]]);
    await admin.updateUserById(user.id, { display_name: 'Uma' });
    expect((await admin.listTeamUsers(ops.id))[0]?.display_name).toBe('Uma'); // a profile falls back to the user's name
    await admin.deleteTeam(idle.id);
    expect(ids(await admin.listTeams())).toEqual([ops.id]);

    // Team definitions: the system ones first; the id rules and references are checked.
    expect((await admin.listTeamPermissionDefinitions()).slice(0, 6).map((d) => d.id)).toEqual([
      '$update_team',
      '$delete_team',
      '$read_members',
      '$remove_members',
      '$invite_members',
      '$manage_api_keys',
    ]);
    expect(await admin.getTeamPermissionDefinition('$read_members')).toMatchObject({ is_system_permission: true });
    expect(await admin.getTeamPermissionDefinition('nope')).toBeNull();
    await admin.createTeamPermissionDefinition({ id: 'moderator', contained_permission_ids: ['$remove_members'] });
    await expect(admin.createTeamPermissionDefinition({ id: 'moderator' })).rejects.toBeInstanceOf(KnownErrors.PermissionIdAlreadyExists);
    await expect(admin.createTeamPermissionDefinition({ id: 'x', contained_permission_ids: ['missing'] })).rejects.toBeInstanceOf(
      KnownErrors.ContainedPermissionNotFound,
    );
    await expect(admin.createTeamPermissionDefinition({ id: '$mine' })).rejects.toBeInstanceOf(KnownErrors.SchemaError);
    await admin.grantTeamPermission(ops.id, user.id, 'moderator');
    expect(await app.hasPermission('$remove_members', { teamId: ops.id })).toBe(true);
    await admin.updateTeamPermissionDefinition('moderator', { id: 'mod', description: 'Moderates' });
    expect(ids(await admin.listTeamPermissions(ops.id, { userId: user.id, recursive: false }))).toEqual(['mod']); // the grant followed the rename
    await admin.deleteTeamPermissionDefinition('mod');
    expect(await admin.listTeamPermissions(ops.id, { userId: user.id })).toEqual([]);

    // Project permissions: defined by the admin, granted by the server, checked recursively.
    await admin.createProjectPermissionDefinition({ id: 'reports:read' });
    await admin.createProjectPermissionDefinition({ id: 'reports:admin', contained_permission_ids: ['reports:read'] });
    expect(ids(await admin.listProjectPermissionDefinitions())).toEqual(['reports:admin', 'reports:read']);
    await expect(admin.grantTeamPermission(ops.id, user.id, 'reports:read')).rejects.toBeInstanceOf(KnownErrors.WrongPermissionScope);
    expect(await admin.hasPermission('reports:read', { userId: user.id })).toBe(false);
    await admin.grantProjectPermission(user.id, 'reports:admin');
    expect(await admin.hasPermission('reports:read', { userId: user.id })).toBe(true);
    expect(await app.hasPermission('reports:read')).toBe(true);
    expect(ids(await app.listProjectPermissions({ recursive: false }))).toEqual(['reports:admin']);
    await admin.updateProjectPermissionDefinition('reports:admin', { description: 'All of reports' });
    expect(await admin.getProjectPermissionDefinition('reports:admin')).toMatchObject({
      description: 'All of reports',
      contained_permission_ids: ['reports:read'],
    });
    await admin.revokeProjectPermission(user.id, 'reports:admin');
    expect(await admin.hasPermission('reports:read', { userId: user.id })).toBe(false);
    await admin.deleteProjectPermissionDefinition('reports:read');
    expect(await admin.getProjectPermissionDefinition('reports:read')).toBeNull();
  });

  it('requireProjectPermission resolves with the grant when held and throws ProjectPermissionRequired when not', async () => {
    const { admin, server, signedIn } = await newProject();
    const { user, app } = await signedIn();
    await admin.createProjectPermissionDefinition({ id: 'billing:read' });
    await admin.createProjectPermissionDefinition({ id: 'billing:admin', contained_permission_ids: ['billing:read'] });
    await expect(app.requireProjectPermission('billing:read')).rejects.toBeInstanceOf(KnownErrors.ProjectPermissionRequired);
    await expect(server.requireProjectPermission('billing:read', { userId: user.id })).rejects.toMatchObject({
      code: 'PROJECT_PERMISSION_REQUIRED',
      details: { user_id: user.id, permission_id: 'billing:read' },
    });
    await server.grantProjectPermission(user.id, 'billing:admin');
    // Not cached: the grant is seen at once, through the containing permission.
    expect(await app.requireProjectPermission('billing:read')).toEqual({ id: 'billing:read', user_id: user.id });
    expect(await server.requireProjectPermission('billing:read', { userId: user.id })).toEqual({ id: 'billing:read', user_id: user.id });
    await expect(server.requireProjectPermission('billing:typo', { userId: user.id })).rejects.toBeInstanceOf(KnownErrors.PermissionNotFound);
  });

  it('manage user API keys: created by the user, checked by the server, null once expired', async () => {
    const { admin, server, signedIn } = await newProject();
    const { user, app } = await signedIn();
    await expect(app.createUserApiKey({ description: 'cli' })).rejects.toBeInstanceOf(KnownErrors.ApiKeysNotEnabled);
    await expect(server.checkTeamApiKey('latch_tsk_whatever')).rejects.toBeInstanceOf(KnownErrors.ApiKeysNotEnabled); // misconfiguration: thrown, not null
    await admin.updateProject({ config: { allow_user_api_keys: true } });

    const key = await app.createUserApiKey({ description: 'cli' });
    expect(await server.checkUserApiKey(key.value)).toMatchObject({ id: key.id, type: 'user', user_id: user.id });
    expect((await app.listUserApiKeys()).map((k) => k.value)).toEqual([{ last_four: key.value.slice(-4) }]);
    expect(ids(await server.listUserApiKeys({ userId: user.id }))).toEqual([key.id]);
    expect((await app.getUserApiKey(key.id))?.description).toBe('cli');
    expect(await app.getUserApiKey(crypto.randomUUID())).toBeNull();
    expect((await app.updateUserApiKey(key.id, { description: 'old cli' })).description).toBe('old cli');
    expect((await app.getUserApiKey(key.id))?.description).toBe('old cli'); // invalidated

    const made = await server.createUserApiKey({ description: 'made by the server' }, { userId: user.id });
    await server.updateUserApiKey(made.id, { expires_at_millis: Date.now() - 1000 });
    expect(await server.checkUserApiKey(made.value)).toBeNull();
    await expect(server.checkUserApiKey(made.value, { or: 'throw' })).rejects.toMatchObject({ code: 'API_KEY_EXPIRED', details: { reason: 'expired' } });
    await app.revokeUserApiKey(key.id);
    await expect(server.checkUserApiKey(key.value, { or: 'throw' })).rejects.toBeInstanceOf(KnownErrors.ApiKeyRevoked);
  });
});
