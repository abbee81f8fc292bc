import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../crypto/totp.js';
import { TOTP_CHANGE_MAX_SIGN_IN_AGE_SECONDS } from '../domains/users/service.js';
import { type ApiResponse, type OwnerSession, type ProjectFixture, useHarness, type UserSession } from './harness.js';

/**
 * Issue 13, item 12: a client cannot set (or clear) `totp_secret_base64` without a fresh proof of
 * identity. Until TOTP enrolment checks a code from the authenticator, the proof is a recent
 * sign-in: the session behind the access token must have been created within the last
 * TOTP_CHANGE_MAX_SIGN_IN_AGE_SECONDS. A stolen token of an older session gets
 * RECENT_SIGN_IN_REQUIRED (403). Server and admin access are unchanged.
 */

const h = useHarness();
let owner: OwnerSession;
beforeAll(async () => {
  owner = await h.signUpOwner();
});

function expectKnownError(res: ApiResponse, code: string, status: number): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers.get('x-latch-known-error')).toBe(code);
  expect(typeof res.body.error).toBe('string');
}

const secret = () => randomBytes(20).toString('base64');

/** Moves the user's sessions' sign-in time back, as if they had signed in that long ago. */
async function ageSessions(project: ProjectFixture, user: UserSession, seconds: number): Promise<void> {
  const db = h.latch.deps.db;
  const tenancy = await db.selectFrom('tenancies').select('id').where('project_id', '=', project.id).where('branch_id', '=', 'main').executeTakeFirstOrThrow();
  const result = await db
    .updateTable('sessions')
    .set({ created_at: new Date(Date.now() - seconds * 1000) })
    .where('tenancy_id', '=', tenancy.id)
    .where('user_id', '=', user.userId)
    .executeTakeFirst();
  expect(Number(result.numUpdatedRows)).toBeGreaterThan(0);
}

const requiresTotp = async (project: ProjectFixture, user: UserSession) => (await h.get(`/users/${user.userId}`, project.server())).body.requires_totp_mfa;

describe('totp_secret_base64 needs a recent sign-in from a client', () => {
  it('lets a client that just signed in set and clear it', async () => {
    const project = await h.createProject({ owner });
    const user = await h.signUpUser(project);
    const on = await h.patch('/users/me', { totp_secret_base64: secret() }, project.client(user.accessToken));
    expect(on.status).toBe(200);
    expect(on.body.requires_totp_mfa).toBe(true);
    const off = await h.patch('/users/me', { totp_secret_base64: null }, project.client(user.accessToken));
    expect(off.body.requires_totp_mfa).toBe(false);
  });

  it('refuses a session signed in longer ago with RECENT_SIGN_IN_REQUIRED, even with a freshly refreshed access token, and leaves MFA as it was', async () => {
    expect(TOTP_CHANGE_MAX_SIGN_IN_AGE_SECONDS).toBe(300);
    const project = await h.createProject({ owner });
    const user = await h.signUpUser(project);
    await ageSessions(project, user, TOTP_CHANGE_MAX_SIGN_IN_AGE_SECONDS + 60);
    // A refresh gives a brand-new access token (new iat), but the sign-in is still old.
    const refreshed = await h.post('/auth/sessions/current/refresh', {}, { ...project.client(), 'x-latch-refresh-token': user.refreshToken });
    for (const token of [user.accessToken, refreshed.body.access_token as string]) {
      const res = await h.patch('/users/me', { totp_secret_base64: secret() }, project.client(token));
      expectKnownError(res, 'RECENT_SIGN_IN_REQUIRED', 403);
      expect(res.body.details).toEqual({ max_age_seconds: TOTP_CHANGE_MAX_SIGN_IN_AGE_SECONDS });
    }
    expect(await requiresTotp(project, user)).toBe(false);
    // Other fields need no fresh proof, and nothing of the refused request was applied.
    const named = await h.patch('/users/me', { display_name: 'Still me' }, project.client(user.accessToken));
    expect({ status: named.status, name: named.body.display_name, totp: named.body.requires_totp_mfa }).toEqual({ status: 200, name: 'Still me', totp: false });

    // Turning MFA off is as sensitive as turning it on.
    const imported = secret();
    await h.patch(`/users/${user.userId}`, { totp_secret_base64: imported }, project.server());
    expectKnownError(await h.patch('/users/me', { totp_secret_base64: null }, project.client(user.accessToken)), 'RECENT_SIGN_IN_REQUIRED', 403);
    expect(await requiresTotp(project, user)).toBe(true);

    // Signing in again is the proof. With MFA on, the password alone is not a sign-in (issue 16):
    // the attempt code and a code from the authenticator finish it.
    const gated = await h.post('/auth/password/sign-in', { email: user.email, password: user.password }, project.client());
    expectKnownError(gated, 'MULTI_FACTOR_AUTHENTICATION_REQUIRED', 400);
    const signIn = await h.post('/auth/mfa/sign-in', { type: 'totp', totp: await totpCode(imported), code: gated.body.details.attempt_code }, project.client());
    expect(signIn.status).toBe(200);
    const cleared = await h.patch('/users/me', { totp_secret_base64: null }, project.client(signIn.body.access_token));
    expect(cleared.status).toBe(200);
    expect(cleared.body.requires_totp_mfa).toBe(false);
  });

  it('leaves server and admin access unchanged', async () => {
    const project = await h.createProject({ owner });
    const user = await h.signUpUser(project);
    await ageSessions(project, user, 3600);
    expect((await h.patch(`/users/${user.userId}`, { totp_secret_base64: secret() }, project.server())).body.requires_totp_mfa).toBe(true);
    expect((await h.patch(`/users/${user.userId}`, { totp_secret_base64: null }, project.admin())).body.requires_totp_mfa).toBe(false);
    // A server call carrying the user's old access token is server access too.
    expect((await h.patch('/users/me', { totp_secret_base64: secret() }, project.server(user.accessToken))).body.requires_totp_mfa).toBe(true);
  });
});
