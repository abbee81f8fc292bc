import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpClock, totpCode } from '../crypto/totp.js';
import { DEFAULT_EMAIL_SETTINGS } from '../env.js';
import { SECOND_FACTOR_FAILURES_PER_USER } from '../domains/rate-limits/service.js';
import { MFA_ATTEMPT_MAX_TRIES, RECOVERY_CODE_COUNT } from '../domains/mfa/service.js';
import { type ApiResponse, type Harness, type Headers_, type OwnerSession, type ProjectFixture, startHarness, type UserSession } from './harness.js';
import { codeMailedTo } from './outbox.js';

/**
 * Issue 16, item 1: TOTP MFA, through real HTTP on a real database, with a fixed TOTP clock
 * (server/crypto/totp.ts, totpClock: the server runs in this process). Every first factor of a
 * user with MFA on answers MULTI_FACTOR_AUTHENTICATION_REQUIRED with an attempt code and no
 * session; POST /auth/mfa/sign-in with a TOTP or recovery code finishes it.
 */

/** A moment at the start of a 30-second step, so "the next step" is exactly +30 s. */
const T0 = 30_000 * 63_333_334;
let now = T0;
totpClock.now = () => now;
const nextStep = () => (now += 30_000);

const CALLBACK = 'http://localhost:3000/handler/magic-link-callback';
let h: Harness;
let owner: OwnerSession;
beforeAll(async () => {
  h = await startHarness({ email: { ...DEFAULT_EMAIL_SETTINGS, pollIntervalMs: 25 } });
  owner = await h.signUpOwner();
}, 120_000);
afterAll(async () => h?.close(), 120_000);

function expectKnownError(res: ApiResponse, code: string, status = 400): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers.get('x-latch-known-error')).toBe(code);
}

const tenancyOf = async (project: ProjectFixture) =>
  (await h.latch.deps.db.selectFrom('tenancies').select('id').where('project_id', '=', project.id).where('branch_id', '=', 'main').executeTakeFirstOrThrow())
    .id;

const sessionCount = async (project: ProjectFixture, userId: string) =>
  Number(
    (
      await h.latch.deps.db
        .selectFrom('sessions')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('tenancy_id', '=', await tenancyOf(project))
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow()
    ).n,
  );

/** The base32 secret of an otpauth URI, as the authenticator app reads it, back to base64. */
function secretOfUri(uri: string): string {
  const base32 = new URL(uri).searchParams.get('secret')!;
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of base32) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  const bytes = bits.match(/.{8}/g)!.map((b) => parseInt(b, 2));
  return Buffer.from(bytes).toString('base64');
}

