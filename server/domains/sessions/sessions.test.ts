import { createPublicKey } from 'node:crypto';
import { SignJWT, createLocalJWKSet, decodeJwt, decodeProtectedHeader, generateKeyPair, jwtVerify } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AccessTokenClaims } from '../../crypto/jwt.js';
import { type ApiResponse, type OwnerSession, type ProjectFixture, useHarness, type UserSession } from '../../test/harness.js';

/**
 * Sessions and tokens through real HTTP: refresh (header, x-latch-auth, OAuth token endpoint),
 * sign-out, the session list, server-created sessions, access-token verification and the JWKS.
 */

const h = useHarness();
let owner: OwnerSession;
beforeAll(async () => {
  owner = await h.signUpOwner();
});

const ONE_YEAR_MS = 31_536_000_000;

const newProject = (): Promise<ProjectFixture> => h.createProject({ owner });

function expectKnownError(res: ApiResponse, code: string, status: number): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers.get('x-latch-known-error')).toBe(code);
  expect(typeof res.body.error).toBe('string');
}

const refresh = (project: ProjectFixture, refreshToken: string, extra: Record<string, string> = {}) =>
  h.post('/auth/sessions/current/refresh', {}, { ...project.client(), 'x-latch-refresh-token': refreshToken, ...extra });
const me = (project: ProjectFixture, accessToken: string) => h.get('/users/me', project.client(accessToken));

/** The access token works: /users/me answers 200 with this user. */
async function expectSignedInAs(project: ProjectFixture, accessToken: string, userId: string): Promise<void> {
  const read = await me(project, accessToken);
  expect(read.status).toBe(200);
  expect(read.body.id).toBe(userId);
}
const signIn = (project: ProjectFixture, user: UserSession) =>
  h.post('/auth/password/sign-in', { email: user.email, password: user.password }, project.client());
const oauthToken = (form: Record<string, string>, headers: Record<string, string> = {}) => h.call('/auth/oauth/token', { method: 'POST', form, headers });

/** The claims of a real token, for re-signing variants of it. */
function claimsOf(token: string): Omit<AccessTokenClaims, 'iat' | 'exp'> {
  const { iat: _iat, exp: _exp, ...rest } = decodeJwt(token);
  const claims = rest as Partial<AccessTokenClaims>;
  if (typeof claims.sub !== 'string' || typeof claims.project_id !== 'string' || typeof claims.aud !== 'string') throw new Error('not an access token');
  return claims as Omit<AccessTokenClaims, 'iat' | 'exp'>;
}

async function sessionRow(projectId: string, sessionId: string) {
  const db = h.latch.deps.db;
  const tenancy = await db.selectFrom('tenancies').select('id').where('project_id', '=', projectId).where('branch_id', '=', 'main').executeTakeFirstOrThrow();
  return db.selectFrom('sessions').selectAll().where('tenancy_id', '=', tenancy.id).where('id', '=', sessionId).executeTakeFirst();
}

