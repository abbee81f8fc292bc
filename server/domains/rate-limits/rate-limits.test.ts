import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS, type RateLimitSettings } from '../../env.js';
import { KnownError } from '../../../contract/errors/known-error.js';
import { type RunningLatch, startLatch } from '../../start.js';
import { type ApiResponse, type Harness, type Headers_, type OwnerSession, type ProjectFixture, startHarness, useHarness } from '../../test/harness.js';
import { hitCountersInStages } from './queries.js';
import { type RateLimit, checkRateLimits, cleanUpExpiredCounters, consumeRateLimits, ipKey, recordRateLimits, refundRateLimits } from './service.js';

/**
 * Brute-force limits: the counter primitives against the real database, then each protected call
 * through real HTTP. The main server uses the default sign-in limits (10 per email and IP, so "the 11th
 * attempt" is literal) and small per-IP limits, so a test needs few argon2 verifications. Client
 * IPs other than 127.0.0.1 come from X-Forwarded-For, which the server trusts from loopback only.
 */

const LIMITS: RateLimitSettings = { ...DEFAULT_RATE_LIMITS, signInPerIp: 25, codeChecksPerIp: 5, apiKeyChecksPerIp: 5, emailProbesPerIp: 3 };
const PASSWORD = 'correct-horse-battery';
const IS_POSTGRES = process.env.LATCH_TEST_DB === 'postgres';

const h = useHarness({ rateLimits: LIMITS });
let owner: OwnerSession;
beforeAll(async () => {
  owner = await h.signUpOwner();
});

const newProject = (config?: Record<string, unknown>): Promise<ProjectFixture> => h.createProject({ owner, ...(config ? { config } : {}) });
const fromIp = (ip: string, headers: Headers_): Headers_ => ({ ...headers, 'x-forwarded-for': ip });
const signIn = (project: ProjectFixture, email: string, password: string, ip?: string, on: Harness = h) =>
  on.post('/auth/password/sign-in', { email, password }, ip ? fromIp(ip, project.client()) : project.client());

function expectKnownError(res: ApiResponse, code: string, status: number): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers.get('x-latch-known-error')).toBe(code);
}

/** RATE_LIMITED 429, with Retry-After equal to details.retry_after_seconds and within the window. */
function expectRateLimited(res: ApiResponse, windowSeconds = LIMITS.windowSeconds): void {
  expectKnownError(res, 'RATE_LIMITED', 429);
  const seconds = res.body.details.retry_after_seconds;
  expect(Number.isInteger(seconds)).toBe(true);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(windowSeconds);
  expect(res.headers.get('retry-after')).toBe(String(seconds));
}

async function rateLimited(run: () => Promise<unknown>): Promise<number | null> {
  try {
    await run();
    return null;
  } catch (error) {
    if (error instanceof KnownError && error.code === 'RATE_LIMITED') return (error.details as { retry_after_seconds: number }).retry_after_seconds;
    throw error;
  }
}