/** Enrols the signed-in user through the server-verified flow; returns the secret and the recovery codes. */
async function enrol(headers: Headers_): Promise<{ secret: string; recoveryCodes: string[] }> {
  const started = await h.post('/users/me/mfa/totp/enroll', {}, headers);
  expect(started.status).toBe(200);
  expect(started.body.otpauth_uri).toMatch(/^otpauth:\/\/totp\//);
  const secret = secretOfUri(started.body.otpauth_uri);
  const confirmed = await h.post('/users/me/mfa/totp/confirm', { totp: await totpCode(secret) }, headers);
  expect(confirmed.status).toBe(200);
  nextStep(); // the confirming code's step is used up
  return { secret, recoveryCodes: confirmed.body.recovery_codes };
}

async function userWithMfa(project: ProjectFixture): Promise<UserSession & { secret: string; recoveryCodes: string[] }> {
  const user = await h.signUpUser(project);
  return { ...user, ...(await enrol(project.client(user.accessToken))) };
}

async function gatedPasswordSignIn(project: ProjectFixture, user: UserSession): Promise<string> {
  const res = await h.post('/auth/password/sign-in', { email: user.email, password: user.password }, project.client());
  expectKnownError(res, 'MULTI_FACTOR_AUTHENTICATION_REQUIRED');
  expect(res.body.access_token).toBeUndefined();
  expect(typeof res.body.details.attempt_code).toBe('string');
  return res.body.details.attempt_code;
}

const mfaSignIn = (project: ProjectFixture, code: string, totp: string) => h.post('/auth/mfa/sign-in', { type: 'totp', totp, code }, project.client());

describe('enrolment, verified by the server', () => {
  it('keeps the secret pending until a current code confirms it, then turns MFA on with 10 recovery codes', async () => {
    const project = await h.createProject({ owner });
    const user = await h.signUpUser(project);
    const headers = project.client(user.accessToken);
    expectKnownError(await h.post('/users/me/mfa/totp/confirm', { totp: '123456' }, headers), 'TOTP_ENROLLMENT_NOT_STARTED');

    const started = await h.post('/users/me/mfa/totp/enroll', {}, headers);
    expect(started.body.otpauth_uri).toContain(`issuer=`);
    expect(new URL(started.body.otpauth_uri).searchParams.get('secret')).toBe(started.body.secret_base32);
    const secret = secretOfUri(started.body.otpauth_uri);
    expect((await h.get('/users/me/mfa', headers)).body).toMatchObject({ requires_totp_mfa: false, totp_enrollment_pending: true });
    expect((await h.get('/users/me', headers)).body.requires_totp_mfa).toBe(false);

    // A wrong code, and a code of the next step (the future), are refused; MFA stays off.
    expectKnownError(await h.post('/users/me/mfa/totp/confirm', { totp: '000000' }, headers), 'INVALID_TOTP_CODE');
    expectKnownError(await h.post('/users/me/mfa/totp/confirm', { totp: await totpCode(secret, now + 30_000) }, headers), 'INVALID_TOTP_CODE');
    const wrong = await h.post('/users/me/mfa/totp/confirm', { totp: '000000' }, headers);
    expect(wrong.body.error).toBe('The TOTP code is invalid. Please try again.');
    expect((await h.get('/users/me', headers)).body.requires_totp_mfa).toBe(false);

    const confirmed = await h.post('/users/me/mfa/totp/confirm', { totp: await totpCode(secret) }, headers);
    expect(confirmed.status).toBe(200);
    const codes = confirmed.body.recovery_codes as string[];
    expect(codes).toHaveLength(RECOVERY_CODE_COUNT);
    expect(new Set(codes).size).toBe(RECOVERY_CODE_COUNT);
    expect((await h.get('/users/me', headers)).body.requires_totp_mfa).toBe(true);
    expect((await h.get('/users/me/mfa', headers)).body).toEqual({
      requires_totp_mfa: true,
      totp_enrollment_pending: false,
      recovery_codes_total: 10,
      recovery_codes_remaining: 10,
      last_recovery_code_used_at_millis: null,
    });

    // Stored sealed and hashed: neither the secret nor a recovery code is in the database as such.
    const db = h.latch.deps.db;
    const tenancyId = await tenancyOf(project);
    const row = await db
      .selectFrom('users')
      .select('totp_secret_encrypted')
      .where('tenancy_id', '=', tenancyId)
      .where('id', '=', user.userId)
      .executeTakeFirstOrThrow();
    expect(row.totp_secret_encrypted).not.toContain(secret);
    const hashes = await db
      .selectFrom('mfa_recovery_codes')
      .select('code_hash')
      .where('tenancy_id', '=', tenancyId)
      .where('user_id', '=', user.userId)
      .execute();
    expect(hashes).toHaveLength(10);
    for (const code of codes) expect(hashes.map((r) => r.code_hash)).not.toContain(code);

    // The code that confirmed enrolment cannot also complete a sign-in (same step: replay).
    const attempt = await gatedPasswordSignIn(project, user);
    expectKnownError(await mfaSignIn(project, attempt, await totpCode(secret)), 'INVALID_TOTP_CODE');
    nextStep();
    expect((await mfaSignIn(project, attempt, await totpCode(secret))).status).toBe(200);
  });

  it('re-enrolling or turning MFA off needs a TOTP code, a recovery code or a sign-in in the last 5 minutes; the server/admin resets without', async () => {
    const project = await h.createProject({ owner });
    const user = await userWithMfa(project);
    const headers = project.client(user.accessToken);
    // Age the session: the sign-in is no longer proof.
    await h.latch.deps.db
      .updateTable('sessions')
      .set({ created_at: new Date(Date.now() - 3600_000) })
      .where('tenancy_id', '=', await tenancyOf(project))
      .where('user_id', '=', user.userId)
      .execute();
    expectKnownError(await h.post('/users/me/mfa/totp/enroll', {}, headers), 'RECENT_SIGN_IN_REQUIRED', 403);
    expectKnownError(await h.post('/users/me/mfa/totp/disable', {}, headers), 'RECENT_SIGN_IN_REQUIRED', 403);
    expectKnownError(await h.post('/users/me/mfa/recovery-codes', {}, headers), 'RECENT_SIGN_IN_REQUIRED', 403);
    expectKnownError(await h.post('/users/me/mfa/totp/disable', { totp: '000000' }, headers), 'INVALID_TOTP_CODE');
    expectKnownError(await h.post('/users/me/mfa/totp/disable', { recovery_code: 'AAAAA-AAAAA' }, headers), 'INVALID_TOTP_CODE');
    expect((await h.get('/users/me', headers)).body.requires_totp_mfa).toBe(true);

    // Regenerating with a recovery code: the old codes stop working.
    const regenerated = await h.post('/users/me/mfa/recovery-codes', { recovery_code: user.recoveryCodes[0]!.toLowerCase() }, headers);
    expect(regenerated.status).toBe(200);
    expectKnownError(await h.post('/users/me/mfa/totp/disable', { recovery_code: user.recoveryCodes[1] }, headers), 'INVALID_TOTP_CODE');

    // A current TOTP code turns it off, and everything of it goes.
    expect((await h.post('/users/me/mfa/totp/disable', { totp: await totpCode(user.secret) }, headers)).status).toBe(200);
    expect((await h.get('/users/me/mfa', headers)).body).toMatchObject({ requires_totp_mfa: false, recovery_codes_total: 0 });
    expect((await h.post('/auth/password/sign-in', { email: user.email, password: user.password }, project.client())).status).toBe(200);

    // The owner's reset (admin) and the server need no proof: the way back in for a lost authenticator.
    const other = await userWithMfa(project);
    const attempt = await gatedPasswordSignIn(project, other);
    expect((await h.post(`/users/${other.userId}/mfa/totp/disable`, {}, project.admin())).status).toBe(200);
    expect((await h.get(`/users/${other.userId}/mfa`, project.server())).body.requires_totp_mfa).toBe(false);
    // Its outstanding attempt codes were withdrawn.
    expectKnownError(await mfaSignIn(project, attempt, await totpCode(other.secret)), 'CODE_NOT_FOUND', 404);
    // A client may not reset someone else.
    const third = await userWithMfa(project);
    expect((await h.post(`/users/${third.userId}/mfa/totp/disable`, {}, project.client(user.accessToken))).status).not.toBe(200);
    expect((await h.get(`/users/${third.userId}/mfa`, project.server())).body.requires_totp_mfa).toBe(true);
  });
});

describe('every first factor is gated', () => {
  it('password sign-in: an attempt code instead of a session; TOTP finishes it with is_new_user false; single use', async () => {
    const project = await h.createProject({ owner });
    const user = await userWithMfa(project);
    const before = await sessionCount(project, user.userId);
    const attempt = await gatedPasswordSignIn(project, user);
    expect(await sessionCount(project, user.userId)).toBe(before);
    const done = await mfaSignIn(project, attempt, await totpCode(user.secret));
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ user_id: user.userId, is_new_user: false });
    expect(await sessionCount(project, user.userId)).toBe(before + 1);
    expect((await h.get('/users/me', project.client(done.body.access_token))).body.id).toBe(user.userId);
    nextStep();
    expectKnownError(await mfaSignIn(project, attempt, await totpCode(user.secret)), 'ALREADY_USED', 409);
    // A TOTP code alone is not a way in: without an attempt code there is nothing to finish.
    expectKnownError(await mfaSignIn(project, 'not-an-attempt-code', await totpCode(user.secret)), 'CODE_NOT_FOUND', 404);
  });

  it('magic link / one-time code: the used link commits, the attempt code finishes it', async () => {
    const project = await h.createProject({ owner, config: { magic_link_enabled: true } });
    const email = h.uniqueEmail('linked');
    // The first link creates the account (the address proven by its holder); then MFA goes on.
    const first = await h.post('/auth/otp/sign-in', { code: await magicLinkCode(project, email) }, project.client());
    expect(first.body.is_new_user).toBe(true);
    const user = { userId: first.body.user_id as string, email, ...(await enrol(project.client(first.body.access_token))) };
    const code = await magicLinkCode(project, user.email);
    const gated = await h.post('/auth/otp/sign-in', { code }, project.client());
    expectKnownError(gated, 'MULTI_FACTOR_AUTHENTICATION_REQUIRED');
    // The link was used up by the gated sign-in: it cannot mint a second attempt code.
    expectKnownError(await h.post('/auth/otp/sign-in', { code }, project.client()), 'ALREADY_USED', 409);
    const done = await mfaSignIn(project, gated.body.details.attempt_code, await totpCode(user.secret));
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ user_id: user.userId, is_new_user: false });
  });

  it('anonymous upgrade: the upgrade commits, no session is left, and the MFA sign-in reports is_new_user true', async () => {
    const project = await h.createProject({ owner, config: { anonymous_enabled: true } });
    const anon = await h.post('/auth/anonymous/sign-up', {}, project.client());
    expect(anon.status).toBe(200);
    const anonHeaders = { ...project.client(anon.body.access_token), 'x-latch-allow-anonymous-user': 'true' };
    const { secret } = await enrol(anonHeaders);
    const email = h.uniqueEmail('upgraded');
    const upgrade = await h.post('/auth/password/sign-up', { email, password: 'correct-horse-battery' }, anonHeaders);
    expectKnownError(upgrade, 'MULTI_FACTOR_AUTHENTICATION_REQUIRED');
    const userId = anon.body.user_id as string;
    const upgraded = (await h.get(`/users/${userId}`, project.server())).body;
    expect({ email: upgraded.primary_email, anonymous: upgraded.is_anonymous }).toEqual({ email, anonymous: false });
    expect(await sessionCount(project, userId)).toBe(0);
    const done = await mfaSignIn(project, upgrade.body.details.attempt_code, await totpCode(secret));
    expect(done.body).toMatchObject({ user_id: userId, is_new_user: true });
  });

  it('server sessions (POST /auth/sessions with the secret key) are not gated', async () => {
    const project = await h.createProject({ owner });
    const user = await userWithMfa(project);
    const res = await h.post('/auth/sessions', { user_id: user.userId }, project.server());
    expect(res.status).toBe(201);
    expect(typeof res.body.refresh_token).toBe('string');
  });
});

