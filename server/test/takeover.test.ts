import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_EMAIL_SETTINGS, DEFAULT_RATE_LIMITS } from '../env.js';
import { type Harness, type Headers_, type ProjectFixture, startHarness } from './harness.js';
import { attachUnprovenEmail, expectKnownError, expectStatus } from './team-fixtures.js';
import { codeMailedTo } from './outbox.js';

/**
 * Issue 13 items 1 (no pre-account takeover), 7 (no unlimited enumeration) and 11 (lock-out
 * without a hostage), played as the attacker would, through real HTTP. The rules under test are in
 * server/domains/contact-channels/claims.ts: only a proven address is an identity; an unproven one
 * is a claim that blocks no sign-up; a proof by code strips whatever the claimant set.
 */

const PASSWORD = 'correct-horse-battery';
const ATTACKER_PASSWORD = 'attacker-password-1';
const CALLBACK = 'http://localhost:3000/handler/callback';
const CONFIG = { magic_link_enabled: true, allow_user_api_keys: true, allow_team_api_keys: true };
/** Other IPs come from X-Forwarded-For, trusted from loopback (the harness's proxy setting). */
const fromIp = (ip: string, headers: Headers_): Headers_ => ({ ...headers, 'x-forwarded-for': ip });

const PER_EMAIL_IP = 3;
const PER_EMAIL = 6;
const PROBES = 10;

let h: Harness;
/** Small limits, for the bursts and lock-outs that would otherwise take hundreds of argon2 hashes. */
let small: Harness;
beforeAll(async () => {
  [h, small] = await Promise.all([
    startHarness({ email: { ...DEFAULT_EMAIL_SETTINGS, pollIntervalMs: 25 }, trustProxy: 'loopback' }),
    startHarness({
      email: { ...DEFAULT_EMAIL_SETTINGS, pollIntervalMs: 25 },
      trustProxy: 'loopback',
      rateLimits: { ...DEFAULT_RATE_LIMITS, signInPerEmailIp: PER_EMAIL_IP, signInPerEmail: PER_EMAIL, emailProbesPerIp: PROBES },
    }),
  ]);
}, 120_000);
afterAll(async () => Promise.all([h?.close(), small?.close()]), 120_000);

async function signUp(on: Harness, project: ProjectFixture, email: string, password: string, headers: Headers_ = project.client()) {
  const res = await on.post('/auth/password/sign-up', { email, password }, headers);
  expectStatus(res, 200);
  return {
    id: res.body.user_id as string,
    accessToken: res.body.access_token as string,
    refreshToken: res.body.refresh_token as string,
    headers: project.client(res.body.access_token),
  };
}

const signIn = (on: Harness, project: ProjectFixture, email: string, password: string, headers: Headers_ = project.client()) =>
  on.post('/auth/password/sign-in', { email, password }, headers);
const refresh = (project: ProjectFixture, refreshToken: string) =>
  h.post('/auth/sessions/current/refresh', {}, { ...project.client(), 'x-latch-refresh-token': refreshToken });
const channelsOf = async (project: ProjectFixture, userId: string) =>
  (await h.get(`/contact-channels?user_id=${userId}`, project.server())).body.items as {
    id: string;
    value: string;
    is_verified: boolean;
    used_for_auth: boolean;
    is_primary: boolean;
  }[];
const userOf = async (project: ProjectFixture, userId: string) => (await h.get(`/users/${userId}`, project.server())).body;

const magicLinkCode = (on: Harness, project: ProjectFixture, email: string, headers: Headers_ = project.client()) =>
  codeMailedTo(on, project, email, () => on.post('/auth/otp/send-sign-in-code', { email, callback_url: CALLBACK }, headers));
const resetCode = (on: Harness, project: ProjectFixture, email: string) =>
  codeMailedTo(on, project, email, () => on.post('/auth/password/send-reset-code', { email, callback_url: CALLBACK }, project.client()));

