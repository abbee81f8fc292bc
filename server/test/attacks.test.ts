import { performance } from 'node:perf_hooks';
import { type CryptoKey, SignJWT, decodeJwt, decodeProtectedHeader, generateKeyPair, importJWK } from 'jose';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import {
  type AccessTokenClaims,
  Keyring,
  NO_USER_CLAIMS,
  TokenVerificationError,
  deriveProjectKey,
  deriveProjectScalar,
  kidFor,
  toLowS,
} from '../crypto/jwt.js';
import { DEFAULT_RATE_LIMITS } from '../env.js';
import { totpCode } from '../crypto/totp.js';
import { linkCodes, outboxTexts } from './outbox.js';
import { inviteFreshAddress, tenancyOf } from './team-fixtures.js';
import { type ApiResponse, type Harness, type OwnerSession, type ProjectFixture, type UserSession, startHarness } from './harness.js';

/**
 * Attacks on authentication (OWASP ASVS 5.0 chapters 6–7, NIST 800-63B), through real HTTP.
 * What other files already prove is not repeated:
 * - JWT: alg none, HS256 keyed with the public key, a foreign key under our kid, unknown and
 *   missing kid, tampered payload or signature, expired, missing claims, RS256
 *   (server/crypto/jwt.test.ts, server/domains/sessions/sessions.test.ts "access-token verification").
 * - Brute-force limits on sign-in, code checks and API-key checks, across instances:
 *   server/domains/rate-limits/rate-limits.test.ts.
 * - Codes single-use, expiring and attempt-limited: server/domains/verification/verification.test.ts;
 *   single use under a race: server/test/concurrency.test.ts.
 * - A client's own password change ends its other sessions: server/domains/auth/auth.test.ts;
 *   a reset by emailed code ends every session: server/domains/emails/emails.test.ts.
 * - Password reset answers alike (status and body) for known and unknown emails:
 *   server/domains/emails/emails.test.ts; here, that it also takes alike.
 * Sign-up is not in the enumeration tests: the spec answers a proven email with
 * USER_EMAIL_ALREADY_EXISTS 409, which names the account by status whatever the timing (such
 * answers are counted per IP before they are given: server/test/takeover.test.ts).
 * - Pre-account takeover (unproven addresses, proofs by code, API keys on sign-out everywhere):
 *   server/test/takeover.test.ts.
 * This server runs without brute-force limits, so the timing test can repeat one email freely.
 */

let h: Harness;
let owner: OwnerSession;

beforeAll(async () => {
  // No per-IP or per-recipient mail limit: the tests below ask for 40 magic links from one client
  // and 20 resets of one address (mail-abuse.test.ts tests those limits).
  h = await startHarness({
    rateLimits: { ...DEFAULT_RATE_LIMITS, signInPerEmail: 0, signInPerEmailIp: 0, signInPerIp: 0 },
    email: { perIpPerHour: 0, perRecipientPerHour: 0 },
  });
  owner = await h.signUpOwner();
});
afterAll(async () => h?.close());

/** Any callback URL the default project config allows, for invitations whose link is read from the outbox. */
const ACCEPT_URL = 'http://localhost:3000/accept';

const newProject = (config?: Record<string, unknown>): Promise<ProjectFixture> => h.createProject({ owner, ...(config ? { config } : {}) });
const signIn = (project: ProjectFixture, email: string, password: string) => h.post('/auth/password/sign-in', { email, password }, project.client());
const refresh = (project: ProjectFixture, refreshToken: string) =>
  h.post('/auth/sessions/current/refresh', {}, { ...project.client(), 'x-latch-refresh-token': refreshToken });
const me = (project: ProjectFixture, accessToken: string, extra: Record<string, string> = {}) =>
  h.get('/users/me', { ...project.client(accessToken), ...extra });

function expectKnownError(res: ApiResponse, code: string, status: number): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers.get('x-latch-known-error')).toBe(code);
}

