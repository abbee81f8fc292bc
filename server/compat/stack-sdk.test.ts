import { StackClientApp, StackServerApp } from '@stackframe/js';
import { KnownErrors } from '@stackframe/stack-shared';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { type OwnerSession, type ProjectFixture, useHarness } from '../test/harness.js';

/**
 * Stack Auth SDK compatibility (issue 20 item 4): the official `@stackframe/js` SDK, unchanged and
 * pointed at Latch's base URL, runs its flows against a Latch project. It sends x-stack-* headers,
 * reads x-stack-known-error / x-stack-actual-status, refreshes through /auth/oauth/token with
 * oauth4webapi, and reads Stack's response shapes.
 */

const h = useHarness();
let owner: OwnerSession;
beforeAll(async () => {
  owner = await h.signUpOwner();
});

const PASSWORD = 'correct horse battery staple';
/** Where verification links point (the SDK needs one outside a browser); localhost is trusted in development. */
const CALLBACK_URL = 'http://localhost:3000/handler/email-verification';

function clientApp(project: ProjectFixture) {
  return new StackClientApp({
    baseUrl: h.url,
    projectId: project.id,
    publishableClientKey: project.publishableClientKey,
    tokenStore: 'memory',
    noAutomaticPrefetch: true,
  });
}

function serverApp(project: ProjectFixture) {
  return new StackServerApp({
    baseUrl: h.url,
    projectId: project.id,
    publishableClientKey: project.publishableClientKey,
    secretServerKey: project.secretServerKey,
    tokenStore: 'memory',
    noAutomaticPrefetch: true,
  });
}