describe('refresh', () => {
  it('returns a working access token for the refresh token in x-latch-refresh-token', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const res = await refresh(project, user.refreshToken);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['access_token']);
    expect(decodeJwt(res.body.access_token)).toMatchObject({ sub: user.userId, refresh_token_id: decodeJwt(user.accessToken).refresh_token_id });
    await expectSignedInAs(project, res.body.access_token, user.userId);
  });

  it('works when an expired or garbage access token is sent along', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const expired = await h.latch.deps.keyring.current().sign(claimsOf(user.accessToken), -60);
    expectKnownError(await me(project, expired), 'ACCESS_TOKEN_EXPIRED', 401);

    for (const accessToken of [expired, 'garbage.token.here', 'x']) {
      const res = await refresh(project, user.refreshToken, { 'x-latch-access-token': accessToken });
      expect(res.status, accessToken).toBe(200);
      expect((await me(project, res.body.access_token)).status).toBe(200);
    }
  });

  it('reads the refresh token from x-latch-auth too', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const res = await h.post(
      '/auth/sessions/current/refresh',
      {},
      { ...project.client(), 'x-latch-auth': JSON.stringify({ accessToken: 'expired-anyway', refreshToken: user.refreshToken }) },
    );
    expect(res.status).toBe(200);
    expect((await me(project, res.body.access_token)).status).toBe(200);

    const bad = await h.post('/auth/sessions/current/refresh', {}, { ...project.client(), 'x-latch-auth': '"just a string"' });
    expectKnownError(bad, 'SCHEMA_ERROR', 400);
  });

  it('refuses a missing, unknown or foreign refresh token, and a wrong project key', async () => {
    const [a, b] = await Promise.all([newProject(), newProject()]);
    const user = await h.signUpUser(a);

    expectKnownError(await h.post('/auth/sessions/current/refresh', {}, a.client()), 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED', 401);
    expectKnownError(await refresh(a, `${user.refreshToken}x`), 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED', 401);
    // Project A's refresh token with project B's (valid) headers.
    expectKnownError(await refresh(b, user.refreshToken), 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED', 401);
    // Project A's id with project B's publishable key.
    const wrongKey = await h.post(
      '/auth/sessions/current/refresh',
      {},
      { ...a.client(), 'x-latch-publishable-client-key': b.publishableClientKey, 'x-latch-refresh-token': user.refreshToken },
    );
    expectKnownError(wrongKey, 'INVALID_PUBLISHABLE_CLIENT_KEY', 401);
    // No project credentials at all.
    const bare = await h.post('/auth/sessions/current/refresh', {}, { 'x-latch-refresh-token': user.refreshToken });
    expect(bare.status).toBe(401);
    expect(bare.body.code).toMatch(/AUTHENTICATION_REQUIRED$/);

    // The token itself is still fine in its own project.
    expect((await refresh(a, user.refreshToken)).status).toBe(200);
  });

  it('serves 100 concurrent refreshes of one token, all with working access tokens', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const results = await Promise.all(Array.from({ length: 100 }, () => refresh(project, user.refreshToken)));
    expect(results.map((r) => r.status)).toEqual(Array(100).fill(200));
    const sessionId = decodeJwt(user.accessToken).refresh_token_id;
    for (const r of results) expect(decodeJwt(r.body.access_token)).toMatchObject({ sub: user.userId, refresh_token_id: sessionId });
    expect((await me(project, results[99]!.body.access_token)).status).toBe(200);
    // Refreshing does not rotate or end the session.
    expect((await refresh(project, user.refreshToken)).status).toBe(200);
  });
});