async function tenancyId(projectId: string): Promise<string> {
  return (await tenancyOf(h, projectId)).id;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Everything a response says, minus what differs per request anyway (request id, date). */
function observable(res: ApiResponse) {
  const headers = [...res.headers.entries()].filter(([name]) => !['x-latch-request-id', 'date', 'content-length', 'etag'].includes(name)).sort();
  return { status: res.status, headers, body: res.body };
}

describe('no user enumeration on sign-in', () => {
  it('answers a wrong password, an unknown email and a user without a password identically (status, headers, body)', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const passwordless = h.uniqueEmail('nopassword');
    expect((await h.post('/users', { primary_email: passwordless, primary_email_auth_enabled: true }, project.server())).status).toBe(201);
    const wrongPassword = observable(await signIn(project, user.email, 'not-the-password'));
    const unknownEmail = observable(await signIn(project, h.uniqueEmail('nobody'), 'not-the-password'));
    const noPassword = observable(await signIn(project, passwordless, 'not-the-password'));
    expect(wrongPassword.body.code).toBe('EMAIL_PASSWORD_MISMATCH');
    expect(unknownEmail).toEqual(wrongPassword);
    expect(noPassword).toEqual(wrongPassword);
    // The message names neither the email nor which part was wrong.
    expect(JSON.stringify(wrongPassword.body)).not.toContain(user.email);
  });

  it('takes the same time for an existing and an unknown email (median of 30 interleaved attempts each, within 40%)', { timeout: 60_000 }, async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const [a, b] = await compareTimings(
      'sign-in',
      async (email) => {
        const res = await signIn(project, email, 'not-the-password');
        expect(res.body.code).toBe('EMAIL_PASSWORD_MISMATCH');
      },
      () => user.email,
      () => h.uniqueEmail('nobody'),
    );
    // Both paths verify a real argon2id hash: neither is a fast reject.
    expect(Math.min(a, b)).toBeGreaterThan(2);
  });
});

/**
 * Times `attempt` for an existing and an unknown account: warm-up, then `samples` interleaved
 * pairs, alternating which goes first so that drift in machine load hits both alike. Compares the
 * medians (robust to the outliers a loaded machine produces) and fails when they are more than
 * `tolerance` apart (relative to the faster). Returns the two medians.
 */
async function compareTimings(
  what: string,
  attempt: (email: string) => Promise<void>,
  existingEmail: () => string,
  unknownEmail: () => string,
  { samples = 30, tolerance = 0.4 } = {},
): Promise<[number, number]> {
  const timed = async (email: string) => {
    const started = performance.now();
    await attempt(email);
    return performance.now() - started;
  };
  // Warm-up: connections, JIT, the argon2 thread pool, the email renderer.
  for (let i = 0; i < 5; i++) await Promise.all([timed(existingEmail()), timed(unknownEmail())]);
  const existing: number[] = [];
  const unknown: number[] = [];
  for (let i = 0; i < samples; i++) {
    if (i % 2) {
      existing.push(await timed(existingEmail()));
      unknown.push(await timed(unknownEmail()));
    } else {
      unknown.push(await timed(unknownEmail()));
      existing.push(await timed(existingEmail()));
    }
  }
  const [a, b] = [median(existing), median(unknown)];
  const difference = Math.abs(a - b) / Math.min(a, b);
  console.info(`[timing] ${what} median: existing email ${a.toFixed(1)} ms, unknown email ${b.toFixed(1)} ms (${(difference * 100).toFixed(1)}% apart)`);
  expect(difference, `${what}: median existing ${a.toFixed(1)} ms, unknown ${b.toFixed(1)} ms`).toBeLessThan(tolerance);
  return [a, b];
}

