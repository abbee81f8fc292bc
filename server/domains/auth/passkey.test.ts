import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { PASSKEY_RP_ID_PLACEHOLDER } from '../../../contract/schemas/passkeys.js';
import { type ApiResponse, type OwnerSession, type ProjectFixture, type UserSession, useHarness } from '../../test/harness.js';
import { assert, createCredential, type SoftCredential } from '../../test/soft-authenticator.js';
import { tenancyOf } from '../../test/team-fixtures.js';
import { newTotpSecret, totpCode } from '../../crypto/totp.js';

/**
 * Passkeys through real HTTP with a software authenticator (server/test/soft-authenticator.ts):
 * the four /auth/passkey/* calls, the RP ID and origin rules, single-use challenges, user
 * verification, counters, several passkeys per user and their management (/passkeys). The same
 * flows in Chromium with its virtual authenticator: react-ui/passkeys.browser.test.ts.
 */

const h = useHarness();
let owner: OwnerSession;
beforeAll(async () => {
  owner = await h.signUpOwner();
});

const LOCAL = 'http://localhost:5173';

function expectKnownError(res: ApiResponse, code: string, status: number): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers.get('x-latch-known-error')).toBe(code);
}

function newProject(config: Record<string, unknown> = {}): Promise<ProjectFixture> {
  return h.createProject({ owner, config: { passkey_enabled: true, ...config } });
}

/** Registration options with the placeholder replaced by the page's host, as the SDK does. */
async function startRegistration(project: ProjectFixture, user: UserSession) {
  const res = await h.post('/auth/passkey/initiate-passkey-registration', {}, project.client(user.accessToken));
  expect(res.status).toBe(200);
  return res.body as { options_json: { challenge: string; user: { id: string }; rp: { id: string }; excludeCredentials: { id: string }[] }; code: string };
}

/** POST /auth/passkey/register as `user`: `credential` answering the challenge its `code` stands for. */
function submitRegistration(project: ProjectFixture, user: UserSession, credential: unknown, code: string, extra: Record<string, unknown> = {}) {
  return h.post('/auth/passkey/register', { credential, code, ...extra }, project.client(user.accessToken));
}

async function register(
  project: ProjectFixture,
  user: UserSession,
  origin = LOCAL,
  extra: Record<string, unknown> = {},
  options: { userVerified?: boolean } = {},
) {
  const started = await startRegistration(project, user);
  const { credential, response } = createCredential(started.options_json, { origin, ...options });
  const res = await submitRegistration(project, user, response, started.code, extra);
  return { res, credential };
}

async function startAuthentication(project: ProjectFixture) {
  const res = await h.post('/auth/passkey/initiate-passkey-authentication', {}, project.client());
  expect(res.status).toBe(200);
  return res.body as { options_json: { challenge: string; rpId: string; allowCredentials: unknown[]; userVerification: string }; code: string };
}

async function signIn(project: ProjectFixture, credential: SoftCredential, options: Parameters<typeof assert>[2] = { origin: LOCAL }) {
  const started = await startAuthentication(project);
  return h.post('/auth/passkey/sign-in', { authentication_response: assert(credential, started.options_json, options), code: started.code }, project.client());
}

async function listPasskeys(project: ProjectFixture, user: UserSession) {
  const res = await h.get('/passkeys', project.client(user.accessToken));
  expect(res.status).toBe(200);
  return res.body.items as { id: string; name: string; rp_id: string; last_used_at_millis: number | null; created_at_millis: number }[];
}