describe('OAuth token endpoint (grant_type=refresh_token)', () => {
  it('refreshes with a form body, client_id = project id and client_secret = publishable key', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const res = await oauthToken({
      grant_type: 'refresh_token',
      refresh_token: user.refreshToken,
      client_id: project.id,
      client_secret: project.publishableClientKey,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 600, refresh_token: user.refreshToken });
    expect(res.headers.get('cache-control')).toBe('no-store');
    await expectSignedInAs(project, res.body.access_token, user.userId);
  });

  it('refreshes with a JSON body', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const res = await h.post('/auth/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: user.refreshToken,
      client_id: project.id,
      client_secret: project.publishableClientKey,
    });
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('Bearer');
    expect((await me(project, res.body.access_token)).status).toBe(200);
  });

  it('refreshes with HTTP Basic client authentication', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const basic = `Basic ${Buffer.from(`${project.id}:${project.publishableClientKey}`).toString('base64')}`;
    const res = await oauthToken({ grant_type: 'refresh_token', refresh_token: user.refreshToken }, { authorization: basic });
    expect(res.status).toBe(200);
    expect((await me(project, res.body.access_token)).status).toBe(200);

    // Basic wins over the body: a wrong secret in the header is not rescued by a right one in the body.
    const wrong = `Basic ${Buffer.from(`${project.id}:pck_wrong`).toString('base64')}`;
    const refused = await oauthToken(
      { grant_type: 'refresh_token', refresh_token: user.refreshToken, client_id: project.id, client_secret: project.publishableClientKey },
      { authorization: wrong },
    );
    // Wrong Basic credentials get the spec's message (section 5, "Authorization header").
    expectKnownError(refused, 'INVALID_OAUTH_CLIENT_ID_OR_SECRET', 400);
    expect(refused.body.error).toBe('Invalid client_id:client_secret values; did you use the correct values for the integration?');
  });

  it('refuses a malformed Authorization header with the spec message', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const malformed = [
      `Bearer ${user.accessToken}`,
      'Basic',
      'Basic not*base64!',
      `Basic ${Buffer.from('no-colon-here').toString('base64')}`,
      `Basic ${Buffer.from(`%zz:${project.publishableClientKey}`).toString('base64')}`,
    ];
    for (const authorization of malformed) {
      const res = await oauthToken({ grant_type: 'refresh_token', refresh_token: user.refreshToken }, { authorization });
      expectKnownError(res, 'SCHEMA_ERROR', 400);
      expect(res.body.error, authorization).toBe('Authorization header must be in the format "Basic <base64>"');
    }
  });

  it('refuses a wrong grant type, a missing or dead refresh token, and wrong client credentials', async () => {
    const [project, other] = await Promise.all([newProject(), newProject()]);
    const user = await h.signUpUser(project);
    const client = { client_id: project.id, client_secret: project.publishableClientKey };

    const grant = await oauthToken({ grant_type: 'authorization_code_typo', refresh_token: user.refreshToken, ...client });
    expectKnownError(grant, 'SCHEMA_ERROR', 400);
    expect(grant.body.details.issues[0].path).toBe('grant_type');

    const missing = await oauthToken({ grant_type: 'refresh_token', ...client });
    expectKnownError(missing, 'SCHEMA_ERROR', 400);
    expect(missing.body.details.issues[0].path).toBe('refresh_token');

    expectKnownError(await oauthToken({ grant_type: 'refresh_token', refresh_token: 'not-a-token', ...client }), 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED', 401);
    expectKnownError(
      await oauthToken({ grant_type: 'refresh_token', refresh_token: user.refreshToken, client_id: project.id, client_secret: 'pck_wrong' }),
      'INVALID_PUBLISHABLE_CLIENT_KEY',
      401,
    );
    // The other project's (valid) credentials do not unlock this project's token.
    const foreign = await oauthToken({
      grant_type: 'refresh_token',
      refresh_token: user.refreshToken,
      client_id: other.id,
      client_secret: other.publishableClientKey,
    });
    expectKnownError(foreign, 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED', 401);
    const unknownProject = await oauthToken({
      grant_type: 'refresh_token',
      refresh_token: user.refreshToken,
      client_id: 'no-such-project',
      client_secret: project.publishableClientKey,
    });
    expect(unknownProject.status).toBeGreaterThanOrEqual(400);
    expect(unknownProject.status).toBeLessThan(500);
    expect(unknownProject.body).not.toHaveProperty('access_token');
  });
});

describe('sign-out and the end of a session', () => {
  it('ends the current session: its refresh token and access token stop working, other sessions do not', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const other = await signIn(project, user);

    const out = await h.del('/auth/sessions/current', project.client(user.accessToken));
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ success: true });

    expectKnownError(await refresh(project, user.refreshToken), 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED', 401);
    expectKnownError(
      await oauthToken({ grant_type: 'refresh_token', refresh_token: user.refreshToken, client_id: project.id, client_secret: project.publishableClientKey }),
      'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED',
      401,
    );
    expectKnownError(await me(project, user.accessToken), 'ACCESS_TOKEN_EXPIRED', 401);

    expect((await refresh(project, other.body.refresh_token)).status).toBe(200);
    expect((await me(project, other.body.access_token)).status).toBe(200);
  });

  it('needs a signed-in user to sign out', async () => {
    const project = await newProject();
    expectKnownError(await h.del('/auth/sessions/current', project.client()), 'USER_AUTHENTICATION_REQUIRED', 401);
  });

  it('ends every session of a deleted user', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const other = await signIn(project, user);
    const deleted = await h.del(`/users/${user.userId}`, project.server());
    expect(deleted.status).toBe(200);

    for (const token of [user.refreshToken, other.body.refresh_token])
      expectKnownError(await refresh(project, token), 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED', 401);
    expectKnownError(await me(project, user.accessToken), 'ACCESS_TOKEN_EXPIRED', 401);
    // The user is gone, sessions and all.
    expectKnownError(await h.get(`/auth/sessions?user_id=${user.userId}`, project.server()), 'USER_NOT_FOUND', 404);
    expect(await h.latch.deps.db.selectFrom('sessions').select('id').where('user_id', '=', user.userId).execute()).toEqual([]);
  });
});