describe('no user enumeration on password reset', () => {
  // Unpadded, the known address took 10.3 ms and the unknown 7.8 ms (median, PGlite): 32% apart,
  // which the sign-in tolerance of 40% would not even notice, hence 20% here.
  it(
    'takes the same time to answer for an existing and an unknown email (median of 20 interleaved requests each, within 20%)',
    { timeout: 60_000 },
    async () => {
      const project = await newProject();
      const user = await h.signUpUser(project);
      const callback = 'http://localhost:3000/handler/password-reset';
      const answers: unknown[] = [];
      await compareTimings(
        'password reset',
        async (email) => {
          const res = await h.post('/auth/password/send-reset-code', { email, callback_url: callback }, project.client());
          answers.push(observable(res));
        },
        () => user.email,
        () => h.uniqueEmail('nobody'),
        { samples: 20, tolerance: 0.2 },
      );
      // And the same answer every time (status, headers, body).
      expect(answers[0]).toMatchObject({ status: 200, body: { success: true } });
      for (const answer of answers) expect(answer).toEqual(answers[0]);
      // The known address really took the mailing path (so the comparison is between the two paths).
      const mailed = await h.latch.deps.db.selectFrom('email_outbox').select('id').where('to_email', '=', user.email).execute();
      expect(mailed.length).toBeGreaterThanOrEqual(20);
    },
  );
});

/** Re-signs a real token's claims (with changes) with the server's own current key. */
async function forge(token: string, changes: Partial<AccessTokenClaims>, ttlSeconds = 600): Promise<string> {
  const { iat: _iat, exp: _exp, ...rest } = decodeJwt(token);
  const claims = rest as Partial<AccessTokenClaims>;
  if (typeof claims.sub !== 'string' || typeof claims.aud !== 'string') throw new Error('not an access token');
  return h.latch.deps.keyring.current().sign({ ...(claims as Omit<AccessTokenClaims, 'iat' | 'exp'>), ...changes }, ttlSeconds);
}