describe('registration', () => {
  it('gives options with the RP-ID placeholder, a discoverable credential and required user verification; a user adds several named passkeys', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const started = await startRegistration(project, user);
    expect(started.options_json.rp.id).toBe(PASSKEY_RP_ID_PLACEHOLDER);
    expect(started.options_json).toMatchObject({ authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' } });
    // The user handle is the user's id (36 bytes, inside the spec's 1 to 64).
    expect(Buffer.from(started.options_json.user.id, 'base64url').toString()).toBe(user.userId);

    const first = await register(project, user, LOCAL, { name: 'Laptop' });
    expect(first.res.status).toBe(200);
    expect(first.res.body).toMatchObject({ name: 'Laptop', rp_id: 'localhost', user_id: user.userId, last_used_at_millis: null });
    const second = await register(project, user);
    expect(second.res.body.name).toBe('Passkey 2');
    expect((await listPasskeys(project, user)).map((p) => p.name)).toEqual(['Laptop', 'Passkey 2']);
    // The user's passkeys are excluded from the next registration (the authenticator says "previously registered").
    const next = await startRegistration(project, user);
    expect(next.options_json.excludeCredentials.map((c) => c.id).sort()).toEqual([first.credential.id, second.credential.id].sort());
    const me = await h.get('/users/me', project.client(user.accessToken));
    expect(me.body.passkey_auth_enabled).toBe(true);
  });

  it('refuses an origin that is not a trusted domain (never taken from the Host), and localhost when the project does not allow it', async () => {
    const project = await newProject({ allow_localhost: false, domains: [{ domain: 'https://*.example.com', handler_path: '/handler' }] });
    const user = await h.signUpUser(project);
    const evil = await register(project, user, 'https://example.com.evil.test');
    expectKnownError(evil.res, 'PASSKEY_REGISTRATION_FAILED', 400);
    expect(evil.res.body.error).toBe('The origin "https://example.com.evil.test" is not a trusted domain of this project.');
    expectKnownError((await register(project, user, LOCAL)).res, 'PASSKEY_REGISTRATION_FAILED', 400);
    // Wrong scheme or port for the trusted domain.
    expectKnownError((await register(project, user, 'http://app.example.com')).res, 'PASSKEY_REGISTRATION_FAILED', 400);
    expectKnownError((await register(project, user, 'https://app.example.com:8443')).res, 'PASSKEY_REGISTRATION_FAILED', 400);
    // An authenticator that signed for another RP ID than the origin's host.
    const started = await startRegistration(project, user);
    const { response } = createCredential(started.options_json, { origin: 'https://app.example.com', rpId: 'evil.test' });
    expectKnownError(await submitRegistration(project, user, response, started.code), 'PASSKEY_REGISTRATION_FAILED', 400);

    const ok = await register(project, user, 'https://app.example.com');
    expect(ok.res.status).toBe(200);
    expect(ok.res.body.rp_id).toBe('app.example.com');
    expect(await listPasskeys(project, user)).toHaveLength(1);
  });

  it('needs user verification, a challenge of this user, used once, in this project', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const other = await h.signUpUser(project);
    expectKnownError((await register(project, user, LOCAL, {}, { userVerified: false })).res, 'PASSKEY_REGISTRATION_FAILED', 400);

    // Another user's challenge.
    const theirs = await startRegistration(project, other);
    const forged = createCredential(theirs.options_json, { origin: LOCAL });
    expectKnownError(await submitRegistration(project, user, forged.response, theirs.code), 'PASSKEY_REGISTRATION_FAILED', 400);

    // Used once: a replay of a good registration is ALREADY_USED.
    const started = await startRegistration(project, user);
    const { response } = createCredential(started.options_json, { origin: LOCAL });
    expect((await submitRegistration(project, user, response, started.code)).status).toBe(200);
    expectKnownError(await submitRegistration(project, user, response, started.code), 'ALREADY_USED', 409);

    // Another project's challenge is unknown here.
    const elsewhere = await newProject();
    const stranger = await h.signUpUser(elsewhere);
    const foreign = await startRegistration(elsewhere, stranger);
    const foreignCredential = createCredential(foreign.options_json, { origin: LOCAL });
    expectKnownError(await submitRegistration(project, user, foreignCredential.response, foreign.code), 'CODE_NOT_FOUND', 404);
  });

  it('expires challenges after two minutes', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const started = await startRegistration(project, user);
    const tenancy = await tenancyOf(h, project.id);
    await h.latch.deps.db
      .updateTable('verification_codes')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('tenancy_id', '=', tenancy.id)
      .where('purpose', '=', 'passkey_registration')
      .execute();
    const { response } = createCredential(started.options_json, { origin: LOCAL });
    expectKnownError(await submitRegistration(project, user, response, started.code), 'EXPIRED', 400);
  });
});

