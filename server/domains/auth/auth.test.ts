import bcrypt from 'bcryptjs';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, type OwnerSession, type ProjectFixture, useHarness } from '../../test/harness.js';
import { tenancyOf } from '../../test/team-fixtures.js';

/**
 * Password and anonymous authentication, through real HTTP. Every test makes its own project; the
 * projects share one owner only to save an argon2id hash per test.
 */

const h = useHarness();
let owner: OwnerSession;
beforeAll(async () => {
  owner = await h.signUpOwner();
});

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const PASSWORD = 'correct-horse-battery';

function newProject(config?: Record<string, unknown>): Promise<ProjectFixture> {
  return h.createProject({ owner, ...(config ? { config } : {}) });
}

/** A catalogued error: status, body code, and the x-latch-known-error header naming the same code. */
function expectKnownError(res: ApiResponse, code: string, status: number): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers.get('x-latch-known-error')).toBe(code);
  expect(typeof res.body.error).toBe('string');
}

async function tenancyId(projectId: string): Promise<string> {
  return (await tenancyOf(h, projectId)).id;
}

async function storedPasswordHash(projectId: string, userId: string): Promise<string | null> {
  const row = await h.latch.deps.db
    .selectFrom('users')
    .select('password_hash')
    .where('tenancy_id', '=', await tenancyId(projectId))
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  return row.password_hash;
}

const signUp = (project: ProjectFixture, body: Record<string, unknown>, headers = project.client()) => h.post('/auth/password/sign-up', body, headers);
const signIn = (project: ProjectFixture, email: string, password: string) => h.post('/auth/password/sign-in', { email, password }, project.client());
const refresh = (project: ProjectFixture, refreshToken: string) =>
  h.post('/auth/sessions/current/refresh', {}, { ...project.client(), 'x-latch-refresh-token': refreshToken });