describe('access tokens: what the JWT tests do not already cover', () => {
  it('refuses an anonymous audience on a non-anonymous token, and the reverse, even when anonymous users are allowed', async () => {
    const project = await newProject({ anonymous_enabled: true });
    const user = await h.signUpUser(project);
    const allowAnonymous = { 'x-latch-allow-anonymous-user': 'true' };
    // Sanity: the genuine token works, and a correctly re-signed copy too (so refusals below are about the audience).
    expect((await me(project, await forge(user.accessToken, {}))).status).toBe(200);
    for (const extra of [{}, allowAnonymous]) {
      expectKnownError(await me(project, await forge(user.accessToken, { aud: `${project.id}:anon` }), extra), 'UNPARSABLE_ACCESS_TOKEN', 401);
      expectKnownError(await me(project, await forge(user.accessToken, { is_anonymous: true }), extra), 'UNPARSABLE_ACCESS_TOKEN', 401);
    }
    const anonymous = await h.post('/auth/anonymous/sign-up', {}, project.client());
    expect(anonymous.status).toBe(200);
    expect((await me(project, anonymous.body.access_token, allowAnonymous)).status).toBe(200);
    expectKnownError(await me(project, await forge(anonymous.body.access_token, { aud: project.id }), allowAnonymous), 'UNPARSABLE_ACCESS_TOKEN', 401);
    expectKnownError(await me(project, await forge(anonymous.body.access_token, { is_anonymous: false }), allowAnonymous), 'UNPARSABLE_ACCESS_TOKEN', 401);
  });

  it("refuses another project's audience or another branch on a token of this project", async () => {
    const [project, other] = [await newProject(), await newProject()];
    const user = await h.signUpUser(project);
    expectKnownError(await me(project, await forge(user.accessToken, { aud: other.id })), 'UNPARSABLE_ACCESS_TOKEN', 401);
    expectKnownError(await me(project, await forge(user.accessToken, { aud: `${other.id}:anon` })), 'UNPARSABLE_ACCESS_TOKEN', 401);
    expectKnownError(await me(project, await forge(user.accessToken, { aud: '' })), 'UNPARSABLE_ACCESS_TOKEN', 401);
    expectKnownError(await me(project, await forge(user.accessToken, { branch_id: 'other-branch' })), 'INVALID_PROJECT_FOR_ACCESS_TOKEN', 401);
  });

  it('refuses a token signed by a foreign key with an expiry decades away, under our kid, another kid or none', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const { kid } = decodeProtectedHeader(user.accessToken);
    const { privateKey } = await generateKeyPair('ES256');
    const { iat: _iat, exp: _exp, ...claims } = decodeJwt(user.accessToken);
    const farFuture = Math.floor(Date.UTC(2100, 0, 1) / 1000);
    for (const header of [{ kid }, { kid: 'a-kid-of-nobody' }, {}]) {
      const token = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', typ: 'JWT', ...header })
        .setIssuedAt()
        .setExpirationTime(farFuture)
        .sign(privateKey);
      expectKnownError(await me(project, token), 'UNPARSABLE_ACCESS_TOKEN', 401);
      expectKnownError(
        await h.get('/internal/projects/current', { 'x-latch-project-id': project.id, 'x-latch-access-type': 'admin', 'x-latch-admin-access-token': token }),
        'UNPARSABLE_ADMIN_ACCESS_TOKEN',
        401,
      );
    }
  });

  it('verifies with the key its kid names, never another generation of the keyring (kid of another key)', async () => {
    const [older, newer] = [
      { generation: 1, seed: randomBytes(32), createdAt: new Date(Date.now() - 7_200_000) },
      { generation: 2, seed: randomBytes(32), createdAt: new Date() },
    ];
    const keyring = new Keyring([older, newer]);
    const claims: Omit<AccessTokenClaims, 'iat' | 'exp'> = {
      sub: 'u',
      iss: 'i',
      aud: 'p',
      project_id: 'p',
      branch_id: 'main',
      refresh_token_id: 'r',
      ...NO_USER_CLAIMS,
    };
    const signWith = async (gen: typeof older, kid: string) => {
      const jwk = { ...deriveProjectKey(gen.seed, 'p', gen.generation).publicJwk, d: deriveProjectScalar(gen.seed, 'p', gen.generation).toString('base64url') };
      const token = await new SignJWT({ ...claims })
        .setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT' })
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign((await importJWK(jwk, 'ES256')) as CryptoKey);
      const [h, p, s] = token.split('.') as [string, string, string];
      return `${h}.${p}.${toLowS(Buffer.from(s, 'base64url')).toString('base64url')}`;
    };
    // Each key verifies its own tokens...
    expect((await keyring.verify(await signWith(older, kidFor('p', 1)))).sub).toBe('u');
    expect((await keyring.verify(await signWith(newer, kidFor('p', 2)))).sub).toBe('u');
    // ...and a token signed by one key but naming the other is refused, both ways.
    for (const token of [await signWith(older, kidFor('p', 2)), await signWith(newer, kidFor('p', 1))]) {
      await expect(keyring.verify(token)).rejects.toBeInstanceOf(TokenVerificationError);
    }
  });
});

/** Bits of a random string: its length times log2 of the alphabet it draws from. */
function bitsOf(value: string, alphabetSize: number): number {
  return value.length * Math.log2(alphabetSize);
}