describe('ipKey', () => {
  it('keeps IPv4, unwraps IPv4-mapped IPv6, and counts IPv6 by its /64', () => {
    expect(ipKey('203.0.113.7')).toBe('203.0.113.7');
    expect(ipKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(ipKey('::FFFF:203.0.113.7')).toBe('203.0.113.7');
    expect(ipKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(ipKey('2001:db8:1:2::99')).toBe('2001:db8:1:2::/64');
    expect(ipKey('2001:0DB8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(ipKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(ipKey('::1')).toBe('0:0:0:0::/64');
    expect(ipKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(ipKey('64:ff9b::192.0.2.33')).toBe('64:ff9b:0:0::/64');
    // Two addresses of one /64 share a counter; neighbouring /64s do not.
    expect(ipKey('2001:db8:1:2::a')).toBe(ipKey('2001:db8:1:2:ffff::b'));
    expect(ipKey('2001:db8:1:2::a')).not.toBe(ipKey('2001:db8:1:3::a'));
    // Anything else is its own key (never throws).
    expect(ipKey('not an ip')).toBe('not an ip');
  });
});

describe('counters in the database', () => {
  const limit = (max: number, windowSeconds = 900): RateLimit => ({ bucket: 'test', key: randomUUID(), max, windowSeconds });
  const db = () => h.latch.deps.db;
  const row = (l: RateLimit) => db().selectFrom('rate_limits').selectAll().where('bucket', '=', l.bucket).where('key', '=', l.key).executeTakeFirst();

  it('allows max attempts per window, then refuses with the seconds left in the window', async () => {
    const l = limit(3, 600);
    for (let i = 0; i < 3; i++) expect(await rateLimited(() => consumeRateLimits(db(), [l]))).toBeNull();
    const retryAfter = await rateLimited(() => consumeRateLimits(db(), [l]));
    expect(retryAfter).toBeGreaterThan(590);
    expect(retryAfter).toBeLessThanOrEqual(600);
    expect((await row(l))?.count).toBe(4);
  });

  it('refunds, checks without counting, and records without judging', async () => {
    const l = limit(2);
    await consumeRateLimits(db(), [l]);
    await refundRateLimits(db(), [l]);
    expect((await row(l))?.count).toBe(0);
    await refundRateLimits(db(), [l]);
    expect((await row(l))?.count).toBe(0);
    await recordRateLimits(db(), [l]);
    expect(await rateLimited(() => checkRateLimits(db(), [l]))).toBeNull();
    await recordRateLimits(db(), [l]);
    expect(await rateLimited(() => checkRateLimits(db(), [l]))).not.toBeNull();
    expect((await row(l))?.count).toBe(2);
  });

  it('refuses when any of several limits is over, counting all of them in one statement', async () => {
    const [tight, loose] = [limit(1), limit(100)];
    await consumeRateLimits(db(), [tight, loose]);
    expect(await rateLimited(() => consumeRateLimits(db(), [loose, tight]))).not.toBeNull();
    expect([(await row(tight))?.count, (await row(loose))?.count]).toEqual([2, 2]);
  });

  it('counts stages in one statement, each only while every stage before it stays within its maximum', async () => {
    const [first, second, third] = [limit(1), limit(100), limit(100)];
    const stages = [[first], [second], [third]];
    const once = () => hitCountersInStages(db(), stages);
    expect((await once()).map((c) => [c.stage, c.count])).toEqual([
      [0, 1],
      [1, 1],
      [2, 1],
    ]);
    // The first stage goes past its maximum: the second is not counted, and neither is the third.
    expect((await once()).map((c) => [c.stage, c.count])).toEqual([[0, 2]]);
    expect([(await row(first))?.count, (await row(second))?.count, (await row(third))?.count]).toEqual([2, 1, 1]);
    // Empty stages (a limit switched off) are skipped, and the answer keeps the stages' numbers.
    const [x, y] = [limit(1), limit(100)];
    expect((await hitCountersInStages(db(), [[], [x], [], [y]])).map((c) => c.stage)).toEqual([1, 3]);
    expect((await hitCountersInStages(db(), [[], [x], [], [y]])).map((c) => [c.stage, c.count])).toEqual([[1, 2]]);
    // A concurrent burst counts each later stage at most as often as the first stage let through.
    const gate = limit(5);
    const after = limit(1000);
    await Promise.all(Array.from({ length: 30 }, () => hitCountersInStages(db(), [[gate], [after]])));
    expect([(await row(gate))?.count, (await row(after))?.count]).toEqual([30, 5]);
  });

  it('ignores limits with max 0 (switched off)', async () => {
    const off = limit(0);
    for (let i = 0; i < 5; i++) await consumeRateLimits(db(), [off]);
    expect(await row(off)).toBeUndefined();
  });

  it('never lets more than max of a concurrent burst through', async () => {
    const l = limit(10);
    const outcomes = await Promise.all(Array.from({ length: 60 }, () => rateLimited(() => consumeRateLimits(db(), [l]))));
    expect(outcomes.filter((o) => o === null)).toHaveLength(10);
    expect((await row(l))?.count).toBe(60);
  });

  it('starts a fresh window once the old one has ended, and the clean-up deletes only expired rows', async () => {
    const [short, long] = [limit(1, 1), limit(1, 900)];
    await consumeRateLimits(db(), [short, long]);
    expect(await rateLimited(() => consumeRateLimits(db(), [short]))).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await rateLimited(() => checkRateLimits(db(), [short]))).toBeNull();
    expect(await cleanUpExpiredCounters(db())).toBeGreaterThanOrEqual(1);
    expect(await row(short)).toBeUndefined();
    expect((await row(long))?.count).toBe(1);
    // The next hit starts at 1 (a new window), also had the row still been there.
    await consumeRateLimits(db(), [short]);
    expect((await row(short))?.count).toBe(1);
  });
});

describe('password sign-in', () => {
  it('refuses the 11th failed attempt for one email from one IP with 429, even with the right password; other IPs and emails are unaffected', async () => {
    const project = await newProject();
    const [victim, bystander] = [await h.signUpUser(project, { password: PASSWORD }), await h.signUpUser(project, { password: PASSWORD })];
    for (let i = 0; i < 10; i++)
      expectKnownError(await signIn(project, i % 2 ? victim.email : victim.email.toUpperCase(), `wrong-password-${i}`), 'EMAIL_PASSWORD_MISMATCH', 400);
    expectRateLimited(await signIn(project, victim.email, 'wrong-password-10'));
    expectRateLimited(await signIn(project, victim.email, PASSWORD));
    // From another IP the owner still signs in: one source locks the address out of itself only.
    expect((await signIn(project, victim.email, PASSWORD, '198.51.100.10')).status).toBe(200);
    expect((await signIn(project, bystander.email, PASSWORD)).status).toBe(200);
    expectKnownError(await signIn(project, bystander.email, 'wrong-password'), 'EMAIL_PASSWORD_MISMATCH', 400);
    // The same email in another project is another account.
    const other = await newProject();
    await h.signUpUser(other, { email: victim.email, password: PASSWORD });
    expect((await signIn(other, victim.email, PASSWORD)).status).toBe(200);
  });

  it('limits unknown emails exactly like existing ones (no enumeration through the limit)', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const unknown = h.uniqueEmail('nobody');
    const statuses = async (email: string) => {
      const out: number[] = [];
      for (let i = 0; i < 11; i++) out.push((await signIn(project, email, `wrong-password-${i}`)).status);
      return out;
    };
    expect(await statuses(user.email)).toEqual(await statuses(unknown));
  });

  it('does not count successful sign-ins', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    for (let i = 0; i < 9; i++) expectKnownError(await signIn(project, user.email, 'wrong-password'), 'EMAIL_PASSWORD_MISMATCH', 400);
    for (let i = 0; i < 5; i++) expect((await signIn(project, user.email, user.password)).status).toBe(200);
    expectKnownError(await signIn(project, user.email, 'wrong-password'), 'EMAIL_PASSWORD_MISMATCH', 400);
    expectRateLimited(await signIn(project, user.email, user.password));
  });

  it('holds against a concurrent burst: at most 10 of 40 parallel guesses are even tried', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => signIn(project, user.email, `wrong-password-${i}`)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 400)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30);
  });

  it('does not count refused attempts: a locked-out email does not use up the budget of its IP', async () => {
    const project = await newProject();
    const victim = await h.signUpUser(project);
    const bystander = await h.signUpUser(project);
    const office = '198.51.100.77';
    for (let i = 0; i < 10; i++) expectKnownError(await signIn(project, victim.email, `wrong-password-${i}`, office), 'EMAIL_PASSWORD_MISMATCH', 400);
    // Many more attempts on the locked email from the same IP: all refused, none counted.
    for (let i = 0; i < LIMITS.signInPerIp; i++) expectRateLimited(await signIn(project, victim.email, PASSWORD, office));
    expect((await signIn(project, bystander.email, bystander.password, office)).status).toBe(200);
    // (The bystander's own (email, IP) counter is back at 0 after its success; the hashing budget
    // counts only attempts that checked a password: 10 failures and the bystander.)
    const counts = await h.latch.deps.db
      .selectFrom('rate_limits')
      .select(['bucket', 'count'])
      .where('key', 'like', `%${office}`)
      .where('count', '>', 0)
      .orderBy('bucket')
      .execute();
    expect(counts).toEqual([
      { bucket: 'password_hash_ip', count: 11 },
      { bucket: 'sign_in_email_ip', count: 10 },
      { bucket: 'sign_in_ip', count: 10 },
    ]);
  });

  it('limits failures per client IP across many emails; other IPs are unaffected', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const attacker = '203.0.113.66';
    for (let i = 0; i < LIMITS.signInPerIp; i++)
      expectKnownError(await signIn(project, h.uniqueEmail('spray'), 'wrong-password', attacker), 'EMAIL_PASSWORD_MISMATCH', 400);
    expectRateLimited(await signIn(project, h.uniqueEmail('spray'), 'wrong-password', attacker));
    expectRateLimited(await signIn(project, user.email, user.password, attacker));
    expect((await signIn(project, user.email, user.password, '203.0.113.67')).status).toBe(200);
    // An IPv6 attacker cannot escape by moving within its /64.
    for (let i = 0; i < LIMITS.signInPerIp; i++) await signIn(project, h.uniqueEmail('spray6'), 'wrong-password', `2001:db8:66:1::${(i + 1).toString(16)}`);
    expectRateLimited(await signIn(project, user.email, user.password, '2001:db8:66:1:ffff::1'));
    expect((await signIn(project, user.email, user.password, '2001:db8:66:2::1')).status).toBe(200);
  });

  it('still limits per email and per IP when the per-(email, IP) limit is switched off (0)', async () => {
    const off = await startHarness({ rateLimits: { ...LIMITS, signInPerEmailIp: 0, signInPerEmail: 3, signInPerIp: 5 } });
    try {
      const project = await off.createProject();
      const user = await off.signUpUser(project);
      for (let i = 0; i < 3; i++)
        expectKnownError(await signIn(project, user.email, 'wrong-password', `198.51.100.${i + 1}`, off), 'EMAIL_PASSWORD_MISMATCH', 400);
      expectRateLimited(await signIn(project, user.email, user.password, '198.51.100.9', off));
      // Per IP: five unknown addresses from one source, then even a real account is refused from it.
      const other = await off.signUpUser(project);
      for (let i = 0; i < 5; i++) await signIn(project, off.uniqueEmail('spray'), 'wrong-password', '198.51.100.77', off);
      expectRateLimited(await signIn(project, other.email, other.password, '198.51.100.77', off));
      expect((await signIn(project, other.email, other.password, '198.51.100.78', off)).status).toBe(200);
    } finally {
      await off.close();
    }
  });

  it('lets the counters expire: after the window the right password works again', async () => {
    const short = await startHarness({ rateLimits: { ...LIMITS, windowSeconds: 2, signInPerEmailIp: 2 } });
    try {
      const project = await short.createProject();
      const user = await short.signUpUser(project);
      for (let i = 0; i < 2; i++) expectKnownError(await signIn(project, user.email, 'wrong-password', undefined, short), 'EMAIL_PASSWORD_MISMATCH', 400);
      const limited = await signIn(project, user.email, user.password, undefined, short);
      expectRateLimited(limited, 2);
      await new Promise((resolve) => setTimeout(resolve, limited.body.details.retry_after_seconds * 1000 + 200));
      expect((await signIn(project, user.email, user.password, undefined, short)).status).toBe(200);
    } finally {
      await short.close();
    }
  });

  it.skipIf(!IS_POSTGRES)(
    'is shared by every instance on one PostgreSQL database (skipped on PGlite: an in-process database cannot be opened by a second server)',
    async () => {
      // A second server on the same database and secret: another instance of the same deployment.
      const second: RunningLatch = await startLatch({ env: h.latch.deps.env, database: h.database, quiet: true });
      try {
        const project = await newProject();
        const user = await h.signUpUser(project);
        const secondUrl = (path: string) => `${second.url}/api/v1${path}`;
        // Interleaved between the two instances: 10 failures in all.
        for (let i = 0; i < 10; i++) {
          const res = await h.call(i % 2 ? secondUrl('/auth/password/sign-in') : '/auth/password/sign-in', {
            body: { email: user.email, password: 'wrong-password' },
            headers: project.client(),
          });
          expectKnownError(res, 'EMAIL_PASSWORD_MISMATCH', 400);
        }
        expectRateLimited(
          await h.call(secondUrl('/auth/password/sign-in'), { body: { email: user.email, password: user.password }, headers: project.client() }),
        );
        expectRateLimited(await signIn(project, user.email, user.password));
      } finally {
        await second.close();
      }
    },
  );
});