describe('session list and revocation', () => {
  it('lists a client its own sessions, marking the current one', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const second = await signIn(project, user);
    const bystander = await h.signUpUser(project);
    const firstId = decodeJwt(user.accessToken).refresh_token_id;
    const secondId = decodeJwt(second.body.access_token).refresh_token_id;

    for (const query of ['', '?user_id=me', `?user_id=${user.userId}`]) {
      const res = await h.get(`/auth/sessions${query}`, project.client(user.accessToken));
      expect(res.status, query).toBe(200);
      expect(res.body.is_paginated).toBe(false);
      expect(res.body.items.map((s: { id: string }) => s.id).sort()).toEqual([firstId, secondId].sort());
      const current = res.body.items.filter((s: { is_current_session: boolean }) => s.is_current_session);
      expect(current.map((s: { id: string }) => s.id)).toEqual([firstId]);
      for (const session of res.body.items) {
        expect(session).toMatchObject({ user_id: user.userId, is_impersonation: false, created_at: expect.any(Number) });
        expect(Math.abs(session.created_at - Date.now())).toBeLessThan(60_000);
        // Sign-up and sign-in both record where the session was used from.
        expect(session.last_used_at_end_user_ip_info).toEqual({ ip: expect.stringMatching(/127\.0\.0\.1|::1/) });
      }
    }
    const fromSecond = await h.get('/auth/sessions', project.client(second.body.access_token));
    expect(fromSecond.body.items.find((s: { is_current_session: boolean }) => s.is_current_session).id).toBe(secondId);

    // The bystander's session is in nobody else's list.
    const bystanderId = decodeJwt(bystander.accessToken).refresh_token_id as string;
    const listed = await h.get('/auth/sessions', project.client(user.accessToken));
    expect(JSON.stringify(listed.body)).not.toContain(bystanderId);
  });

  it("never shows a client another user's sessions", async () => {
    const project = await newProject();
    const [user, victim] = [await h.signUpUser(project), await h.signUpUser(project)];
    const victimSession = decodeJwt(victim.accessToken).refresh_token_id as string;
    const res = await h.get(`/auth/sessions?user_id=${victim.userId}`, project.client(user.accessToken));
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.body.code).toBe('USER_NOT_FOUND');
    expect(JSON.stringify(res.body)).not.toContain(victimSession);

    // Without a signed-in user there is no "own" list.
    expectKnownError(await h.get('/auth/sessions', project.client()), 'CANNOT_GET_OWN_USER_WITHOUT_USER', 400);
    const anonymousAsk = await h.get(`/auth/sessions?user_id=${victim.userId}`, project.client());
    expect(anonymousAsk.status).toBe(401);
    expect(JSON.stringify(anonymousAsk.body)).not.toContain(victimSession);
  });

  it("lists any user's sessions for the server, within its project only", async () => {
    const [project, other] = await Promise.all([newProject(), newProject()]);
    const user = await h.signUpUser(project);
    await signIn(project, user);
    const res = await h.get(`/auth/sessions?user_id=${user.userId}`, project.server());
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(2);
    expect(res.body.items.every((s: { is_current_session: boolean; user_id: string }) => !s.is_current_session && s.user_id === user.userId)).toBe(true);

    // Another project's server key, and an id nobody has: the user does not exist there.
    expectKnownError(await h.get(`/auth/sessions?user_id=${user.userId}`, other.server()), 'USER_NOT_FOUND', 404);
    expectKnownError(await h.get(`/auth/sessions?user_id=${crypto.randomUUID()}`, project.server()), 'USER_NOT_FOUND', 404);
    // A user with no live session is an empty list, not an error.
    const quiet = await h.post('/users', { primary_email: h.uniqueEmail('quiet') }, project.server());
    expect(quiet.status).toBe(201);
    const none = await h.get(`/auth/sessions?user_id=${quiet.body.id}`, project.server());
    expect({ status: none.status, items: none.body.items }).toEqual({ status: 200, items: [] });

    expectKnownError(await h.get('/auth/sessions', project.server()), 'CANNOT_GET_OWN_USER_WITHOUT_USER', 400);
    expectKnownError(await h.get('/auth/sessions?user_id=not-a-uuid', project.server()), 'SCHEMA_ERROR', 400);
  });

  it('revokes another own session, but not the current one', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const second = await signIn(project, user);
    const secondId = decodeJwt(second.body.access_token).refresh_token_id as string;
    const currentId = decodeJwt(user.accessToken).refresh_token_id as string;

    const current = await h.del(`/auth/sessions/${currentId}?user_id=me`, project.client(user.accessToken));
    expectKnownError(current, 'CANNOT_DELETE_CURRENT_SESSION', 400);
    expect((await refresh(project, user.refreshToken)).status).toBe(200);

    const res = await h.del(`/auth/sessions/${secondId}?user_id=me`, project.client(user.accessToken));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expectKnownError(await refresh(project, second.body.refresh_token), 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED', 401);
    expectKnownError(await me(project, second.body.access_token), 'ACCESS_TOKEN_EXPIRED', 401);
    expect((await refresh(project, user.refreshToken)).status).toBe(200);

    expectKnownError(await h.del(`/auth/sessions/${secondId}?user_id=me`, project.client(user.accessToken)), 'SESSION_NOT_FOUND', 404);
    expectKnownError(await h.del('/auth/sessions/not-a-uuid', project.client(user.accessToken)), 'SCHEMA_ERROR', 400);
  });

  it("cannot revoke another user's session as a client; the server can", async () => {
    const project = await newProject();
    const [user, victim] = [await h.signUpUser(project), await h.signUpUser(project)];
    const victimSession = decodeJwt(victim.accessToken).refresh_token_id as string;

    expectKnownError(await h.del(`/auth/sessions/${victimSession}`, project.client(user.accessToken)), 'SESSION_NOT_FOUND', 404);
    const named = await h.del(`/auth/sessions/${victimSession}?user_id=${victim.userId}`, project.client(user.accessToken));
    expect(named.status).toBe(404);
    expect(named.body.code).toBe('USER_NOT_FOUND');
    expect((await refresh(project, victim.refreshToken)).status).toBe(200);

    // The session id alone is not enough even for the server: it must belong to the named user.
    expectKnownError(await h.del(`/auth/sessions/${victimSession}?user_id=${user.userId}`, project.server()), 'SESSION_NOT_FOUND', 404);
    const byServer = await h.del(`/auth/sessions/${victimSession}?user_id=${victim.userId}`, project.server());
    expect(byServer.status).toBe(200);
    expectKnownError(await refresh(project, victim.refreshToken), 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED', 401);
  });
});