/** The attacker's account, set up with every credential a client (and a friendly server) can add. */
async function armedAttacker(project: ProjectFixture, victimEmail: string) {
  const attacker = await signUp(h, project, victimEmail, ATTACKER_PASSWORD);
  const second = await signIn(h, project, victimEmail, ATTACKER_PASSWORD);
  expectStatus(second, 200);
  // A sign-in address of the attacker's own, proven.
  const own = h.uniqueEmail('attacker-own');
  const ownChannel = await h.post('/contact-channels', { user_id: 'me', type: 'email', value: own, used_for_auth: false }, attacker.headers);
  expectStatus(await h.patch(`/contact-channels/${attacker.id}/${ownChannel.body.id}`, { is_verified: true }, project.server()), 200);
  expectStatus(await h.patch(`/contact-channels/me/${ownChannel.body.id}`, { used_for_auth: true }, attacker.headers), 200);
  expectStatus(await signIn(h, project, own, ATTACKER_PASSWORD), 200);
  // API keys: the user's own, and one of a team the attacker manages.
  const userKey = await h.post('/user-api-keys', { user_id: 'me', description: 'attacker' }, attacker.headers);
  expectStatus(userKey, 201);
  const team = await h.post('/teams', { display_name: 'Attacker team', creator_user_id: attacker.id }, project.server());
  expectStatus(await h.post(`/team-permissions/${team.body.id}/${attacker.id}/$manage_api_keys`, {}, project.server()), 201);
  const teamKey = await h.post('/team-api-keys', { team_id: team.body.id, description: 'attacker team key' }, attacker.headers);
  expectStatus(teamKey, 201);
  // A second factor only the attacker has.
  expectStatus(await h.patch(`/users/${attacker.id}`, { totp_secret_base64: Buffer.alloc(20, 7).toString('base64') }, project.server()), 200);
  return {
    ...attacker,
    secondRefreshToken: second.body.refresh_token as string,
    own,
    ownChannelId: ownChannel.body.id as string,
    userKey: userKey.body.value as string,
    teamKey: teamKey.body.value as string,
  };
}