describe('verification-code checks', () => {
  it('limits code checks per IP; the count survives the rolled-back failed check', async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const ip = '198.51.100.20';
    const routes = ['/team-invitations/accept/check-code', '/team-invitations/accept/details', '/team-invitations/accept'];
    for (let i = 0; i < LIMITS.codeChecksPerIp; i++) {
      expectKnownError(await h.post(routes[i % 3]!, { code: `guess-${i}` }, fromIp(ip, project.client(user.accessToken))), 'CODE_NOT_FOUND', 404);
    }
    for (const route of routes) expectRateLimited(await h.post(route, { code: 'guess-next' }, fromIp(ip, project.client(user.accessToken))));
    expectKnownError(await h.post(routes[0]!, { code: 'guess-other-ip' }, fromIp('198.51.100.21', project.client(user.accessToken))), 'CODE_NOT_FOUND', 404);
  });
});

describe('every operation that takes a code (from openapi.json, so a new one is covered the day it is added)', () => {
  const openapi = JSON.parse(readFileSync(new URL('../../../openapi.json', import.meta.url), 'utf8')) as {
    paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> } }>>;
  };
  const codeOperations = Object.entries(openapi.paths).flatMap(([path, item]) =>
    Object.entries(item).flatMap(([method, op]) => {
      const properties = Object.values(op.requestBody?.content ?? {})[0]?.schema.properties ?? {};
      return 'code' in properties ? [{ method: method.toUpperCase(), path, takesPassword: 'password' in properties }] : [];
    }),
  );

  it('finds the code operations (not vacuous)', () => {
    expect(codeOperations.map((op) => op.path)).toEqual(
      expect.arrayContaining(['/auth/password/reset', '/auth/otp/sign-in', '/contact-channels/verify', '/team-invitations/accept']),
    );
  });

  it.each(codeOperations)('$method $path: wrong codes are limited per IP, other IPs unaffected', async ({ method, path, takesPassword }) => {
    const project = await newProject({ magic_link_enabled: true, passkey_enabled: true });
    const user = await h.signUpUser(project);
    // The other fields such an operation takes are valid (or well formed), so only the code is wrong.
    const others: Record<string, Record<string, unknown>> = {
      '/auth/oauth/token': {
        grant_type: 'authorization_code',
        code_verifier: 'v'.repeat(43),
        redirect_uri: 'http://localhost:3000/handler/oauth-callback',
        client_id: project.id,
        client_secret: project.publishableClientKey,
      },
      '/auth/passkey/register': {
        credential: { id: 'AAAA', rawId: 'AAAA', type: 'public-key', response: { clientDataJSON: 'AAAA', attestationObject: 'AAAA' } },
      },
      '/auth/passkey/sign-in': {
        authentication_response: {
          id: 'AAAA',
          rawId: 'AAAA',
          type: 'public-key',
          response: { clientDataJSON: 'AAAA', authenticatorData: 'AAAA', signature: 'AAAA' },
        },
      },
    };
    const body = (i: number) => ({ code: `guess-${i}`, ...(takesPassword ? { password: 'a-brand-new-password' } : {}), ...others[path] });
    const guess = (i: number, ip: string) => h.call(path, { method, body: body(i), headers: fromIp(ip, project.client(user.accessToken)) });
    const ip = `198.51.100.${50 + codeOperations.findIndex((op) => op.path === path)}`;
    for (let i = 0; i < LIMITS.codeChecksPerIp; i++) {
      const res = await guess(i, ip);
      expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(400);
      expect(res.body.code).not.toBe('RATE_LIMITED');
    }
    expectRateLimited(await guess(LIMITS.codeChecksPerIp, ip));
    expect((await guess(0, '203.0.113.99')).body.code).not.toBe('RATE_LIMITED');
  });
});