describe('server-created sessions', () => {
  it('creates a session for a user (201) that lasts one year by default', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const before = Date.now();
    const res = await h.post('/auth/sessions', { user_id: user.userId }, project.server());
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['access_token', 'refresh_token']);
    const claims = decodeJwt(res.body.access_token);
    expect(claims.sub).toBe(user.userId);
    expect((await me(project, res.body.access_token)).status).toBe(200);
    expect((await refresh(project, res.body.refresh_token)).status).toBe(200);

    const row = await sessionRow(project.id, claims.refresh_token_id as string);
    expect(row).toBeDefined();
    expect(row!.is_impersonation).toBe(false);
    const expiresAt = row!.expires_at!.getTime();
    expect(expiresAt).toBeGreaterThanOrEqual(before + ONE_YEAR_MS - 5_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + ONE_YEAR_MS + 5_000);
  });

  it('stores is_impersonation and a custom lifetime', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const res = await h.post('/auth/sessions', { user_id: user.userId, is_impersonation: true, expires_in_millis: 3_600_000 }, project.server());
    expect(res.status).toBe(201);
    const sessionId = decodeJwt(res.body.access_token).refresh_token_id as string;
    const row = await sessionRow(project.id, sessionId);
    expect(row!.is_impersonation).toBe(true);
    expect(Math.abs(row!.expires_at!.getTime() - (Date.now() + 3_600_000))).toBeLessThan(10_000);

    const listed = await h.get(`/auth/sessions?user_id=${user.userId}`, project.server());
    const byId = new Map(listed.body.items.map((s: { id: string; is_impersonation: boolean }) => [s.id, s.is_impersonation]));
    expect(byId.get(sessionId)).toBe(true);
    expect(byId.get(decodeJwt(user.accessToken).refresh_token_id as string)).toBe(false);
  });

  it('lets a short session expire: the refresh token stops working and the session leaves the list', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const res = await h.post('/auth/sessions', { user_id: user.userId, expires_in_millis: 2500 }, project.server());
    expect(res.status).toBe(201);
    const claims = decodeJwt(res.body.access_token);
    // The access token ends no later than the session.
    expect(claims.exp! * 1000).toBeLessThanOrEqual(Date.now() + 2500);
    expect((await me(project, res.body.access_token)).status).toBe(200);
    const refreshed = await refresh(project, res.body.refresh_token);
    expect(refreshed.status).toBe(200);
    expect(decodeJwt(refreshed.body.access_token).exp! * 1000).toBeLessThanOrEqual(Date.now() + 2500);
    await new Promise((resolve) => setTimeout(resolve, 2600));
    expectKnownError(await refresh(project, res.body.refresh_token), 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED', 401);
    const listed = await h.get(`/auth/sessions?user_id=${user.userId}`, project.server());
    expect(listed.body.items.map((s: { id: string }) => s.id)).toEqual([decodeJwt(user.accessToken).refresh_token_id]);
    // Its access token does not outlive it either.
    expectKnownError(await me(project, res.body.access_token), 'ACCESS_TOKEN_EXPIRED', 401);
  });

  it('refuses unknown users, users of other projects, bad input and client callers', async () => {
    const [project, other] = await Promise.all([newProject(), newProject()]);
    const stranger = await h.signUpUser(other);
    const unknownId = '0b8e2c1e-3f5a-4d6b-9c7d-1e2f3a4b5c6d';

    const unknown = await h.post('/auth/sessions', { user_id: unknownId }, project.server());
    expectKnownError(unknown, 'USER_ID_DOES_NOT_EXIST', 400);
    expect(unknown.body.details).toEqual({ user_id: unknownId });
    expectKnownError(await h.post('/auth/sessions', { user_id: stranger.userId }, project.server()), 'USER_ID_DOES_NOT_EXIST', 400);

    expectKnownError(await h.post('/auth/sessions', { user_id: 'not-a-uuid' }, project.server()), 'SCHEMA_ERROR', 400);
    expectKnownError(await h.post('/auth/sessions', { user_id: stranger.userId, expires_in_millis: 10 }, project.server()), 'SCHEMA_ERROR', 400);
    expectKnownError(await h.post('/auth/sessions', { user_id: stranger.userId, extra: 1 }, project.server()), 'SCHEMA_ERROR', 400);

    const user = await h.signUpUser(project);
    expectKnownError(await h.post('/auth/sessions', { user_id: user.userId }, project.client(user.accessToken)), 'INSUFFICIENT_ACCESS_TYPE', 401);
    const admin = await h.post('/auth/sessions', { user_id: user.userId }, project.admin());
    expect(admin.status).toBe(201);
  });
});