describe('password sign-up', () => {
  it('creates a user and returns working tokens with is_new_user true', async () => {
    const project = await newProject();
    const email = h.uniqueEmail('signup');
    const res = await signUp(project, { email, password: PASSWORD });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['access_token', 'is_new_user', 'refresh_token', 'user_id']);
    expect(res.body.is_new_user).toBe(true);
    expect(res.body.user_id).toMatch(UUID_V4);
    expect(res.body.refresh_token).toEqual(expect.any(String));
    expect(res.body.refresh_token.length).toBeGreaterThanOrEqual(32);

    const claims = decodeJwt(res.body.access_token);
    expect(claims.sub).toBe(res.body.user_id);
    expect(claims.project_id).toBe(project.id);
    expect(claims.email).toBe(email);

    const me = await h.get('/users/me', project.client(res.body.access_token));
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      id: res.body.user_id,
      primary_email: email,
      has_password: true,
      is_anonymous: false,
      primary_email_verified: false,
      auth_with_email: true,
    });
    expect(me.body).not.toHaveProperty('password_hash');
    expect(me.body).not.toHaveProperty('server_metadata');

    expect((await refresh(project, res.body.refresh_token)).status).toBe(200);
  });

  it('accepts an optional verification_callback_url (a trusted URL: the verification email is queued with the user)', async () => {
    const project = await newProject();
    const email = h.uniqueEmail();
    const res = await signUp(project, { email, password: PASSWORD, verification_callback_url: 'http://localhost:3000/handler/email-verification' });
    expect(res.status).toBe(200);
    expect(res.body.is_new_user).toBe(true);
    const queued = await h.latch.deps.db.selectFrom('email_outbox').select('subject').where('to_email', '=', email).execute();
    expect(queued).toEqual([{ subject: 'Verify your email' }]);
    // An untrusted URL is refused before anything is created.
    const untrusted = h.uniqueEmail();
    expectKnownError(
      await signUp(project, { email: untrusted, password: PASSWORD, verification_callback_url: 'https://evil.example.com/handler/email-verification' }),
      'REDIRECT_URL_NOT_WHITELISTED',
      400,
    );
    expectKnownError(await signIn(project, untrusted, PASSWORD), 'EMAIL_PASSWORD_MISMATCH', 400);
  });

  it('stores the password as an argon2id hash, never the plaintext', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project, { password: 'plaintext-must-not-be-stored' });
    const hash = await storedPasswordHash(project.id, user.userId);
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=\d+,t=\d+,p=\d+\$/);
    expect(hash).not.toContain('plaintext-must-not-be-stored');
  });

  it('refuses a second account with a proven email, in any letter case, with USER_EMAIL_ALREADY_EXISTS 409', async () => {
    const project = await newProject();
    const email = h.uniqueEmail('dup');
    // Proven (the server vouches for it): only such an address refuses a sign-up.
    expect((await h.post('/users', { primary_email: email, primary_email_verified: true, primary_email_auth_enabled: true }, project.server())).status).toBe(
      201,
    );

    const same = await signUp(project, { email, password: 'another-password-1' });
    expectKnownError(same, 'USER_EMAIL_ALREADY_EXISTS', 409);
    expect(same.body.details).toMatchObject({ email });

    const upper = await signUp(project, { email: email.toUpperCase(), password: 'another-password-1' });
    expectKnownError(upper, 'USER_EMAIL_ALREADY_EXISTS', 409);

    const users = await h.get(`/users?query=${encodeURIComponent(email)}`, project.server());
    expect(users.status).toBe(200);
    expect(users.body.items).toHaveLength(1);
  });

  it('allows the same email in two different projects (users are per project)', async () => {
    const [a, b] = await Promise.all([newProject(), newProject()]);
    const email = h.uniqueEmail('shared');
    const first = await h.signUpUser(a, { email });
    const second = await h.signUpUser(b, { email });
    expect(second.userId).not.toBe(first.userId);
  });

  it('reports PASSWORD_TOO_SHORT with min_length 8 and PASSWORD_TOO_LONG with max_length 70, and accepts both limits', async () => {
    const project = await newProject();
    const short = await signUp(project, { email: h.uniqueEmail(), password: '1234567' });
    expectKnownError(short, 'PASSWORD_TOO_SHORT', 400);
    expect(short.body.details).toEqual({ min_length: 8 });

    const long = await signUp(project, { email: h.uniqueEmail(), password: 'x'.repeat(71) });
    expectKnownError(long, 'PASSWORD_TOO_LONG', 400);
    expect(long.body.details).toEqual({ max_length: 70 });

    const empty = await signUp(project, { email: h.uniqueEmail(), password: '' });
    expectKnownError(empty, 'PASSWORD_TOO_SHORT', 400);

    // Nothing was created by the refused attempts.
    const none = await h.get('/users', project.server());
    expect(none.body.items).toHaveLength(0);

    const eight = await signUp(project, { email: h.uniqueEmail(), password: '12345678' });
    expect(eight.status).toBe(200);
    const seventyEmail = h.uniqueEmail();
    const seventy = await signUp(project, { email: seventyEmail, password: 'y'.repeat(70) });
    expect(seventy.status).toBe(200);
    expect((await signIn(project, seventyEmail, 'y'.repeat(70))).status).toBe(200);
  });

  it('answers SIGN_UP_NOT_ENABLED when sign-up is disabled, while server code can still create users and existing users sign in', async () => {
    const project = await newProject();
    const existing = await h.signUpUser(project);
    const patched = await h.patch('/internal/projects/current', { config: { sign_up_enabled: false } }, project.admin());
    expect(patched.status).toBe(200);

    const res = await signUp(project, { email: h.uniqueEmail(), password: PASSWORD });
    expectKnownError(res, 'SIGN_UP_NOT_ENABLED', 400);

    const created = await h.post('/users', { primary_email: h.uniqueEmail('by-server'), password: PASSWORD }, project.server());
    expect(created.status).toBe(201);
    expect(created.body.has_password).toBe(true);
    const viaServer = await signIn(project, created.body.primary_email, PASSWORD);
    expect(viaServer.status).toBe(200);
    expect(viaServer.body.user_id).toBe(created.body.id);

    const again = await signIn(project, existing.email, existing.password);
    expect(again.status).toBe(200);
    expect(again.body.is_new_user).toBe(false);
  });

  it('answers PASSWORD_AUTHENTICATION_NOT_ENABLED for sign-up and sign-in when credential_enabled is false', async () => {
    const project = await newProject();
    const existing = await h.signUpUser(project);
    const patched = await h.patch('/internal/projects/current', { config: { credential_enabled: false } }, project.admin());
    expect(patched.status).toBe(200);

    expectKnownError(await signUp(project, { email: h.uniqueEmail(), password: PASSWORD }), 'PASSWORD_AUTHENTICATION_NOT_ENABLED', 400);
    expectKnownError(await signIn(project, existing.email, existing.password), 'PASSWORD_AUTHENTICATION_NOT_ENABLED', 400);
    // Also for an unknown email: the setting is reported before anything about the account.
    expectKnownError(await signIn(project, h.uniqueEmail('nobody'), PASSWORD), 'PASSWORD_AUTHENTICATION_NOT_ENABLED', 400);
  });

  it('names the offending field in SCHEMA_ERROR and refuses unknown body properties', async () => {
    const project = await newProject();

    const badEmail = await signUp(project, { email: 'not-an-email', password: PASSWORD });
    expectKnownError(badEmail, 'SCHEMA_ERROR', 400);
    expect(badEmail.body.details.issues[0]).toMatchObject({ path: 'email', message: 'must be a valid email' });
    expect(badEmail.body.error).toContain('email');

    for (const email of ['.lead@example.com', 'two..dots@example.com', 'user@example.c', 'user@localhost', `${'a'.repeat(250)}@example.com`]) {
      const res = await signUp(project, { email, password: PASSWORD });
      expect(res.status, email).toBe(400);
      expect(res.body.code, email).toBe('SCHEMA_ERROR');
      expect(res.body.details.issues[0].path, email).toBe('email');
    }

    const missing = await signUp(project, { email: h.uniqueEmail() });
    expectKnownError(missing, 'SCHEMA_ERROR', 400);
    expect(missing.body.details.issues[0]).toMatchObject({ path: 'password', message: 'is a required field' });

    const wrongType = await signUp(project, { email: h.uniqueEmail(), password: 12345678 });
    expectKnownError(wrongType, 'SCHEMA_ERROR', 400);
    expect(wrongType.body.details.issues[0].path).toBe('password');

    const extra = await signUp(project, { email: h.uniqueEmail(), password: PASSWORD, is_admin: true });
    expectKnownError(extra, 'SCHEMA_ERROR', 400);
    expect(extra.body.error).toContain('is_admin');

    const extraSignIn = await h.post('/auth/password/sign-in', { email: h.uniqueEmail(), password: PASSWORD, remember: true }, project.client());
    expectKnownError(extraSignIn, 'SCHEMA_ERROR', 400);

    const malformed = await h.call('/auth/password/sign-up', { method: 'POST', rawBody: '{"email": ', headers: project.client() });
    expectKnownError(malformed, 'BODY_PARSING_ERROR', 400);

    const none = await h.get('/users', project.server());
    expect(none.body.items).toHaveLength(0);
  });

  it('needs client access: the server key is refused, and no credentials at all are refused', async () => {
    const project = await newProject();
    const asServer = await signUp(project, { email: h.uniqueEmail(), password: PASSWORD }, project.server());
    expectKnownError(asServer, 'INSUFFICIENT_ACCESS_TYPE', 401);
    const bare = await h.post('/auth/password/sign-up', { email: h.uniqueEmail(), password: PASSWORD });
    expect(bare.status).toBe(401);
    expect(bare.body.code).toBe('CLIENT_AUTHENTICATION_REQUIRED');
  });
});

