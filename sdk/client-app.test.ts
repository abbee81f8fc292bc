import { beforeAll, describe, expect, it } from 'vitest';
import { type ProjectFixture, useHarness } from '../server/test/harness.js';
import { ClientApp } from './client-app.js';
import { KnownError, KnownErrors, UserNotSignedInError } from './errors.js';
import { ServerApp } from './server-app.js';
import { useProxy } from './test/proxy.js';
import { type TokenPair, type TokenStoreInit, memoryTokenStore } from './tokens.js';

const h = useHarness();
const proxy = useProxy(h);
let project: ProjectFixture;
beforeAll(async () => {
  project = await h.createProject({ config: { anonymous_enabled: true, client_user_deletion_enabled: true } });
});

function clientApp(options: { tokenStore?: TokenStoreInit } = {}) {
  return new ClientApp({
    projectId: project.id,
    publishableClientKey: project.publishableClientKey,
    baseUrl: proxy.url,
    tokenStore: 'tokenStore' in options ? options.tokenStore : 'memory',
  });
}

describe('ClientApp: sign-up, sign-in, the user, sign-out', () => {
  it('signs up, reads and updates the user, changes the password, signs out and in again', async () => {
    const app = clientApp();
    const email = h.uniqueEmail();
    const signUp = await app.signUpWithPassword({ email, password: 'correct-horse-1' });
    expect(signUp).toEqual({ status: 'ok', data: { user_id: expect.any(String), is_new_user: true } });

    const user = await app.getUser({ or: 'throw' });
    expect(user.primary_email).toBe(email);
    expect(user.is_anonymous).toBe(false);
    expect('server_metadata' in user).toBe(false);

    const updated = await app.updateUser({ display_name: 'Ann', client_metadata: { theme: 'dark' } });
    expect(updated.display_name).toBe('Ann');
    // The cache was updated by the mutation: no new request.
    const before = proxy.count('users.getMe');
    expect((await app.getUser())?.display_name).toBe('Ann');
    expect(proxy.count('users.getMe')).toBe(before);

    const wrongOld = await app.updatePassword({ old_password: 'not-it-at-all', new_password: 'correct-horse-2' });
    expect(wrongOld.status).toBe('error');
    if (wrongOld.status === 'error') expect(wrongOld.error).toBeInstanceOf(KnownErrors.PasswordConfirmationMismatch);
    expect(await app.updatePassword({ old_password: 'correct-horse-1', new_password: 'correct-horse-2' })).toEqual({ status: 'ok', data: undefined });

    const sessions = await app.listSessions();
    expect(sessions, JSON.stringify(sessions)).toHaveLength(1);
    expect(sessions[0]?.is_current_session).toBe(true);

    await app.signOut();
    expect(await app.getAuthTokens()).toEqual({ accessToken: null, refreshToken: null });
    expect(await app.getUser()).toBeNull();
    await app.signOut(); // signed out already: nothing to do

    const signIn = await app.signInWithPassword({ email, password: 'correct-horse-2' });
    expect(signIn).toEqual({ status: 'ok', data: { user_id: user.id, is_new_user: false } });
    expect((await app.getUser())?.id).toBe(user.id);
  });

  it('returns the expected failures as result errors that are instances of the catalogue classes', async () => {
    const app = clientApp();
    const email = h.uniqueEmail();
    await app.signUpWithPassword({ email, password: 'correct-horse-1' });

    const mismatch = await clientApp().signInWithPassword({ email, password: 'wrong-password' });
    expect(mismatch.status).toBe('error');
    if (mismatch.status !== 'error') throw new Error('unreachable');
    expect(mismatch.error).toBeInstanceOf(KnownErrors.EmailPasswordMismatch);
    expect(mismatch.error).toBeInstanceOf(KnownError);
    expect(mismatch.error).toMatchObject({ code: 'EMAIL_PASSWORD_MISMATCH', status: 400, message: 'Wrong e-mail or password.' });

    // Only a proven address refuses a sign-up (issue 13 item 1): the server vouches for this one.
    const holder = (await h.get(`/users?query=${encodeURIComponent(email)}`, project.server())).body.items[0];
    expect((await h.patch(`/users/${holder.id}`, { primary_email_verified: true }, project.server())).status).toBe(200);
    const taken = await clientApp().signUpWithPassword({ email, password: 'correct-horse-1' });
    if (taken.status !== 'error') throw new Error('expected an error');
    expect(taken.error).toBeInstanceOf(KnownErrors.UserWithEmailAlreadyExists);
    expect(taken.error.details).toMatchObject({ email });

    const short = await clientApp().signUpWithPassword({ email: h.uniqueEmail(), password: 'short' });
    if (short.status !== 'error') throw new Error('expected an error');
    expect(short.error).toBeInstanceOf(KnownErrors.PasswordTooShort);
    expect(short.error.details).toEqual({ min_length: 8 });

    // Unexpected failures are thrown, as catalogue classes too.
    const badKey = new ClientApp({ projectId: project.id, publishableClientKey: 'pck_wrong', baseUrl: h.url, tokenStore: 'memory' });
    await expect(badKey.getProject()).rejects.toBeInstanceOf(KnownErrors.InvalidPublishableClientKey);
    await expect(clientApp().signUpWithPassword({ email: 'not-an-email', password: 'correct-horse-1' })).rejects.toBeInstanceOf(KnownErrors.SchemaError);
  });

  it('getUser: return-null by default, throw with the spec message, redirect through redirectMethod', async () => {
    const app = clientApp();
    expect(await app.getUser()).toBeNull();
    expect(await app.getUser({ or: 'return-null' })).toBeNull();
    await expect(app.getUser({ or: 'throw' })).rejects.toThrow(new UserNotSignedInError());
    await expect(app.getUser({ or: 'throw' })).rejects.toThrow('User is not signed in but getUser was called with { or: throw }');

    const redirects: string[] = [];
    const redirecting = new ClientApp({
      projectId: project.id,
      publishableClientKey: project.publishableClientKey,
      baseUrl: h.url,
      tokenStore: 'memory',
      urls: { signIn: '/login' },
      redirectMethod: (url) => {
        redirects.push(url);
        throw new Error('NEXT_REDIRECT'); // what a framework's redirect does
      },
    });
    await expect(redirecting.getUser({ or: 'redirect' })).rejects.toThrow('NEXT_REDIRECT');
    expect(redirects).toEqual(['/login']);
    // Outside a browser, without redirectMethod, the error says what to do.
    await expect(app.getUser({ or: 'redirect' })).rejects.toThrow(/redirectMethod/);
  });

  it("anonymous users: created once for concurrent getUser({ or: 'anonymous' }), signed out otherwise, upgraded by sign-up", async () => {
    const app = clientApp();
    const before = proxy.count('auth.anonymousSignUp');
    const users = await Promise.all([1, 2, 3].map(() => app.getUser({ or: 'anonymous' })));
    expect(proxy.count('auth.anonymousSignUp')).toBe(before + 1);
    expect(new Set(users.map((u) => u.id)).size).toBe(1);
    expect(users[0]?.is_anonymous).toBe(true);
    // The anonymous user's calls carry x-latch-allow-anonymous-user.
    const getMe = proxy.requests.filter((r) => r.procedure === 'users.getMe').at(-1);
    expect(getMe?.headers['x-latch-allow-anonymous-user']).toBe('true');

    expect(await app.getUser()).toBeNull();
    await expect(app.getUser({ or: 'throw' })).rejects.toBeInstanceOf(UserNotSignedInError);
    expect((await app.getUser({ or: 'anonymous' })).id).toBe(users[0]?.id);

    const email = h.uniqueEmail('upgraded');
    const upgraded = await app.signUpWithPassword({ email, password: 'correct-horse-1' });
    expect(upgraded.status).toBe('ok');
    const user = await app.getUser({ or: 'throw' });
    expect(user).toMatchObject({ id: users[0]?.id, is_anonymous: false, primary_email: email });
  });

  it('deleting the account clears both tokens', async () => {
    const app = clientApp();
    await app.signUpWithPassword({ email: h.uniqueEmail(), password: 'correct-horse-1' });
    await app.deleteUser();
    expect(await app.getAuthTokens()).toEqual({ accessToken: null, refreshToken: null });
    expect(await app.getUser()).toBeNull();
  });

  it('revokes another session; the revoked one is signed out on its next call', async () => {
    const email = h.uniqueEmail();
    const first = clientApp();
    await first.signUpWithPassword({ email, password: 'correct-horse-1' });
    const second = clientApp();
    await second.signInWithPassword({ email, password: 'correct-horse-1' });
    const sessions = await first.listSessions();
    expect(sessions).toHaveLength(2);
    const other = sessions.find((s) => !s.is_current_session);
    await first.revokeSession(other!.id);
    expect(await first.listSessions()).toHaveLength(1); // invalidated by the mutation
    await expect(first.revokeSession(sessions.find((s) => s.is_current_session)!.id)).rejects.toBeInstanceOf(KnownErrors.CannotDeleteCurrentSession);
    // The revoked session's refresh token is dead: the SDK signs it out.
    expect(await second.getUser()).toBeNull();
    expect(await second.getAuthTokens()).toEqual({ accessToken: null, refreshToken: null });
  });

  it('reads the public project', async () => {
    const project_ = await clientApp().getProject();
    expect(project_).toMatchObject({ id: project.id, config: { anonymous_enabled: true } });
  });

  it('token stores: custom { get, set }, fixed tokens, none, and cookies outside a browser', async () => {
    let stored: TokenPair | null = null;
    const custom = clientApp({
      tokenStore: {
        get: async () => stored,
        set: async (tokens) => {
          stored = tokens;
        },
      },
    });
    await custom.signUpWithPassword({ email: h.uniqueEmail(), password: 'correct-horse-1' });
    expect(stored).toMatchObject({ accessToken: expect.any(String), refreshToken: expect.any(String) });
    const copy = clientApp({ tokenStore: { ...stored! } });
    expect((await copy.getUser())?.id).toBe((await custom.getUser())?.id);

    const none = clientApp({ tokenStore: null });
    await expect(none.getUser()).rejects.toThrow('Cannot call this function on a Latch app without a persistent token store');
    await expect(none.signInWithPassword({ email: 'a@example.com', password: 'whatever-1' })).rejects.toThrow(/persistent token store/);
    await expect(none.getProject()).resolves.toMatchObject({ id: project.id }); // no session needed

    const cookie = clientApp({ tokenStore: 'cookie' });
    await expect(cookie.getUser()).rejects.toThrow('Cannot use cookie token store on the server');
  });

  it('a server reads the user of a request from its tokens', async () => {
    const app = clientApp();
    await app.signUpWithPassword({ email: h.uniqueEmail(), password: 'correct-horse-1' });
    const tokens = await app.getAuthTokens();
    const server = new ServerApp({ projectId: project.id, secretServerKey: project.secretServerKey, baseUrl: h.url });
    const user = await server.getUser({ tokenStore: { accessToken: tokens.accessToken }, or: 'throw' });
    expect(user.id).toBe((await app.getUser())?.id);
    expect(user).toHaveProperty('server_metadata'); // server view
    expect(await server.getUser({ tokenStore: {} })).toBeNull();
    await expect(server.getUser()).rejects.toThrow(/persistent token store/);
    expect(JSON.parse((await app.getAuthHeaders())['x-latch-auth']!)).toEqual({ accessToken: tokens.accessToken, refreshToken: tokens.refreshToken });
    expect(memoryTokenStore().get()).toBeNull();
  });
});

describe('ClientApp: unique identifier (spec section 8)', () => {
  it('refuses a second app with the same unique identifier, and allows other identifiers and apps without one', () => {
    const options = { projectId: project.id, publishableClientKey: project.publishableClientKey, baseUrl: proxy.url, tokenStore: 'memory' as const };
    const identifier = `app-${h.uniqueEmail()}`;
    const first = new ClientApp({ ...options, uniqueIdentifier: identifier });
    expect(first.projectId).toBe(project.id);
    expect(() => new ClientApp({ ...options, uniqueIdentifier: identifier })).toThrow(`A Latch app with the unique identifier "${identifier}" already exists.`);
    expect(() => new ServerApp({ ...options, secretServerKey: project.secretServerKey, uniqueIdentifier: identifier })).toThrow('already exists');
    expect(new ClientApp({ ...options, uniqueIdentifier: `${identifier}-other` }).projectId).toBe(project.id);
    expect(new ClientApp(options).projectId).toBe(project.id);
    expect(new ClientApp(options).projectId).toBe(project.id);
  });
});