describe('@stackframe/js against Latch', () => {
  it('signs up, reads and updates the user, and signs out', async () => {
    const project = await h.createProject({ owner });
    const app = clientApp(project);
    const email = h.uniqueEmail('stack');
    const signUp = await app.signUpWithCredential({ email, password: PASSWORD, noRedirect: true, verificationCallbackUrl: CALLBACK_URL });
    expect(signUp.status).toBe('ok');

    const user = await app.getUser({ or: 'throw' });
    expect(user.primaryEmail).toBe(email);
    expect(user.hasPassword).toBe(true);
    expect(user.signedUpAt).toBeInstanceOf(Date);
    expect(Math.abs(user.signedUpAt.getTime() - Date.now())).toBeLessThan(600_000);

    // The token carries the claims Stack's SDKs validate.
    const tokens = await user.currentSession.getTokens();
    expect(decodeJwt(tokens.accessToken!)).toMatchObject({
      sub: user.id,
      project_id: project.id,
      is_anonymous: false,
      is_restricted: false,
      restricted_reason: null,
      requires_totp_mfa: false,
      signed_up_at: expect.any(Number),
    });

    await user.update({ displayName: 'Grace Hopper', clientMetadata: { theme: 'dark' } });
    const updated = await app.getUser({ or: 'throw' });
    expect(updated.displayName).toBe('Grace Hopper');
    expect(updated.clientMetadata).toEqual({ theme: 'dark' });

    await updated.signOut({ redirectUrl: 'about:blank' }).catch(() => undefined);
    expect(await app.getUser()).toBeNull();
    // The session is really gone on the server: its refresh token no longer refreshes.
    const refresh = await h.post('/auth/sessions/current/refresh', {}, { ...project.client(), 'x-latch-refresh-token': tokens.refreshToken! });
    expect(refresh.body.code).toBe('REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED');
  });

  it('signs in, refreshes through /auth/oauth/token, and gets known errors as Stack error classes', async () => {
    const project = await h.createProject({ owner });
    const user = await h.signUpUser(project, { password: PASSWORD });
    const app = clientApp(project);

    // A wrong password: Latch answers 200 + x-stack-actual-status (the SDK sends override-error-status)
    // and x-stack-known-error, which the SDK turns into its own error class.
    const wrong = await app.signInWithCredential({ email: user.email, password: 'not the password', noRedirect: true });
    expect(wrong.status).toBe('error');
    expect(wrong.status === 'error' && wrong.error).toBeInstanceOf(KnownErrors.EmailPasswordMismatch);

    // A proven address is taken (an unproven one never blocks a sign-up, ARCHITECTURE.md "Security model").
    const verifiedEmail = h.uniqueEmail('stack-verified');
    expect(
      (await h.post('/users', { primary_email: verifiedEmail, primary_email_verified: true, primary_email_auth_enabled: true }, project.server())).status,
    ).toBe(201);
    const taken = await app.signUpWithCredential({ email: verifiedEmail, password: PASSWORD, noRedirect: true, verificationCallbackUrl: CALLBACK_URL });
    expect(taken.status === 'error' && taken.error).toBeInstanceOf(KnownErrors.UserEmailAlreadyExists);

    const signIn = await app.signInWithCredential({ email: user.email, password: PASSWORD, noRedirect: true });
    expect(signIn.status).toBe('ok');
    const me = await app.getUser({ or: 'throw' });
    expect(me.id).toBe(user.userId);

    // Only a refresh token: the SDK gets an access token from /auth/oauth/token (oauth4webapi,
    // client_id = project id, client_secret = publishable key) before it reads the user.
    const refreshOnly = await app.getUser({ tokenStore: { accessToken: null as unknown as string, refreshToken: user.refreshToken } });
    expect(refreshOnly?.id).toBe(user.userId);
    expect(refreshOnly?.primaryEmail).toBe(user.email);

    // A signed-out refresh token is no user, not an error.
    await h.del('/auth/sessions/current', project.client(user.accessToken));
    expect(await clientApp(project).getUser({ tokenStore: { accessToken: null as unknown as string, refreshToken: user.refreshToken } })).toBeNull();
  });

  it('creates and lists teams, and reads the selected team', async () => {
    // Stack's default team roles (the creator is team_admin) so the creator may update the team.
    const project = await h.createProject({ owner, defaultTeamRoles: true, config: { client_team_creation_enabled: true, create_team_on_sign_up: false } });
    const app = clientApp(project);
    await app.signUpWithCredential({ email: h.uniqueEmail('stack-teams'), password: PASSWORD, noRedirect: true, verificationCallbackUrl: CALLBACK_URL });
    const user = await app.getUser({ or: 'throw' });
    expect(await user.listTeams()).toEqual([]);

    const team = await user.createTeam({ displayName: 'Analytical Engines' });
    expect(team.displayName).toBe('Analytical Engines');
    const teams = await user.listTeams();
    expect(teams.map((t) => [t.id, t.displayName])).toEqual([[team.id, 'Analytical Engines']]);
    expect((await user.getTeam(team.id))?.displayName).toBe('Analytical Engines');

    // Selecting a team sends selected_team_id (Latch's user has no embedded selected_team object:
    // README, "Migrating from Stack Auth").
    await user.setSelectedTeam(team);
    expect((await h.get(`/users/${user.id}`, project.server())).body.selected_team_id).toBe(team.id);
    const reread = await app.getUser({ or: 'throw' });

    await team.update({ displayName: 'Difference Engines' });
    expect((await reread.getTeam(team.id))?.displayName).toBe('Difference Engines');
    const members = await team.listUsers();
    expect(members.map((m) => m.id)).toEqual([user.id]);
  });

  it('lists, creates and reads users on the server with StackServerApp (secret server key)', async () => {
    const project = await h.createProject({ owner });
    const server = serverApp(project);
    const signedUp = await h.signUpUser(project);

    const created = await server.createUser({
      primaryEmail: h.uniqueEmail('stack-server'),
      password: PASSWORD,
      displayName: 'Ada',
      primaryEmailAuthEnabled: true,
    });
    expect(created.displayName).toBe('Ada');
    await created.update({ serverMetadata: { plan: 'pro' } });

    const users = await server.listUsers();
    expect(users.map((u) => u.id).sort()).toEqual([signedUp.userId, created.id].sort());
    const read = await server.getUser(created.id);
    expect(read?.serverMetadata).toEqual({ plan: 'pro' });
    expect(read?.primaryEmail).toBe(created.primaryEmail);

    const team = await server.createTeam({ displayName: 'Servers' });
    await team.addUser(created.id);
    expect((await server.listTeams()).map((t) => t.id)).toContain(team.id);
    expect((await team.listUsers()).map((u) => u.id)).toEqual([created.id]);

    // The same server app acting for a signed-in user (its tokens in the token store).
    const asUser = await server.getUser({ tokenStore: { accessToken: signedUp.accessToken, refreshToken: signedUp.refreshToken } });
    expect(asUser?.id).toBe(signedUp.userId);
  });
});