describe('entropy of codes and tokens', () => {
  it('refresh tokens: 40 samples over base64url, all 64 symbols in use, ≥ 128 bits each, all distinct', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const tokens = [user.refreshToken];
    for (let i = 0; i < 39; i++) {
      const created = await h.post('/auth/sessions', { user_id: user.userId }, project.server());
      expect(created.status).toBe(201);
      tokens.push(created.body.refresh_token);
    }
    const alphabet = new Set(tokens.join(''));
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    // The measured alphabet: every base64url symbol shows up (1520 characters drawn), so 6 bits each.
    expect(alphabet.size).toBe(64);
    for (const token of tokens) expect(bitsOf(token, alphabet.size)).toBeGreaterThanOrEqual(128);
    expect(Math.min(...tokens.map((t) => bitsOf(t, 64)))).toBeGreaterThanOrEqual(224);
    expect(new Set(tokens).size).toBe(tokens.length);
  });

  it('project keys and user/team API keys carry ≥ 128 random bits after their prefix', async () => {
    const project = await newProject({ allow_user_api_keys: true, allow_team_api_keys: true });
    const user = await h.signUpUser(project);
    const team = await h.post('/teams', { display_name: 'T' }, project.server());
    const userKey = await h.post('/user-api-keys', { user_id: user.userId, description: 'k' }, project.server());
    const teamKey = await h.post('/team-api-keys', { team_id: team.body.id, description: 'k' }, project.server());
    const secrets = [
      ...[project.publishableClientKey, project.secretServerKey, project.superSecretAdminKey].map((key) => key.replace(/^(pck|ssk|sak)_/, '')),
      // latch_<u|t><s|p>k_<38 random characters><6-character checksum>
      ...[userKey.body.value as string, teamKey.body.value as string].map((key) => key.replace(/^latch_[ut][sp]k_/, '').slice(0, -6)),
    ];
    for (const secret of secrets) {
      expect(secret).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(bitsOf(secret, 64)).toBeGreaterThanOrEqual(128);
    }
  });

  it('verification codes carry ≥ 20 bits (in fact ≥ 128: they are bearer links)', async () => {
    const project = await newProject();
    const team = await h.post('/teams', { display_name: 'T' }, project.server());
    for (let i = 0; i < 5; i++) expect((await inviteFreshAddress(h, project, team.body.id, ACCEPT_URL)).status).toBe(200);
    const codes = linkCodes(await outboxTexts(h, await tenancyId(project.id)));
    expect(codes).toHaveLength(5);
    for (const code of codes) {
      expect(code).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(bitsOf(code, 64)).toBeGreaterThanOrEqual(20);
      expect(bitsOf(code, 64)).toBeGreaterThanOrEqual(128);
    }
    expect(new Set(codes).size).toBe(codes.length);
  });
});

describe('entropy of one-time codes', () => {
  it('one-time sign-in codes carry ≥ 20 bits: 40 samples, their length times log2 of the symbols seen, all distinct', async () => {
    const project = await newProject({ magic_link_enabled: true });
    const nonces: string[] = [];
    for (let i = 0; i < 40; i++) {
      const sent = await h.post(
        '/auth/otp/send-sign-in-code',
        { email: h.uniqueEmail('otp'), callback_url: 'http://localhost:3000/handler/magic-link-callback' },
        project.client(),
      );
      expect(sent.status).toBe(200);
      nonces.push(sent.body.nonce);
    }
    const texts = await outboxTexts(h, await tenancyId(project.id));
    // The link's code is the short code the person types, then the nonce.
    const codes = nonces.map((nonce) => texts.map((text) => new RegExp(`[?&]code=([^&\\s]+)${nonce}`).exec(text)?.[1]).find(Boolean));
    for (const code of codes) expect(code).toMatch(/^\S+$/);
    const alphabet = new Set(codes.join(''));
    // 240 symbols drawn: a 32-symbol alphabet shows (nearly) all of its symbols, a numeric one at most 10.
    for (const code of codes) expect(bitsOf(code!, alphabet.size), `${code} over ${alphabet.size} symbols`).toBeGreaterThanOrEqual(20);
    expect(new Set(codes).size).toBe(codes.length);
  });
});

describe('the end of sessions', () => {
  it('deleting a user ends every session: refresh fails and the access token stops working', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const second = await signIn(project, user.email, user.password);
    expect((await h.del(`/users/${user.userId}`, project.server())).status).toBe(200);
    for (const token of [user.refreshToken, second.body.refresh_token])
      expectKnownError(await refresh(project, token), 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED', 401);
    for (const token of [user.accessToken, second.body.access_token]) expect((await me(project, token)).status).toBe(401);
  });

  it('a password set by the server ends every session: refresh fails and the access token stops working', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const second = await signIn(project, user.email, user.password);
    expect((await h.patch(`/users/${user.userId}`, { password: 'a-brand-new-password' }, project.server())).status).toBe(200);
    for (const token of [user.refreshToken, second.body.refresh_token])
      expectKnownError(await refresh(project, token), 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED', 401);
    for (const token of [user.accessToken, second.body.access_token]) expect((await me(project, token)).status).toBe(401);
    // Only the new password signs in.
    expectKnownError(await signIn(project, user.email, user.password), 'EMAIL_PASSWORD_MISMATCH', 400);
    expect((await signIn(project, user.email, 'a-brand-new-password')).status).toBe(200);
  });
});