describe('attempt codes', () => {
  it('expire after 5 minutes', async () => {
    const project = await h.createProject({ owner });
    const user = await userWithMfa(project);
    const attempt = await gatedPasswordSignIn(project, user);
    const db = h.latch.deps.db;
    const row = await db
      .selectFrom('verification_codes')
      .select(['id', 'expires_at', 'created_at'])
      .where('tenancy_id', '=', await tenancyOf(project))
      .where('purpose', '=', 'mfa_sign_in')
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    expect(row.expires_at.getTime() - row.created_at.getTime()).toBeGreaterThan(299_000);
    expect(row.expires_at.getTime() - row.created_at.getTime()).toBeLessThan(301_000);
    await db
      .updateTable('verification_codes')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', row.id)
      .execute();
    expectKnownError(await mfaSignIn(project, attempt, await totpCode(user.secret)), 'EXPIRED');
  });

  it(`allow ${MFA_ATTEMPT_MAX_TRIES} tries, then none (not even the right code)`, async () => {
    const project = await h.createProject({ owner });
    const user = await userWithMfa(project);
    const attempt = await gatedPasswordSignIn(project, user);
    for (let i = 0; i < MFA_ATTEMPT_MAX_TRIES; i++) expectKnownError(await mfaSignIn(project, attempt, '000000'), 'INVALID_TOTP_CODE');
    expectKnownError(await mfaSignIn(project, attempt, await totpCode(user.secret)), 'MAX_ATTEMPTS_REACHED');
    expect(await sessionCount(project, user.userId)).toBe(1);
  });

  it("of project A are useless in project B, even for a user's twin there", async () => {
    const a = await h.createProject({ owner });
    const b = await h.createProject({ owner });
    const userA = await userWithMfa(a);
    const attemptA = await gatedPasswordSignIn(a, userA);
    expectKnownError(await mfaSignIn(b, attemptA, await totpCode(userA.secret)), 'CODE_NOT_FOUND', 404);
    // Still good where it was made.
    expect((await mfaSignIn(a, attemptA, await totpCode(userA.secret))).status).toBe(200);
  });
});