describe('API-key checks', () => {
  it('limits keys not found per calling IP; successful checks do not count', async () => {
    const project = await newProject({ allow_user_api_keys: true });
    const user = await h.signUpUser(project);
    const key = await h.post('/user-api-keys', { user_id: user.userId, description: 'k' }, project.server());
    expect(key.status).toBe(201);
    const ip = '198.51.100.30';
    const check = (apiKey: string, from = ip) => h.post('/user-api-keys/check', { api_key: apiKey }, fromIp(from, project.server()));
    for (let i = 0; i < 3 * LIMITS.apiKeyChecksPerIp; i++) expect((await check(key.body.value)).status).toBe(200);
    const forged = `${key.body.value.slice(0, -10)}AAAAAAAAAA`;
    for (let i = 0; i < LIMITS.apiKeyChecksPerIp; i++) expectKnownError(await check(i % 2 ? forged : 'garbage'), 'API_KEY_NOT_FOUND', 404);
    expectRateLimited(await check(key.body.value));
    expect((await check(key.body.value, '198.51.100.31')).status).toBe(200);
  });
});

describe('across instances: code checks and API-key checks', () => {
  it.skipIf(!IS_POSTGRES)(
    'counts code checks and API keys not found on one budget for every instance on one PostgreSQL database (skipped on PGlite, as above)',
    async () => {
      const second: RunningLatch = await startLatch({ env: h.latch.deps.env, database: h.database, quiet: true });
      try {
        const project = await newProject({ allow_user_api_keys: true });
        const user = await h.signUpUser(project);
        const key = await h.post('/user-api-keys', { user_id: user.userId, description: 'k' }, project.server());
        expect(key.status).toBe(201);
        // Request i goes to the first instance when even, to the second when odd.
        const on = (i: number, path: string) => (i % 2 ? `${second.url}/api/v1${path}` : path);

        const codeIp = '198.51.100.40';
        const guess = (i: number) =>
          h.call(on(i, '/team-invitations/accept/check-code'), { body: { code: `guess-${i}` }, headers: fromIp(codeIp, project.client(user.accessToken)) });
        // The budget is spent half on each instance; were counters per instance, neither would be over.
        for (let i = 0; i < LIMITS.codeChecksPerIp; i++) expectKnownError(await guess(i), 'CODE_NOT_FOUND', 404);
        for (const i of [0, 1]) expectRateLimited(await guess(i));

        const keyIp = '198.51.100.41';
        const check = (i: number, apiKey: string) =>
          h.call(on(i, '/user-api-keys/check'), { body: { api_key: apiKey }, headers: fromIp(keyIp, project.server()) });
        expect((await check(1, key.body.value)).status).toBe(200);
        for (let i = 0; i < LIMITS.apiKeyChecksPerIp; i++) expectKnownError(await check(i, `garbage-${i}`), 'API_KEY_NOT_FOUND', 404);
        for (const i of [0, 1]) expectRateLimited(await check(i, key.body.value));

        // The counters are rows of the shared database, not memory of either process.
        const rows = await h.latch.deps.db
          .selectFrom('rate_limits')
          .select(['bucket', 'count'])
          .where((eb) => eb.or([eb('key', 'like', `%:${codeIp}`), eb('key', 'like', `%:${keyIp}`)]))
          .orderBy('bucket')
          .execute();
        expect(rows).toEqual([
          { bucket: 'api_key_check_ip', count: LIMITS.apiKeyChecksPerIp },
          { bucket: 'code_check_ip', count: LIMITS.codeChecksPerIp + 2 },
        ]);
      } finally {
        await second.close();
      }
    },
  );
});