describe('access-token verification', () => {
  it("refuses another project's token with INVALID_PROJECT_FOR_ACCESS_TOKEN", async () => {
    const [a, b] = await Promise.all([newProject(), newProject()]);
    const user = await h.signUpUser(a);
    const res = await me(b, user.accessToken);
    expectKnownError(res, 'INVALID_PROJECT_FOR_ACCESS_TOKEN', 401);
    expect(res.body.details).toEqual({ expected_project_id: b.id, actual_project_id: a.id });
    // Not only on user routes: any request carrying it is refused.
    expectKnownError(await h.get('/projects/current', b.client(user.accessToken)), 'INVALID_PROJECT_FOR_ACCESS_TOKEN', 401);
  });

  it('refuses garbage with UNPARSABLE_ACCESS_TOKEN and an expired token with ACCESS_TOKEN_EXPIRED', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    for (const garbage of ['garbage', 'a.b.c', `${user.accessToken}x`, user.refreshToken]) {
      expectKnownError(await me(project, garbage), 'UNPARSABLE_ACCESS_TOKEN', 401);
    }
    const expired = await h.latch.deps.keyring.current().sign(claimsOf(user.accessToken), -60);
    expect(decodeJwt(expired).exp).toBeLessThan(Date.now() / 1000);
    expectKnownError(await me(project, expired), 'ACCESS_TOKEN_EXPIRED', 401);
    // The same claims, signed as fresh, are accepted: the expiry is what was refused.
    const fresh = await h.latch.deps.keyring.current().sign(claimsOf(user.accessToken), 60);
    expect((await me(project, fresh)).status).toBe(200);
  });

  it('refuses forged tokens: alg none, HS256 keyed with the public key, a foreign key, a tampered payload', async () => {
    const project = await newProject();
    const [user, victim] = [await h.signUpUser(project), await h.signUpUser(project)];
    const header = decodeProtectedHeader(user.accessToken);
    const payload = decodeJwt(user.accessToken);
    const victimPayload = { ...payload, sub: victim.userId, email: victim.email };
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

    const none = `${b64({ alg: 'none', typ: 'JWT', kid: header.kid })}.${b64(victimPayload)}.`;
    expectKnownError(await me(project, none), 'UNPARSABLE_ACCESS_TOKEN', 401);

    const jwks = await h.get(`/projects/${project.id}/.well-known/jwks.json`);
    const publicJwk = jwks.body.keys.find((k: { kid: string }) => k.kid === header.kid);
    expect(publicJwk).toBeDefined();
    const pem = createPublicKey({ key: publicJwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' }).toString();
    for (const secret of [pem, JSON.stringify(publicJwk)]) {
      const hs256 = await new SignJWT(victimPayload).setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: header.kid }).sign(new TextEncoder().encode(secret));
      expectKnownError(await me(project, hs256), 'UNPARSABLE_ACCESS_TOKEN', 401);
    }

    const { privateKey } = await generateKeyPair('ES256');
    for (const kid of [header.kid, 'some-unknown-kid']) {
      const foreign = await new SignJWT(victimPayload).setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid }).sign(privateKey);
      expectKnownError(await me(project, foreign), 'UNPARSABLE_ACCESS_TOKEN', 401);
    }

    const [head, , signature] = user.accessToken.split('.');
    const tampered = `${head}.${b64(victimPayload)}.${signature}`;
    expectKnownError(await me(project, tampered), 'UNPARSABLE_ACCESS_TOKEN', 401);

    // The genuine token still reads its own user, never the victim.
    const own = await me(project, user.accessToken);
    expect(own.body.id).toBe(user.userId);
  });
});