describe('per-user lock-out', () => {
  it(`refuses the user's MFA sign-ins after ${SECOND_FACTOR_FAILURES_PER_USER} wrong codes across attempt codes (new attempt codes do not reset it)`, async () => {
    const project = await h.createProject({ owner });
    const user = await userWithMfa(project);
    let failures = 0;
    while (failures < SECOND_FACTOR_FAILURES_PER_USER) {
      const attempt = await gatedPasswordSignIn(project, user);
      for (let i = 0; i < MFA_ATTEMPT_MAX_TRIES && failures < SECOND_FACTOR_FAILURES_PER_USER; i++, failures++)
        expectKnownError(await mfaSignIn(project, attempt, '000000'), 'INVALID_TOTP_CODE');
    }
    const fresh = await gatedPasswordSignIn(project, user);
    const locked = await mfaSignIn(project, fresh, await totpCode(user.secret));
    expectKnownError(locked, 'RATE_LIMITED', 429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another user of the project is not affected.
    const other = await userWithMfa(project);
    expect((await mfaSignIn(project, await gatedPasswordSignIn(project, other), await totpCode(other.secret))).status).toBe(200);
    nextStep();
  });
});

describe('replay guard', () => {
  it('accepts a TOTP code once, also when two sign-ins race with it', async () => {
    const project = await h.createProject({ owner });
    const user = await userWithMfa(project);
    const [first, second] = [await gatedPasswordSignIn(project, user), await gatedPasswordSignIn(project, user)];
    const code = await totpCode(user.secret);
    const results = await Promise.all([mfaSignIn(project, first, code), mfaSignIn(project, second, code)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
    expectKnownError(
      results.find((r) => r.status === 400)!,
      'INVALID_TOTP_CODE',
    );
    // The loser's attempt code is still good with the next step's code; the old code stays refused.
    const loser = results[0]!.status === 400 ? first : second;
    expectKnownError(await mfaSignIn(project, loser, code), 'INVALID_TOTP_CODE');
    nextStep();
    expect((await mfaSignIn(project, loser, await totpCode(user.secret))).status).toBe(200);
  });

  it('accepts the previous step (a code typed as it rolled over) but never one older than the last used', async () => {
    const project = await h.createProject({ owner });
    const user = await userWithMfa(project);
    nextStep(); // the step before now is not the one enrolment used
    const previous = await totpCode(user.secret, now - 30_000);
    const attempt = await gatedPasswordSignIn(project, user);
    expect((await mfaSignIn(project, attempt, previous)).status).toBe(200);
    const again = await gatedPasswordSignIn(project, user);
    expectKnownError(await mfaSignIn(project, again, await totpCode(user.secret, now - 60_000)), 'INVALID_TOTP_CODE');
    expect((await mfaSignIn(project, again, await totpCode(user.secret))).status).toBe(200);
    nextStep();
  });
});

describe('recovery codes', () => {
  it('sign in once each instead of a TOTP code, and their use is visible to the user and the server', async () => {
    const project = await h.createProject({ owner });
    const user = await userWithMfa(project);
    const attempt = await gatedPasswordSignIn(project, user);
    const recovery = user.recoveryCodes[3]!;
    const done = await h.post('/auth/mfa/sign-in', { type: 'recovery_code', recovery_code: recovery, code: attempt }, project.client());
    expect(done.status).toBe(200);
    const status = (await h.get('/users/me/mfa', project.client(done.body.access_token))).body;
    expect(status).toMatchObject({ recovery_codes_total: 10, recovery_codes_remaining: 9 });
    expect(typeof status.last_recovery_code_used_at_millis).toBe('number');
    expect((await h.get(`/users/${user.userId}/mfa`, project.admin())).body.recovery_codes_remaining).toBe(9);

    const again = await gatedPasswordSignIn(project, user);
    expectKnownError(await h.post('/auth/mfa/sign-in', { type: 'recovery_code', recovery_code: recovery, code: again }, project.client()), 'INVALID_TOTP_CODE');
    // Under a race, one recovery code still signs in once.
    const [x, y] = [await gatedPasswordSignIn(project, user), await gatedPasswordSignIn(project, user)];
    const racing = await Promise.all(
      [x, y].map((code) => h.post('/auth/mfa/sign-in', { type: 'recovery_code', recovery_code: user.recoveryCodes[4], code }, project.client())),
    );
    expect(racing.map((r) => r.status).sort()).toEqual([200, 400]);
  });

  it('of one user do not work for another', async () => {
    const project = await h.createProject({ owner });
    const [u1, u2] = [await userWithMfa(project), await userWithMfa(project)];
    const attempt = await gatedPasswordSignIn(project, u2);
    expectKnownError(
      await h.post('/auth/mfa/sign-in', { type: 'recovery_code', recovery_code: u1.recoveryCodes[0], code: attempt }, project.client()),
      'INVALID_TOTP_CODE',
    );
  });
});

describe('totp_secret_base64 import', () => {
  it('a server-imported secret gates sign-in too', async () => {
    const project = await h.createProject({ owner });
    const user = await h.signUpUser(project);
    const secret = randomBytes(20).toString('base64');
    expect((await h.patch(`/users/${user.userId}`, { totp_secret_base64: secret }, project.server())).body.requires_totp_mfa).toBe(true);
    const attempt = await gatedPasswordSignIn(project, user);
    expect((await mfaSignIn(project, attempt, await totpCode(secret))).status).toBe(200);
    nextStep();
  });
});

describe('MFA turned off elsewhere', () => {
  it('by a PATCH of totp_secret_base64: null, takes its recovery codes along (a later import does not revive them)', async () => {
    const project = await h.createProject({ owner });
    const user = await userWithMfa(project);
    expect((await h.patch(`/users/${user.userId}`, { totp_secret_base64: null }, project.server())).body.requires_totp_mfa).toBe(false);
    expect((await h.post('/auth/password/sign-in', { email: user.email, password: user.password }, project.client())).status).toBe(200);
    const secret = randomBytes(20).toString('base64');
    await h.patch(`/users/${user.userId}`, { totp_secret_base64: secret }, project.server());
    expect((await h.get(`/users/${user.userId}/mfa`, project.server())).body).toMatchObject({ requires_totp_mfa: true, recovery_codes_total: 0 });
    const attempt = await gatedPasswordSignIn(project, user);
    expectKnownError(
      await h.post('/auth/mfa/sign-in', { type: 'recovery_code', recovery_code: user.recoveryCodes[0], code: attempt }, project.client()),
      'INVALID_TOTP_CODE',
    );
  });
});

/** The code in the link of the next email to `to`. */
const magicLinkCode = (project: ProjectFixture, to: string) =>
  codeMailedTo(h, project, to, () => h.post('/auth/otp/send-sign-in-code', { email: to, callback_url: CALLBACK }, project.client()));