describe('sign-in', () => {
  it('for a user with MFA on answers MULTI_FACTOR_AUTHENTICATION_REQUIRED; the passkey use commits, and the TOTP finishes the sign-in', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const { credential } = await register(project, user, LOCAL, { name: 'Laptop' });
    const secret = newTotpSecret();
    expect((await h.patch(`/users/${user.userId}`, { totp_secret_base64: secret }, project.server())).body.requires_totp_mfa).toBe(true);

    const gated = await signIn(project, credential);
    expectKnownError(gated, 'MULTI_FACTOR_AUTHENTICATION_REQUIRED', 400);
    expect(gated.body.access_token).toBeUndefined();
    // The first factor's work committed with the attempt code: the passkey shows its use.
    expect((await listPasskeys(project, user))[0]!.last_used_at_millis).toEqual(expect.any(Number));
    const finished = await h.post('/auth/mfa/sign-in', { type: 'totp', totp: await totpCode(secret), code: gated.body.details.attempt_code }, project.client());
    expect(finished.status, JSON.stringify(finished.body)).toBe(200);
    expect(finished.body).toMatchObject({ user_id: user.userId, is_new_user: false });
  });

  it('signs in with each of several passkeys (discoverable: no allowCredentials), recording when each was last used', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const laptop = (await register(project, user, LOCAL, { name: 'Laptop' })).credential;
    const phone = (await register(project, user, LOCAL, { name: 'Phone' })).credential;
    const started = await startAuthentication(project);
    expect(started.options_json).toMatchObject({ rpId: PASSKEY_RP_ID_PLACEHOLDER, allowCredentials: [], userVerification: 'required' });

    const res = await signIn(project, phone);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ user_id: user.userId, is_new_user: false });
    expect(decodeJwt(res.body.access_token).sub).toBe(user.userId);
    let listed = await listPasskeys(project, user);
    expect(listed.find((p) => p.name === 'Phone')!.last_used_at_millis).not.toBeNull();
    expect(listed.find((p) => p.name === 'Laptop')!.last_used_at_millis).toBeNull();
    expect((await signIn(project, laptop)).status).toBe(200);
    listed = await listPasskeys(project, user);
    expect(listed.every((p) => p.last_used_at_millis !== null)).toBe(true);
  });

  it('tolerates a counter that stays at 0 (synced passkeys) and refuses one that goes backwards', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const synced = (await register(project, user, LOCAL, {}, {})).credential;
    for (let i = 0; i < 2; i++) expect((await signIn(project, synced, { origin: LOCAL, counter: 0, backedUp: true })).status).toBe(200);

    const device = (await register(project, user)).credential;
    expect((await signIn(project, device, { origin: LOCAL, counter: 5 })).status).toBe(200);
    expectKnownError(await signIn(project, device, { origin: LOCAL, counter: 3 }), 'PASSKEY_AUTHENTICATION_FAILED', 400);
    expectKnownError(await signIn(project, device, { origin: LOCAL, counter: 5 }), 'PASSKEY_AUTHENTICATION_FAILED', 400);
    expect((await signIn(project, device, { origin: LOCAL, counter: 6 })).status).toBe(200);
  });

  it('refuses: no user verification, an untrusted origin, another RP ID, a replayed challenge, a credential of another project', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const credential = (await register(project, user)).credential;
    const failed = async (res: ApiResponse, message?: RegExp) => {
      expectKnownError(res, 'PASSKEY_AUTHENTICATION_FAILED', 400);
      if (message) expect(res.body.error).toMatch(message);
    };
    await failed(await signIn(project, credential, { origin: LOCAL, userVerified: false }), /user could not be verified/i);
    await failed(await signIn(project, credential, { origin: 'https://evil.test' }), /not a trusted domain/);
    // localhost is trusted, but the passkey was made for localhost, not app.localhost.
    await failed(await signIn(project, credential, { origin: 'http://app.localhost:5173', rpId: 'app.localhost' }), /works on localhost/);

    const started = await startAuthentication(project);
    const response = assert(credential, started.options_json, { origin: LOCAL });
    expect((await h.post('/auth/passkey/sign-in', { authentication_response: response, code: started.code }, project.client())).status).toBe(200);
    expectKnownError(await h.post('/auth/passkey/sign-in', { authentication_response: response, code: started.code }, project.client()), 'ALREADY_USED', 409);

    // The same credential presented to another project (same origin, same RP ID): unknown there.
    const other = await newProject();
    await failed(await signIn(other, credential), /not registered with this project/);
    // And another project's challenge code means nothing here.
    const foreign = await startAuthentication(other);
    expectKnownError(
      await h.post(
        '/auth/passkey/sign-in',
        { authentication_response: assert(credential, foreign.options_json, { origin: LOCAL }), code: foreign.code },
        project.client(),
      ),
      'CODE_NOT_FOUND',
      404,
    );
  });

  it('answers PASSKEY_AUTHENTICATION_NOT_ENABLED on all four calls when the project has passkeys off, and honours the user switch', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const credential = (await register(project, user)).credential;

    // The user turns passkey sign-in off: their passkeys stay, but do not sign in.
    expect((await h.patch('/users/me', { passkey_auth_enabled: false }, project.client(user.accessToken))).status).toBe(200);
    expectKnownError(await signIn(project, credential), 'PASSKEY_AUTHENTICATION_FAILED', 400);
    expect((await h.patch('/users/me', { passkey_auth_enabled: true }, project.client(user.accessToken))).status).toBe(200);
    expect((await signIn(project, credential)).status).toBe(200);

    const authStarted = await startAuthentication(project);
    const regStarted = await startRegistration(project, user);
    expect((await h.patch('/internal/projects/current', { config: { passkey_enabled: false } }, project.admin())).status).toBe(200);
    for (const [path, body, token] of [
      ['/auth/passkey/initiate-passkey-registration', {}, user.accessToken],
      [
        '/auth/passkey/register',
        { credential: createCredential(regStarted.options_json, { origin: LOCAL }).response, code: regStarted.code },
        user.accessToken,
      ],
      ['/auth/passkey/initiate-passkey-authentication', {}, undefined],
      [
        '/auth/passkey/sign-in',
        { authentication_response: assert(credential, authStarted.options_json, { origin: LOCAL }), code: authStarted.code },
        undefined,
      ],
    ] as const) {
      expectKnownError(await h.post(path, body, project.client(token)), 'PASSKEY_AUTHENTICATION_NOT_ENABLED', 400);
    }
  });
});