describe('password sign-in', () => {
  it('signs in with any letter case of the email, returns the same user with is_new_user false and a new session', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project, { email: h.uniqueEmail('MixedCase') });
    expect(user.email).toMatch(/[A-Z]/);

    for (const email of [user.email, user.email.toLowerCase(), user.email.toUpperCase()]) {
      const res = await signIn(project, email, user.password);
      expect(res.status, email).toBe(200);
      expect(res.body).toMatchObject({ user_id: user.userId, is_new_user: false });
      expect(res.body.refresh_token).not.toBe(user.refreshToken);
      const me = await h.get('/users/me', project.client(res.body.access_token));
      expect(me.status).toBe(200);
      expect(me.body.id).toBe(user.userId);
    }
    const sessions = await h.get(`/auth/sessions?user_id=${user.userId}`, project.server());
    expect(sessions.body.items).toHaveLength(4);
  });

  it('answers a wrong password and an unknown email with the same EMAIL_PASSWORD_MISMATCH', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);

    const wrong = await signIn(project, user.email, 'wrong-password-123');
    expectKnownError(wrong, 'EMAIL_PASSWORD_MISMATCH', 400);
    expect(wrong.body.error).toBe('Wrong e-mail or password.');

    const unknown = await signIn(project, h.uniqueEmail('nobody'), user.password);
    expectKnownError(unknown, 'EMAIL_PASSWORD_MISMATCH', 400);
    // Same body: nothing tells the caller whether the account exists.
    expect(unknown.body).toEqual(wrong.body);

    // A password that differs only in case is wrong too.
    expectKnownError(await signIn(project, user.email, user.password.toUpperCase()), 'EMAIL_PASSWORD_MISMATCH', 400);
  });

  it('does not find users of another project', async () => {
    const [a, b] = await Promise.all([newProject(), newProject()]);
    const user = await h.signUpUser(a);
    expectKnownError(await signIn(b, user.email, user.password), 'EMAIL_PASSWORD_MISMATCH', 400);
  });

  it('answers EMAIL_PASSWORD_MISMATCH for a user who has no password', async () => {
    const project = await newProject();
    const created = await h.post('/users', { primary_email: h.uniqueEmail('nopw') }, project.server());
    expect(created.status).toBe(201);
    expect(created.body.has_password).toBe(false);
    expectKnownError(await signIn(project, created.body.primary_email, PASSWORD), 'EMAIL_PASSWORD_MISMATCH', 400);
  });

  it('does not sign in with an email that is not used for authentication', async () => {
    const project = await newProject();
    const created = await h.post(
      '/users',
      { primary_email: h.uniqueEmail('contact-only'), password: PASSWORD, primary_email_auth_enabled: false },
      project.server(),
    );
    expect(created.status).toBe(201);
    expect(created.body.auth_with_email).toBe(false);
    expectKnownError(await signIn(project, created.body.primary_email, PASSWORD), 'EMAIL_PASSWORD_MISMATCH', 400);
  });

  it('accepts an imported bcrypt hash and upgrades it to argon2id on the first sign-in', async () => {
    const project = await newProject();
    const email = h.uniqueEmail('imported');
    const bcryptHash = bcrypt.hashSync('imported-password-1', 4);
    expect(bcryptHash).toMatch(/^\$2[aby]\$04\$/);
    const created = await h.post('/users', { primary_email: email, password_hash: bcryptHash }, project.server());
    expect(created.status).toBe(201);
    expect(created.body.has_password).toBe(true);
    expect(await storedPasswordHash(project.id, created.body.id)).toBe(bcryptHash);

    // A wrong password against the bcrypt hash fails and leaves the hash alone.
    expectKnownError(await signIn(project, email, 'not-the-password'), 'EMAIL_PASSWORD_MISMATCH', 400);
    expect(await storedPasswordHash(project.id, created.body.id)).toBe(bcryptHash);

    const first = await signIn(project, email, 'imported-password-1');
    expect(first.status).toBe(200);
    expect(first.body.user_id).toBe(created.body.id);
    const upgraded = await storedPasswordHash(project.id, created.body.id);
    expect(upgraded).toMatch(/^\$argon2id\$/);

    // The upgraded hash keeps working, and is not rehashed again.
    const second = await signIn(project, email, 'imported-password-1');
    expect(second.status).toBe(200);
    expect(await storedPasswordHash(project.id, created.body.id)).toBe(upgraded);
    expectKnownError(await signIn(project, email, 'not-the-password'), 'EMAIL_PASSWORD_MISMATCH', 400);
  });

  it('refuses an imported hash it cannot verify', async () => {
    const project = await newProject();
    const res = await h.post('/users', { primary_email: h.uniqueEmail(), password_hash: '5f4dcc3b5aa765d61d8327deb882cf99' }, project.server());
    expectKnownError(res, 'SCHEMA_ERROR', 400);
  });
});