describe('secrets at rest', () => {
  it('no plaintext secret the API handed out appears in any row of any table', async () => {
    const marker = Math.random().toString(36).slice(2);
    const oauthSecret = `oauth-client-secret-${marker}`;
    const smtpPassword = `smtp-password-${marker}`;
    const totpSecret = Buffer.from(`totp-secret-${marker}`).toString('base64');
    const project = await newProject({
      allow_user_api_keys: true,
      allow_team_api_keys: true,
      magic_link_enabled: true,
      oauth_providers: [{ id: 'github', enabled: true, type: 'standard', client_id: `client-id-${marker}`, client_secret: oauthSecret }],
      email_config: {
        type: 'standard',
        host: 'smtp.example.com',
        port: 587,
        username: 'mailer',
        password: smtpPassword,
        sender_name: 'Latch',
        sender_email: 'noreply@example.com',
      },
    });
    // Secrets are write-only: not even the admin view hands them back (issue 13 item 5).
    const config = await h.get('/internal/config', project.admin());
    expect(config.status).toBe(200);
    expect(JSON.stringify(config.body)).not.toContain(oauthSecret);
    expect(JSON.stringify(config.body)).not.toContain(smtpPassword);

    const password = `user-password-${marker}`;
    const user: UserSession = await h.signUpUser(project, { password });
    expect((await h.patch(`/users/${user.userId}`, { totp_secret_base64: totpSecret }, project.server())).status).toBe(200);
    // The TOTP secret turns MFA on: the password answers with an attempt code, the TOTP finishes.
    const gated = await signIn(project, user.email, password);
    expect(gated.body.code).toBe('MULTI_FACTOR_AUTHENTICATION_REQUIRED');
    const attemptCode: string = gated.body.details.attempt_code;
    const signedIn = await h.post('/auth/mfa/sign-in', { type: 'totp', totp: await totpCode(totpSecret), code: attemptCode }, project.client());
    const serverSession = await h.post('/auth/sessions', { user_id: user.userId }, project.server());
    const team = await h.post('/teams', { display_name: 'Secret team', creator_user_id: user.userId }, project.server());
    const userKey = await h.post('/user-api-keys', { user_id: user.userId, description: 'k' }, project.server());
    const teamKey = await h.post('/team-api-keys', { team_id: team.body.id, description: 'k' }, project.server());
    const keySet = await h.post(
      '/internal/api-keys',
      { description: 'more', has_publishable_client_key: true, has_secret_server_key: true, has_super_secret_admin_key: true },
      project.ownerAdmin(),
    );
    expect([signedIn.status, serverSession.status, userKey.status, teamKey.status, keySet.status]).toEqual([200, 201, 201, 201, 201]);
    expect((await inviteFreshAddress(h, project, team.body.id, ACCEPT_URL)).status).toBe(200);
    const invitationCode = linkCodes(await outboxTexts(h, await tenancyId(project.id)))[0];
    expect(invitationCode).toBeDefined();
    // A one-time sign-in code: the 6 characters a person types, which with the nonce the requester
    // holds sign in (so anyone who can read the table and ask for a code could sign in as anyone).
    const otpEmail = h.uniqueEmail('otp');
    const otpSent = await h.post(
      '/auth/otp/send-sign-in-code',
      { email: otpEmail, callback_url: 'http://localhost:3000/handler/magic-link-callback' },
      project.client(),
    );
    expect(otpSent.status).toBe(200);
    const otpText = (await outboxTexts(h, await tenancyId(project.id))).find((text) => text.includes(otpSent.body.nonce));
    const otp = otpText && /\?code=([A-HJ-NP-Z2-9]{6})/.exec(otpText)?.[1];
    expect(otp).toMatch(/^[A-HJ-NP-Z2-9]{6}$/);

    const secrets: Record<string, string> = {
      'user password': password,
      'sign-up refresh token': user.refreshToken,
      'sign-in refresh token': signedIn.body.refresh_token,
      'MFA attempt code': attemptCode,
      'server session refresh token': serverSession.body.refresh_token,
      'access token': signedIn.body.access_token,
      'publishable client key': project.publishableClientKey,
      'secret server key': project.secretServerKey,
      'super secret admin key': project.superSecretAdminKey,
      'second publishable client key': keySet.body.publishable_client_key,
      'second secret server key': keySet.body.secret_server_key,
      'second super secret admin key': keySet.body.super_secret_admin_key,
      'user API key': userKey.body.value,
      'team API key': teamKey.body.value,
      'OAuth client secret': oauthSecret,
      'SMTP password': smtpPassword,
      'TOTP secret': totpSecret,
      'TOTP secret (raw)': `totp-secret-${marker}`,
      'invitation code': invitationCode!,
    };
    for (const [name, value] of Object.entries(secrets)) expect(typeof value === 'string' && value.length >= 12, name).toBe(true);
    // Short, so it is looked for as a whole token (6 characters could occur by chance inside a long base64 run).
    secrets['one-time sign-in code'] = otp!;

    // Every table of the schema, every row, as JSON text.
    const db = h.latch.deps.db;
    const tables = await sql<{
      table_name: string;
    }>`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`.execute(db);
    expect(tables.rows.map((t) => t.table_name)).toEqual(
      expect.arrayContaining(['api_key_sets', 'sessions', 'users', 'user_team_api_keys', 'verification_codes', 'projects', 'signing_key_generations']),
    );
    const leaks: string[] = [];
    for (const { table_name: table } of tables.rows) {
      const rows = await sql<{ row: string }>`SELECT row_to_json(t)::text AS row FROM ${sql.table(table)} t`.execute(db);
      const text = rows.rows.map((r) => r.row).join('\n');
      for (const [name, value] of Object.entries(secrets)) {
        const found = value.length >= 12 ? text.includes(value) : new RegExp(`(?<![A-Za-z0-9_-])${value}(?![A-Za-z0-9_-])`).test(text);
        if (found) leaks.push(`${name} in ${table}`);
      }
    }
    expect(leaks).toEqual([]);

    // And the stored forms are the expected ones: argon2id, SHA-256 hex, AES-GCM envelopes.
    const tenancy = await tenancyId(project.id);
    const userRow = await db
      .selectFrom('users')
      .select(['password_hash', 'totp_secret_encrypted'])
      .where('tenancy_id', '=', tenancy)
      .where('id', '=', user.userId)
      .executeTakeFirstOrThrow();
    expect(userRow.password_hash).toMatch(/^\$argon2id\$/);
    expect(userRow.totp_secret_encrypted).toMatch(/^v1\./);
    for (const row of await db.selectFrom('sessions').select('refresh_token_hash').where('tenancy_id', '=', tenancy).execute())
      expect(row.refresh_token_hash).toMatch(/^[0-9a-f]{64}$/);
    for (const row of await db.selectFrom('signing_key_generations').select('seed_encrypted').execute()) expect(row.seed_encrypted).toMatch(/^v1\./);
    const projectRow = await db.selectFrom('projects').select('config').where('id', '=', project.id).executeTakeFirstOrThrow();
    const stored = projectRow.config as { oauth_providers?: { client_secret?: string }[]; email_config?: { password?: string } };
    expect(stored.oauth_providers?.[0]?.client_secret).toMatch(/^v1\./);
    expect(stored.email_config?.password).toMatch(/^v1\./);
  });
});