describe('JWKS', () => {
  it('publishes public keys that verify the access token, whose claims follow the contract', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const res = await h.get(`/projects/${project.id}/.well-known/jwks.json`);
    expect(res.status).toBe(200);
    expect(res.body.keys.length).toBeGreaterThan(0);
    for (const key of res.body.keys) {
      expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', kid: expect.any(String) });
      expect(key).not.toHaveProperty('d');
    }

    const issuer = `${h.url}/api/v1/projects/${project.id}`;
    const { payload, protectedHeader } = await jwtVerify(user.accessToken, createLocalJWKSet(res.body), {
      issuer,
      audience: project.id,
      algorithms: ['ES256'],
    });
    expect(protectedHeader.alg).toBe('ES256');
    expect(res.body.keys.map((k: { kid: string }) => k.kid)).toContain(protectedHeader.kid);

    const sessions = await h.get('/auth/sessions', project.client(user.accessToken));
    const currentSession = sessions.body.items.find((s: { is_current_session: boolean }) => s.is_current_session);
    expect(payload).toMatchObject({
      sub: user.userId,
      iss: issuer,
      aud: project.id,
      role: 'authenticated',
      project_id: project.id,
      branch_id: 'main',
      refresh_token_id: currentSession.id,
      email: user.email,
      email_verified: false,
      name: null,
      selected_team_id: null,
      is_anonymous: false,
      // The claims the Stack Auth SDKs validate besides those (README, "Migrating from Stack Auth").
      is_restricted: false,
      restricted_reason: null,
      requires_totp_mfa: false,
    });
    expect(payload.signed_up_at).toBe(Math.floor((await h.get(`/users/${user.userId}`, project.server())).body.signed_up_at_millis / 1000));
    expect(payload.exp! - payload.iat!).toBe(600);
    expect(Math.abs(payload.iat! - Date.now() / 1000)).toBeLessThan(60);

    // A refreshed token verifies the same way.
    const refreshed = await refresh(project, user.refreshToken);
    await expect(
      jwtVerify(refreshed.body.access_token, createLocalJWKSet(res.body), { issuer, audience: project.id, algorithms: ['ES256'] }),
    ).resolves.toBeDefined();
  });

  it('answers PROJECT_NOT_FOUND 404 for an unknown project', async () => {
    expectKnownError(await h.get('/projects/no-such-project/.well-known/jwks.json'), 'PROJECT_NOT_FOUND', 404);
  });
});