describe('x-stack-* headers on the wire', () => {
  const stack = (project: ProjectFixture, accessToken?: string): Record<string, string> => ({
    'x-stack-project-id': project.id,
    'x-stack-access-type': 'client',
    'x-stack-publishable-client-key': project.publishableClientKey,
    ...(accessToken ? { 'x-stack-access-token': accessToken } : {}),
  });

  it('reads every credential under its x-stack-* name and answers errors with both known-error headers', async () => {
    const project = await h.createProject({ owner });
    const user = await h.signUpUser(project);
    const me = await h.get('/users/me', stack(project, user.accessToken));
    expect({ status: me.status, id: me.body.id }).toEqual({ status: 200, id: user.userId });
    const server = await h.get('/users', {
      'x-stack-project-id': project.id,
      'x-stack-access-type': 'server',
      'x-stack-secret-server-key': project.secretServerKey,
    });
    expect(server.status).toBe(200);
    const refreshed = await h.post('/auth/sessions/current/refresh', {}, { ...stack(project), 'x-stack-refresh-token': user.refreshToken });
    expect(refreshed.status).toBe(200);

    const wrongKey = await h.get('/users/me', { ...stack(project, user.accessToken), 'x-stack-publishable-client-key': 'pck_wrong' });
    expect(wrongKey.status).toBe(401);
    expect(wrongKey.headers.get('x-stack-known-error')).toBe(wrongKey.body.code);
    expect(wrongKey.headers.get('x-latch-known-error')).toBe(wrongKey.body.code);

    // Stack's SDK asks for status 200 and reads the real one from x-stack-actual-status.
    const overridden = await h.get('/users/me', { ...stack(project, 'not-a-token'), 'x-stack-override-error-status': 'true' });
    expect(overridden.status).toBe(200);
    expect(overridden.headers.get('x-stack-actual-status')).toBe('401');
    expect(overridden.headers.get('x-stack-known-error')).toBe(overridden.body.code);
  });

  it('lets browsers send the x-stack-* headers cross-origin and read the Stack response headers', async () => {
    const preflight = await fetch(`${h.url}/api/v1/users/me`, {
      method: 'OPTIONS',
      headers: { origin: 'http://app.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-stack-project-id' },
    });
    const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').split(', ');
    for (const name of [
      'x-stack-project-id',
      'x-stack-access-type',
      'x-stack-access-token',
      'x-stack-refresh-token',
      'x-stack-publishable-client-key',
      'x-stack-client-version',
      'x-stack-random-nonce',
      'x-stack-override-error-status',
      'x-stack-auth',
      'x-latch-project-id',
    ]) {
      expect(allowed).toContain(name);
    }
    const actual = await fetch(`${h.url}/api/v1/users/me`, { headers: { origin: 'http://app.example' } });
    const exposed = (actual.headers.get('access-control-expose-headers') ?? '').split(', ');
    expect(exposed).toEqual(expect.arrayContaining(['x-stack-known-error', 'x-stack-actual-status', 'x-latch-known-error']));
  });

  it('a request that sends x-latch-project-id reads only x-latch-* credentials (one dialect per request)', async () => {
    const project = await h.createProject({ owner });
    const user = await h.signUpUser(project);
    const mixed = await h.get('/users/me', { ...project.client(), 'x-stack-access-token': user.accessToken });
    expect(mixed.body.code).toBe('CANNOT_GET_OWN_USER_WITHOUT_USER');
  });
});