describe('answers that reveal an account (sign-up 409, magic link SIGN_UP_NOT_ENABLED)', () => {
  const signUp = (project: ProjectFixture, email: string, ip: string) =>
    h.post('/auth/password/sign-up', { email, password: PASSWORD }, fromIp(ip, project.client()));
  const sendCode = (project: ProjectFixture, email: string, ip: string) =>
    h.post('/auth/otp/send-sign-in-code', { email, callback_url: 'http://localhost:3000/handler/magic-link-callback' }, fromIp(ip, project.client()));

  it('counts only duplicate-email sign-ups per IP, and past the limit refuses every sign-up from that IP', async () => {
    const project = await newProject();
    const ip = '198.51.100.41';
    const taken = h.uniqueEmail('taken');
    // Only a proven address refuses a sign-up (an unverified claim never blocks one).
    expect((await h.post('/users', { primary_email: taken, primary_email_verified: true, primary_email_auth_enabled: true }, project.server())).status).toBe(
      201,
    );
    // New addresses never count: more of them than the limit all succeed.
    for (let i = 0; i < LIMITS.emailProbesPerIp + 1; i++) expect((await signUp(project, h.uniqueEmail('fresh'), ip)).status).toBe(200);
    for (let i = 0; i < LIMITS.emailProbesPerIp; i++) expectKnownError(await signUp(project, taken, ip), 'USER_EMAIL_ALREADY_EXISTS', 409);
    expectRateLimited(await signUp(project, taken, ip));
    // Refused before the lookup: a new address from that IP now gets the same answer as a taken one.
    expectRateLimited(await signUp(project, h.uniqueEmail('fresh'), ip));
    // Another IP, or the same IP on another project, keeps its own budget.
    expectKnownError(await signUp(project, taken, '198.51.100.42'), 'USER_EMAIL_ALREADY_EXISTS', 409);
    expect((await signUp(await newProject(), taken, ip)).status).toBe(200);
    // An unverified claim on an address reveals nothing: a second sign-up with it just succeeds.
    const claimed = h.uniqueEmail('claimed');
    expect((await signUp(project, claimed, '198.51.100.44')).status).toBe(200);
    expect((await signUp(project, claimed, '198.51.100.44')).status).toBe(200);
  });

  it('counts magic-link requests for unknown addresses when sign-up is off, and never known ones', async () => {
    const project = await newProject({ magic_link_enabled: true });
    const ip = '198.51.100.43';
    const known = h.uniqueEmail('known');
    expect((await signUp(project, known, ip)).status).toBe(200);
    await h.patch('/internal/projects/current', { config: { sign_up_enabled: false } }, project.admin());
    for (let i = 0; i < LIMITS.emailProbesPerIp + 1; i++) expect((await sendCode(project, known, ip)).status).toBe(200);
    for (let i = 0; i < LIMITS.emailProbesPerIp; i++) expectKnownError(await sendCode(project, h.uniqueEmail('unknown'), ip), 'SIGN_UP_NOT_ENABLED', 400);
    expectRateLimited(await sendCode(project, h.uniqueEmail('unknown'), ip));
    expectRateLimited(await sendCode(project, known, ip));
  });
});