describe('password update and set', () => {
  it('refuses a wrong old password with PASSWORD_CONFIRMATION_MISMATCH and keeps the old one', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const res = await h.post(
      '/auth/password/update',
      { old_password: 'wrong-old-password', new_password: 'brand-new-password' },
      project.client(user.accessToken),
    );
    expectKnownError(res, 'PASSWORD_CONFIRMATION_MISMATCH', 400);
    expect(res.body.error).toBe('Passwords do not match.');
    expect((await signIn(project, user.email, user.password)).status).toBe(200);
    expectKnownError(await signIn(project, user.email, 'brand-new-password'), 'EMAIL_PASSWORD_MISMATCH', 400);
  });

  it('checks the new password length', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const res = await h.post('/auth/password/update', { old_password: user.password, new_password: 'short' }, project.client(user.accessToken));
    expectKnownError(res, 'PASSWORD_TOO_SHORT', 400);
    expect((await signIn(project, user.email, user.password)).status).toBe(200);
  });

  it('changes the password and signs out every other session, keeping the current one', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const other = await signIn(project, user.email, user.password);
    expect(other.status).toBe(200);
    const bystander = await h.signUpUser(project);

    const res = await h.post('/auth/password/update', { old_password: user.password, new_password: 'brand-new-password' }, project.client(user.accessToken));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });

    // The other session's refresh token is dead, and its access token no longer reads the user.
    expectKnownError(await refresh(project, other.body.refresh_token), 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED', 401);
    expectKnownError(await h.get('/users/me', project.client(other.body.access_token)), 'ACCESS_TOKEN_EXPIRED', 401);
    // The current session keeps working.
    const current = await refresh(project, user.refreshToken);
    expect(current.status).toBe(200);
    expect((await h.get('/users/me', project.client(current.body.access_token))).status).toBe(200);
    // Another user's session is untouched.
    expect((await refresh(project, bystander.refreshToken)).status).toBe(200);

    expectKnownError(await signIn(project, user.email, user.password), 'EMAIL_PASSWORD_MISMATCH', 400);
    expect((await signIn(project, user.email, 'brand-new-password')).status).toBe(200);
  });

  it('needs a signed-in user', async () => {
    const project = await newProject();
    const res = await h.post('/auth/password/update', { old_password: PASSWORD, new_password: 'brand-new-password' }, project.client());
    expectKnownError(res, 'USER_AUTHENTICATION_REQUIRED', 401);
    const set = await h.post('/auth/password/set', { password: PASSWORD }, project.client());
    expectKnownError(set, 'USER_AUTHENTICATION_REQUIRED', 401);
  });

  it('lets a user created without a password set one, once', async () => {
    const project = await newProject();
    const email = h.uniqueEmail('setpw');
    const created = await h.post('/users', { primary_email: email }, project.server());
    expect(created.status).toBe(201);
    const session = await h.post('/auth/sessions', { user_id: created.body.id }, project.server());
    expect(session.status).toBe(201);

    // With no password, there is nothing to update.
    const update = await h.post(
      '/auth/password/update',
      { old_password: PASSWORD, new_password: 'brand-new-password' },
      project.client(session.body.access_token),
    );
    expectKnownError(update, 'USER_DOES_NOT_HAVE_PASSWORD', 400);

    const tooShort = await h.post('/auth/password/set', { password: 'short' }, project.client(session.body.access_token));
    expectKnownError(tooShort, 'PASSWORD_TOO_SHORT', 400);

    const set = await h.post('/auth/password/set', { password: 'first-password-1' }, project.client(session.body.access_token));
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ success: true });
    expect(await storedPasswordHash(project.id, created.body.id)).toMatch(/^\$argon2id\$/);

    const signedIn = await signIn(project, email, 'first-password-1');
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user_id).toBe(created.body.id);

    const again = await h.post('/auth/password/set', { password: 'second-password-1' }, project.client(session.body.access_token));
    expectKnownError(again, 'USER_ALREADY_HAS_PASSWORD', 400);
    expect((await signIn(project, email, 'first-password-1')).status).toBe(200);
  });

  it('refuses /auth/password/set for a user who signed up with a password', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const res = await h.post('/auth/password/set', { password: 'another-password' }, project.client(user.accessToken));
    expectKnownError(res, 'USER_ALREADY_HAS_PASSWORD', 400);
    expect((await signIn(project, user.email, user.password)).status).toBe(200);
  });
});