/** Nothing the attacker set still works. */
async function expectAttackerLockedOut(project: ProjectFixture, victimEmail: string, attacker: Awaited<ReturnType<typeof armedAttacker>>) {
  expectKnownError(await signIn(h, project, victimEmail, ATTACKER_PASSWORD), 400, 'EMAIL_PASSWORD_MISMATCH');
  expectKnownError(await signIn(h, project, attacker.own, ATTACKER_PASSWORD), 400, 'EMAIL_PASSWORD_MISMATCH');
  for (const token of [attacker.refreshToken, attacker.secondRefreshToken])
    expectKnownError(await refresh(project, token), 401, 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED');
  expect((await h.get('/users/me', attacker.headers)).status).toBe(401);
  expectKnownError(await h.post('/user-api-keys/check', { api_key: attacker.userKey }, project.server()), 401, 'API_KEY_REVOKED');
  expectKnownError(await h.post('/team-api-keys/check', { api_key: attacker.teamKey }, project.server()), 401, 'API_KEY_REVOKED');
  const user = await userOf(project, attacker.id);
  expect(user).toMatchObject({ has_password: expect.any(Boolean), requires_totp_mfa: false, primary_email: victimEmail, primary_email_verified: true });
  const own = (await channelsOf(project, attacker.id)).find((c) => c.id === attacker.ownChannelId);
  expect(own).toMatchObject({ used_for_auth: false });
}

describe('issue 13 item 1: an unproven address never blocks a sign-up and never signs anyone in to someone else', () => {
  it("an address an attacker signed up with does not block its owner's sign-up; the newest claim answers to it; the owner's proof removes the attacker's claim", async () => {
    const project = await h.createProject({ config: CONFIG });
    const victimEmail = h.uniqueEmail('victim');
    const attacker = await signUp(h, project, victimEmail, ATTACKER_PASSWORD);
    const victim = await signUp(h, project, victimEmail.toUpperCase(), PASSWORD);
    expect(victim.id).not.toBe(attacker.id);
    // The address answers to the newest claim only: the attacker's password no longer signs in with it.
    expect((await signIn(h, project, victimEmail, PASSWORD)).body.user_id).toBe(victim.id);
    expectKnownError(await signIn(h, project, victimEmail, ATTACKER_PASSWORD), 400, 'EMAIL_PASSWORD_MISMATCH');
    // The owner proves the address (a verification link, opened where the owner is signed in).
    const code = await codeMailedTo(h, project, victimEmail.toUpperCase(), () =>
      h.post('/contact-channels/send-verification-code', { email: victimEmail.toUpperCase(), callback_url: CALLBACK }, victim.headers),
    );
    expectStatus(await h.post('/contact-channels/verify', { code }, victim.headers), 200);
    // The attacker's claim is gone, and the proven address now refuses a new sign-up.
    expect((await channelsOf(project, attacker.id)).map((c) => c.value)).toEqual([]);
    expect(await userOf(project, attacker.id)).toMatchObject({ primary_email: null, auth_with_email: false });
    expectKnownError(
      await h.post('/auth/password/sign-up', { email: victimEmail, password: ATTACKER_PASSWORD }, project.client()),
      409,
      'USER_EMAIL_ALREADY_EXISTS',
    );
    // A magic link to the address now signs the owner in to the owner's own account.
    expect((await h.post('/auth/otp/sign-in', { code: await magicLinkCode(h, project, victimEmail) }, project.client())).body).toMatchObject({
      user_id: victim.id,
      is_new_user: false,
    });
  }, 60_000);

  it('a magic link to an address an attacker signed up with revokes everything the attacker set: password, sessions, refresh tokens, user and team API keys, TOTP, other sign-in addresses', async () => {
    const project = await h.createProject({ config: CONFIG });
    const victimEmail = h.uniqueEmail('victim');
    const attacker = await armedAttacker(project, victimEmail);
    const code = await magicLinkCode(h, project, victimEmail);
    const signedIn = await h.post('/auth/otp/sign-in', { code }, project.client());
    expectStatus(signedIn, 200);
    expect(signedIn.body).toMatchObject({ user_id: attacker.id, is_new_user: false });
    await expectAttackerLockedOut(project, victimEmail, attacker);
    expect((await userOf(project, attacker.id)).has_password).toBe(false);
    // The owner's own session works, and theirs is the only one.
    expectStatus(await h.get('/users/me', project.client(signedIn.body.access_token)), 200);
    expect((await h.get(`/auth/sessions?user_id=${attacker.id}`, project.server())).body.items).toHaveLength(1);
  });

  it("a password reset to an address an attacker signed up with revokes the same, and only the owner's new password signs in", async () => {
    const project = await h.createProject({ config: CONFIG });
    const victimEmail = h.uniqueEmail('victim');
    const attacker = await armedAttacker(project, victimEmail);
    const code = await resetCode(h, project, victimEmail);
    expectStatus(await h.post('/auth/password/reset', { code, password: PASSWORD }, project.client()), 200);
    await expectAttackerLockedOut(project, victimEmail, attacker);
    expect((await signIn(h, project, victimEmail, PASSWORD)).body.user_id).toBe(attacker.id);
    expect((await h.get(`/auth/sessions?user_id=${attacker.id}`, project.server())).body.items).toHaveLength(1);
  });

  it('an address a client attaches to itself is never a sign-in address until proven, and does not stand between its owner and their account', async () => {
    const project = await h.createProject({ config: CONFIG });
    const victimEmail = h.uniqueEmail('victim');
    const attacker = await signUp(h, project, h.uniqueEmail('attacker'), ATTACKER_PASSWORD);
    const contact = await attachUnprovenEmail(h, attacker.headers, victimEmail);
    expectKnownError(await h.patch(`/contact-channels/me/${contact.body.id}`, { used_for_auth: true }, attacker.headers), 400, 'EMAIL_NOT_VERIFIED');
    // Nor by moving the attacker's own sign-in address onto the victim's.
    const primary = (await channelsOf(project, attacker.id)).find((c) => c.is_primary)!;
    await h.del(`/contact-channels/me/${contact.body.id}`, attacker.headers);
    expectKnownError(await h.patch(`/contact-channels/me/${primary.id}`, { value: victimEmail }, attacker.headers), 400, 'EMAIL_NOT_VERIFIED');
    expectKnownError(await signIn(h, project, victimEmail, ATTACKER_PASSWORD), 400, 'EMAIL_PASSWORD_MISMATCH');
    // The owner signs up, and a magic link to the address leads to the owner's own account.
    const victim = await signUp(h, project, victimEmail, PASSWORD);
    expect((await h.post('/auth/otp/sign-in', { code: await magicLinkCode(h, project, victimEmail) }, project.client())).body).toMatchObject({
      user_id: victim.id,
    });
  });

  it("a verification link the address's owner opens for an attacker's account (no session of it) verifies the address, but the owner's next magic link still strips the attacker", async () => {
    const project = await h.createProject({ config: CONFIG });
    const victimEmail = h.uniqueEmail('victim');
    const attacker = await armedAttacker(project, victimEmail);
    const code = await codeMailedTo(h, project, victimEmail, () =>
      h.post('/contact-channels/send-verification-code', { email: victimEmail, callback_url: CALLBACK }, attacker.headers),
    );
    // The owner clicks: a bare code. The address is verified (the mailbox is proven)...
    expectStatus(await h.post('/contact-channels/verify', { code }, project.client()), 200);
    expect(await userOf(project, attacker.id)).toMatchObject({ primary_email: victimEmail, primary_email_verified: true });
    // ...so it refuses a new sign-up, and the owner's way in is a proof by code, which strips the attacker.
    expectKnownError(await h.post('/auth/password/sign-up', { email: victimEmail, password: PASSWORD }, project.client()), 409, 'USER_EMAIL_ALREADY_EXISTS');
    const signedIn = await h.post('/auth/otp/sign-in', { code: await magicLinkCode(h, project, victimEmail) }, project.client());
    expect(signedIn.body).toMatchObject({ user_id: attacker.id, is_new_user: false });
    await expectAttackerLockedOut(project, victimEmail, attacker);
  }, 60_000);

  it("a verification link opened in a session of its own account is the holder's proof: a later magic link keeps the holder's password and sessions", async () => {
    const project = await h.createProject({ config: CONFIG });
    const email = h.uniqueEmail('holder');
    const user = await signUp(h, project, email, PASSWORD);
    const code = await codeMailedTo(h, project, email, () =>
      h.post('/contact-channels/send-verification-code', { email, callback_url: CALLBACK }, user.headers),
    );
    expectStatus(await h.post('/contact-channels/verify', { code }, user.headers), 200);
    expect((await h.post('/auth/otp/sign-in', { code: await magicLinkCode(h, project, email) }, project.client())).body).toMatchObject({ user_id: user.id });
    expect((await signIn(h, project, email, PASSWORD)).body.user_id).toBe(user.id);
    expectStatus(await refresh(project, user.refreshToken), 200);
  }, 60_000);

  it('the server is told about claims (409) and may vouch for an address, which removes every unverified claim on it', async () => {
    const project = await h.createProject({ config: CONFIG });
    const email = h.uniqueEmail('claimed');
    const claimant = await signUp(h, project, email, ATTACKER_PASSWORD);
    expectKnownError(await h.post('/users', { primary_email: email }, project.server()), 409, 'USER_EMAIL_ALREADY_EXISTS');
    const vouched = await h.post(
      '/users',
      { primary_email: email, primary_email_verified: true, primary_email_auth_enabled: true, password: PASSWORD },
      project.server(),
    );
    expectStatus(vouched, 201);
    expect(await channelsOf(project, claimant.id)).toEqual([]);
    expectKnownError(await signIn(h, project, email, ATTACKER_PASSWORD), 400, 'EMAIL_PASSWORD_MISMATCH');
    expect((await signIn(h, project, email, PASSWORD)).body.user_id).toBe(vouched.body.id);
    // A second proven holder is refused (the unique index).
    expectKnownError(
      await h.post('/users', { primary_email: email.toUpperCase(), primary_email_verified: true, primary_email_auth_enabled: true }, project.server()),
      409,
      'USER_EMAIL_ALREADY_EXISTS',
    );
  });
});

describe('issue 13 item 1: signing out everywhere revokes API keys too', () => {
  it("a password change revokes the user's keys and the team keys they made (the current session stays); a reset does the same and ends every session", async () => {
    const project = await h.createProject({ config: CONFIG });
    const email = h.uniqueEmail('owner');
    const created = await h.post(
      '/users',
      { primary_email: email, primary_email_verified: true, primary_email_auth_enabled: true, password: PASSWORD },
      project.server(),
    );
    const userId = created.body.id as string;
    const session = await signIn(h, project, email, PASSWORD);
    const other = await signIn(h, project, email, PASSWORD);
    const headers = project.client(session.body.access_token);
    const team = await h.post('/teams', { display_name: 'Team', creator_user_id: userId }, project.server());
    expectStatus(await h.post(`/team-permissions/${team.body.id}/${userId}/$manage_api_keys`, {}, project.server()), 201);
    const keys = async () => ({
      user: (await h.post('/user-api-keys', { user_id: 'me', description: 'mine' }, headers)).body.value as string,
      team: (await h.post('/team-api-keys', { team_id: team.body.id, description: 'made by the user' }, headers)).body.value as string,
    });
    // A team key the server made is the team's, not the user's: it survives.
    const serverTeamKey = (await h.post('/team-api-keys', { team_id: team.body.id, description: 'made by the server' }, project.server())).body.value as string;
    const expectRevoked = async (k: { user: string; team: string }) => {
      expectKnownError(await h.post('/user-api-keys/check', { api_key: k.user }, project.server()), 401, 'API_KEY_REVOKED');
      expectKnownError(await h.post('/team-api-keys/check', { api_key: k.team }, project.server()), 401, 'API_KEY_REVOKED');
      expectStatus(await h.post('/team-api-keys/check', { api_key: serverTeamKey }, project.server()), 200);
    };

    const beforeChange = await keys();
    expectStatus(await h.post('/auth/password/update', { old_password: PASSWORD, new_password: 'correct-horse-2' }, headers), 200);
    await expectRevoked(beforeChange);
    expectStatus(await h.get('/users/me', headers), 200);
    expectKnownError(await refresh(project, other.body.refresh_token), 401, 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED');

    const beforeReset = await keys();
    const code = await resetCode(h, project, email);
    expectStatus(await h.post('/auth/password/reset', { code, password: 'correct-horse-3' }, project.client()), 200);
    await expectRevoked(beforeReset);
    expectKnownError(await refresh(project, session.body.refresh_token), 401, 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED');
  });
});

describe('issue 13 item 7: every answer that reveals an account is counted before it is given', () => {
  const limit = DEFAULT_RATE_LIMITS.emailProbesPerIp;

  it(`a parallel burst of 160 contact-channel conflicts from one IP gets at most ${limit} revealing answers (CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE)`, async () => {
    const project = await h.createProject({ config: CONFIG });
    const taken = h.uniqueEmail('taken');
    expectStatus(await h.post('/users', { primary_email: taken, primary_email_verified: true, primary_email_auth_enabled: true }, project.server()), 201);
    const prober = await signUp(h, project, h.uniqueEmail('prober'), PASSWORD);
    const contact = await h.post('/contact-channels', { user_id: 'me', type: 'email', value: taken, used_for_auth: false }, prober.headers);
    expectStatus(await h.patch(`/contact-channels/${prober.id}/${contact.body.id}`, { is_verified: true }, project.server()), 200);
    const ip = '198.51.100.70';
    const results = await Promise.all(
      Array.from({ length: 160 }, () => h.patch(`/contact-channels/me/${contact.body.id}`, { used_for_auth: true }, fromIp(ip, prober.headers))),
    );
    const revealing = results.filter((r) => r.body.code === 'CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE');
    expect(revealing.length).toBeLessThanOrEqual(limit);
    expect(results.filter((r) => r.body.code === 'RATE_LIMITED').length).toBe(160 - revealing.length);
  }, 120_000);

  it(`a parallel burst of 40 sign-ups with a proven address from one IP gets at most ${PROBES} USER_EMAIL_ALREADY_EXISTS (limit ${PROBES}: each costs a hash)`, async () => {
    const project = await small.createProject({ config: CONFIG });
    const taken = small.uniqueEmail('taken');
    expectStatus(await small.post('/users', { primary_email: taken, primary_email_verified: true, primary_email_auth_enabled: true }, project.server()), 201);
    const ip = '198.51.100.71';
    const results = await Promise.all(
      Array.from({ length: 40 }, () => small.post('/auth/password/sign-up', { email: taken, password: PASSWORD }, fromIp(ip, project.client()))),
    );
    const revealing = results.filter((r) => r.body.code === 'USER_EMAIL_ALREADY_EXISTS');
    expect(revealing.length).toBeLessThanOrEqual(PROBES);
    expect(results.filter((r) => r.body.code === 'RATE_LIMITED').length).toBe(40 - revealing.length);
  }, 120_000);
});

describe('issue 13 item 11: a lock-out is not a hostage', () => {
  it('failures from one IP lock that IP out only; the per-email limit counts only what gets past that; a password reset or a magic link clears both', async () => {
    const project = await small.createProject({ config: CONFIG });
    const email = small.uniqueEmail('victim');
    const user = await signUp(small, project, email, PASSWORD);
    const at = (ip: string) => fromIp(ip, project.client());
    // One attacker IP: locked out after PER_EMAIL_IP failures, however many more it tries.
    for (let i = 0; i < PER_EMAIL_IP; i++)
      expectKnownError(await signIn(small, project, email, 'wrong-password', at('203.0.113.1')), 400, 'EMAIL_PASSWORD_MISMATCH');
    for (let i = 0; i < 10; i++) expectKnownError(await signIn(small, project, email, 'wrong-password', at('203.0.113.1')), 429, 'RATE_LIMITED');
    expectKnownError(await signIn(small, project, email, PASSWORD, at('203.0.113.1')), 429, 'RATE_LIMITED');
    // The owner, elsewhere, is not affected.
    expect((await signIn(small, project, email, PASSWORD, at('198.51.100.1'))).body.user_id).toBe(user.id);
    // Many sources together reach the per-email limit (only what each IP let through counts)...
    expectKnownError(await signIn(small, project, email, 'wrong-password', at('203.0.113.2')), 400, 'EMAIL_PASSWORD_MISMATCH');
    expectKnownError(await signIn(small, project, email, 'wrong-password', at('203.0.113.2')), 400, 'EMAIL_PASSWORD_MISMATCH');
    expectKnownError(await signIn(small, project, email, 'wrong-password', at('203.0.113.3')), 400, 'EMAIL_PASSWORD_MISMATCH');
    expectKnownError(await signIn(small, project, email, PASSWORD, at('198.51.100.1')), 429, 'RATE_LIMITED');
    // ...and the owner's password reset clears it, for every IP.
    const code = await resetCode(small, project, email);
    expectStatus(await small.post('/auth/password/reset', { code, password: 'correct-horse-2' }, project.client()), 200);
    expect((await signIn(small, project, email, 'correct-horse-2', at('198.51.100.1'))).status).toBe(200);
    expect((await signIn(small, project, email, 'correct-horse-2', at('203.0.113.1'))).status).toBe(200);
    // Locked again; this time a magic link is the way out.
    for (let i = 0; i < PER_EMAIL_IP; i++)
      expectKnownError(await signIn(small, project, email, 'wrong-password', at('203.0.113.4')), 400, 'EMAIL_PASSWORD_MISMATCH');
    expectKnownError(await signIn(small, project, email, 'correct-horse-2', at('203.0.113.4')), 429, 'RATE_LIMITED');
    expectStatus(await small.post('/auth/otp/sign-in', { code: await magicLinkCode(small, project, email) }, project.client()), 200);
    expect((await signIn(small, project, email, 'correct-horse-2', at('203.0.113.4'))).status).toBe(200);
  });
});