describe('management', () => {
  async function ageSessions(project: ProjectFixture, user: UserSession, seconds: number): Promise<void> {
    const tenancy = await tenancyOf(h, project.id);
    await h.latch.deps.db
      .updateTable('sessions')
      .set({ created_at: new Date(Date.now() - seconds * 1000) })
      .where('tenancy_id', '=', tenancy.id)
      .where('user_id', '=', user.userId)
      .execute();
  }

  it('renames; deletes only with a fresh sign-in (5 minutes); the last one turns passkey sign-in off', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const laptop = await register(project, user, LOCAL, { name: 'Laptop' });
    const phone = await register(project, user, LOCAL, { name: 'Phone' });
    const laptopId = laptop.res.body.id as string;
    const phoneId = phone.res.body.id as string;

    const renamed = await h.patch(`/passkeys/me/${laptopId}`, { name: 'Work laptop' }, project.client(user.accessToken));
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('Work laptop');
    expect((await h.patch(`/passkeys/me/${laptopId}`, { name: '' }, project.client(user.accessToken))).status).toBe(400);
    expect((await h.patch(`/passkeys/me/${laptopId}`, { name: 'x'.repeat(65) }, project.client(user.accessToken))).status).toBe(400);

    // Another user's passkey is not found for them.
    const other = await h.signUpUser(project);
    expectKnownError(await h.patch(`/passkeys/me/${laptopId}`, { name: 'Mine' }, project.client(other.accessToken)), 'PASSKEY_NOT_FOUND', 404);
    expectKnownError(await h.del(`/passkeys/me/${laptopId}`, project.client(other.accessToken)), 'PASSKEY_NOT_FOUND', 404);
    expect((await h.get(`/passkeys?user_id=${user.userId}`, project.client(other.accessToken))).status).toBeGreaterThanOrEqual(400);

    // A session older than 5 minutes cannot delete (a stolen token must not strip the owner's passkeys).
    await ageSessions(project, user, 301);
    expectKnownError(await h.del(`/passkeys/me/${laptopId}`, project.client(user.accessToken)), 'RECENT_SIGN_IN_REQUIRED', 403);
    await ageSessions(project, user, 60);
    expect((await h.del(`/passkeys/me/${laptopId}`, project.client(user.accessToken))).status).toBe(200);
    expectKnownError(await signIn(project, laptop.credential), 'PASSKEY_AUTHENTICATION_FAILED', 400);
    expect((await h.get('/users/me', project.client(user.accessToken))).body.passkey_auth_enabled).toBe(true);

    // The server (the project's backend, the console) deletes without that rule; the last one turns the flag off.
    await ageSessions(project, user, 3600);
    expect((await h.del(`/passkeys/${user.userId}/${phoneId}`, project.server())).status).toBe(200);
    expect((await h.get(`/users/${user.userId}`, project.server())).body.passkey_auth_enabled).toBe(false);
    expect(await listPasskeys(project, user)).toEqual([]);
  });

  it("revokes a claimant's passkeys when the address's owner proves it (the verified-email rule)", async () => {
    const project = await newProject({ magic_link_enabled: true });
    // Someone signs up with an address they do not own, and adds a passkey.
    const claimant = await h.signUpUser(project);
    const squatted = (await register(project, claimant)).credential;
    // The owner proves the address with a magic link: every credential the claimant set goes.
    // (The code the emailed link would carry, issued directly: this test is about what it revokes.)
    const tenancy = await tenancyOf(h, project.id);
    const { createCode } = await import('../verification/service.js');
    const issued = await createCode(h.latch.deps.db, tenancy, 'magic_link', { email: claimant.email }, 60_000);
    const proven = await h.post('/auth/otp/sign-in', { code: issued.code }, project.client());
    expect(proven.status).toBe(200);
    expectKnownError(await signIn(project, squatted), 'PASSKEY_AUTHENTICATION_FAILED', 400);
    expect(await listPasskeys(project, { ...claimant, accessToken: proven.body.access_token })).toEqual([]);
  });
});