describe('anonymous sign-up', () => {
  const allow = { 'x-latch-allow-anonymous-user': 'true' };

  it('creates an anonymous user whose token works only with x-latch-allow-anonymous-user: true', async () => {
    const project = await newProject();
    const res = await h.post('/auth/anonymous/sign-up', {}, project.client());
    expect(res.status).toBe(200);
    expect(res.body.is_new_user).toBe(true);
    expect(res.body.user_id).toMatch(UUID_V4);
    const claims = decodeJwt(res.body.access_token);
    expect(claims).toMatchObject({ sub: res.body.user_id, is_anonymous: true, aud: `${project.id}:anon`, role: 'authenticated' });

    expectKnownError(await h.get('/users/me', project.client(res.body.access_token)), 'ANONYMOUS_AUTHENTICATION_NOT_ALLOWED', 401);
    const falseHeader = await h.get('/users/me', { ...project.client(res.body.access_token), 'x-latch-allow-anonymous-user': 'false' });
    expectKnownError(falseHeader, 'ANONYMOUS_AUTHENTICATION_NOT_ALLOWED', 401);

    const me = await h.get('/users/me', { ...project.client(res.body.access_token), ...allow });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: res.body.user_id, is_anonymous: true, primary_email: null, has_password: false });

    // Its refresh token yields anonymous tokens again.
    const refreshed = await refresh(project, res.body.refresh_token);
    expect(refreshed.status).toBe(200);
    expect(decodeJwt(refreshed.body.access_token)).toMatchObject({ is_anonymous: true, aud: `${project.id}:anon` });
    expectKnownError(await h.get('/users/me', project.client(refreshed.body.access_token)), 'ANONYMOUS_AUTHENTICATION_NOT_ALLOWED', 401);
  });

  it('keeps anonymous users out of GET /users unless include_anonymous=true', async () => {
    const project = await newProject();
    const anon = await h.post('/auth/anonymous/sign-up', {}, project.client());
    const user = await h.signUpUser(project);

    const byDefault = await h.get('/users', project.server());
    expect(byDefault.status).toBe(200);
    expect(byDefault.body.items.map((u: { id: string }) => u.id)).toEqual([user.userId]);

    const excluded = await h.get('/users?include_anonymous=false', project.server());
    expect(excluded.body.items.map((u: { id: string }) => u.id)).toEqual([user.userId]);

    const included = await h.get('/users?include_anonymous=true', project.server());
    expect(included.body.items.map((u: { id: string }) => u.id).sort()).toEqual([anon.body.user_id, user.userId].sort());
    expect(included.body.items.find((u: { id: string }) => u.id === anon.body.user_id).is_anonymous).toBe(true);
  });

  it('answers ANONYMOUS_ACCOUNTS_NOT_ENABLED when anonymous_enabled is false', async () => {
    const project = await newProject();
    const patched = await h.patch('/internal/projects/current', { config: { anonymous_enabled: false } }, project.admin());
    expect(patched.status).toBe(200);
    expectKnownError(await h.post('/auth/anonymous/sign-up', {}, project.client()), 'ANONYMOUS_ACCOUNTS_NOT_ENABLED', 400);
    const all = await h.get('/users?include_anonymous=true', project.server());
    expect(all.body.items).toHaveLength(0);
  });

  it('upgrades the anonymous user in place when it signs up with a password', async () => {
    const project = await newProject();
    const anon = await h.post('/auth/anonymous/sign-up', {}, project.client());
    expect(anon.status).toBe(200);
    const email = h.uniqueEmail('upgraded');

    // Without the allow header the anonymous token is refused, and nothing changes.
    const refused = await signUp(project, { email, password: PASSWORD }, project.client(anon.body.access_token));
    expectKnownError(refused, 'ANONYMOUS_AUTHENTICATION_NOT_ALLOWED', 401);

    const upgraded = await signUp(project, { email, password: PASSWORD }, { ...project.client(anon.body.access_token), ...allow });
    expect(upgraded.status).toBe(200);
    expect(upgraded.body.user_id).toBe(anon.body.user_id);
    expect(upgraded.body.is_new_user).toBe(true);
    expect(decodeJwt(upgraded.body.access_token)).toMatchObject({ sub: anon.body.user_id, is_anonymous: false, aud: project.id, email });

    // The new token is a normal one: no allow header needed.
    const me = await h.get('/users/me', project.client(upgraded.body.access_token));
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: anon.body.user_id, is_anonymous: false, primary_email: email, has_password: true });

    const listed = await h.get('/users', project.server());
    expect(listed.body.items.map((u: { id: string }) => u.id)).toEqual([anon.body.user_id]);
    const all = await h.get('/users?include_anonymous=true', project.server());
    expect(all.body.items).toHaveLength(1);

    // The anonymous session is gone; the password signs in to the same user.
    expectKnownError(await refresh(project, anon.body.refresh_token), 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED', 401);
    const signedIn = await signIn(project, email, PASSWORD);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user_id).toBe(anon.body.user_id);
  });

  it('upgrades an anonymous user once when several upgrades race; the others sign up as new users', async () => {
    const project = await newProject();
    const anon = await h.post('/auth/anonymous/sign-up', {}, project.client());
    const headers = { ...project.client(anon.body.access_token), ...allow };
    const emails = Array.from({ length: 5 }, (_, i) => h.uniqueEmail(`racer${i}`));
    const results = await Promise.all(emails.map((email) => signUp(project, { email, password: PASSWORD }, headers)));
    // None of these emails is taken, so none may be refused as a duplicate.
    expect(results.map((r) => r.status)).toEqual(Array(5).fill(200));
    const upgrades = results.filter((r) => r.body.user_id === anon.body.user_id);
    expect(upgrades).toHaveLength(1);

    const users = await h.get('/users?include_anonymous=true', project.server());
    expect(users.body.items).toHaveLength(5);
    expect(users.body.items.every((u: { is_anonymous: boolean }) => !u.is_anonymous)).toBe(true);
    const upgraded = users.body.items.find((u: { id: string }) => u.id === anon.body.user_id);
    expect(upgraded.primary_email).toBe(emails[results.indexOf(upgrades[0]!)]);
  });

  it('does not upgrade an anonymous user to an email that another account has proven', async () => {
    const project = await newProject();
    const taken = { email: h.uniqueEmail('taken') };
    expect(
      (await h.post('/users', { primary_email: taken.email, primary_email_verified: true, primary_email_auth_enabled: true }, project.server())).status,
    ).toBe(201);
    const anon = await h.post('/auth/anonymous/sign-up', {}, project.client());
    const res = await signUp(project, { email: taken.email.toUpperCase(), password: PASSWORD }, { ...project.client(anon.body.access_token), ...allow });
    expectKnownError(res, 'USER_EMAIL_ALREADY_EXISTS', 409);
    const me = await h.get('/users/me', { ...project.client(anon.body.access_token), ...allow });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ is_anonymous: true, primary_email: null, has_password: false });
  });
});

describe('concurrent sign-ups', () => {
  it('lets all of 50 concurrent sign-ups with one unproven email in (claims never block); the address answers to the newest claim only', async () => {
    const project = await newProject();
    const email = h.uniqueEmail('race');
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => signUp(project, { email: i % 2 ? email : email.toUpperCase(), password: `race-password-${i}` })),
    );
    expect(results.map((r) => r.status).filter((s) => s === 200)).toHaveLength(50);
    const tenancy = await tenancyId(project.id);
    const users = await h.latch.deps.db.selectFrom('users').select('id').where('tenancy_id', '=', tenancy).execute();
    expect(users).toHaveLength(50);
    // The newest claim (channel created_at, then id) is the one the address signs in.
    const newest = await h.latch.deps.db
      .selectFrom('contact_channels')
      .select('user_id')
      .where('tenancy_id', '=', tenancy)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    const newestIndex = results.findIndex((r) => r.body.user_id === newest.user_id);
    const signedIn = await signIn(project, email, `race-password-${newestIndex}`);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user_id).toBe(newest.user_id);
    expect((await signIn(project, email, `race-password-${(newestIndex + 1) % 50}`)).status).toBe(400);
  });
});
