import { spawn } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS } from '../env.js';
import { type ApiResponse, type Headers_, type OwnerSession, type ProjectFixture, useHarness } from './harness.js';

/**
 * Password hashing is shared fairly (issue 13, item 3): a flood of sign-ups on one project gets
 * RATE_LIMITED quickly once its own queue is full, and another project's sign-ins keep their
 * pace; every call that hashes a password counts per client IP; a tRPC batch cannot carry more
 * than 10 calls, and each call of it counts on its own. Client IPs come from X-Forwarded-For,
 * which the harness trusts from loopback.
 */

const SIGN_UPS_PER_IP = 5;
const HASHES_PER_IP = 5;

const h = useHarness({
  rateLimits: { ...DEFAULT_RATE_LIMITS, signUpsPerIp: SIGN_UPS_PER_IP, passwordHashesPerIp: HASHES_PER_IP },
  passwordHashConcurrency: 2,
  // One call per project under way: the flood fills it at once, and A never holds both hashing
  // slots. (The default, 64, admits more of a burst; then B waits for at most one of A's jobs.)
  // On PGlite the database shares the event loop, so each admitted call of A also costs B time
  // there: this bound is what caps it on a machine as loaded as a shared CI runner.
  passwordHashQueuePerProject: 1,
});
let owner: OwnerSession;
beforeAll(async () => {
  // One owner for every project here: owner sign-ups count against the internal project's limits.
  owner = await h.signUpOwner();
});

let ipCounter = 0;
/** A fresh client IP (TEST-NET-2 / TEST-NET-3 and beyond), so one test's counts never touch another's. */
function freshIp(): string {
  ipCounter++;
  return `198.${18 + Math.floor(ipCounter / 65536)}.${Math.floor(ipCounter / 256) % 256}.${ipCounter % 256}`;
}
const fromIp = (ip: string, headers: Headers_): Headers_ => ({ ...headers, 'x-forwarded-for': ip });

function expectRateLimited(res: ApiResponse): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status: 429, code: 'RATE_LIMITED' });
  expect(res.headers.get('x-latch-known-error')).toBe('RATE_LIMITED');
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
}

interface FloodAnswer {
  status: number;
  code: string | null;
  retryAfter: string | null;
  /** When the answer arrived (epoch ms). */
  at: number;
}

/**
 * A sign-up flood from a child process: `count` senders at once, each sign-up from its own
 * X-Forwarded-For IP, each sender sending again as soon as it is answered (after a refusal, once
 * its Retry-After has passed, at most 1 s), until `stop()`; then resolves with every answer. A
 * child, so that the flood's client side neither shares the server's event loop nor queues B's
 * requests behind A's in one HTTP client. It lasts until stopped: a one-shot burst that is refused
 * quickly could be over before B's measured sign-ins began (seen on PostgreSQL).
 */
function floodSignUps(url: string, headers: Headers_, count: number, ipPrefix: string): { stop: () => void; answers: Promise<FloodAnswer[]> } {
  const script = `
    const http = require('node:http');
    const [url, headersJson, count, prefix] = process.argv.slice(1);
    const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
    let sent = 0;
    let stopped = false;
    process.stdin.on('data', () => {});
    process.stdin.on('end', () => (stopped = true));
    setTimeout(() => (stopped = true), 120000).unref();
    const one = () => new Promise((resolve) => {
      const n = sent++;
      const body = JSON.stringify({ email: 'flood-' + n + '-' + Date.now() + '@flood.example', password: 'flood-password-1' });
      const headers = { ...JSON.parse(headersJson), 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-forwarded-for': prefix + '.' + (Math.floor(n / 256) % 256) + '.' + (n % 256) };
      const req = http.request(url, { method: 'POST', headers, agent }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => { let code = null; try { code = JSON.parse(text).code ?? null; } catch {} resolve({ status: res.statusCode, code, retryAfter: res.headers['retry-after'] ?? null, at: Date.now() }); });
      });
      req.on('error', (e) => resolve({ status: 0, code: String(e), retryAfter: null, at: Date.now() }));
      req.end(body);
    });
    const sender = async () => {
      const answers = [];
      do {
        const answer = await one();
        answers.push(answer);
        if (answer.status === 429) await new Promise((r) => setTimeout(r, Math.min(1000, 1000 * Number(answer.retryAfter ?? 1))));
      } while (!stopped);
      return answers;
    };
    Promise.all(Array.from({ length: Number(count) }, sender)).then((r) => process.stdout.write(JSON.stringify(r.flat())));
  `;
  const sent: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) if (value !== undefined) sent[key] = value;
  const child = spawn(process.execPath, ['-e', script, url, JSON.stringify(sent), String(count), ipPrefix], { stdio: ['pipe', 'pipe', 'inherit'] });
  const answers = new Promise<FloodAnswer[]>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', () => {
      try {
        resolve(JSON.parse(out) as FloodAnswer[]);
      } catch (error) {
        reject(error);
      }
    });
  });
  return { stop: () => child.stdin!.end(), answers };
}

/** Nearest-rank percentile. */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

describe('a sign-up flood on one project', () => {
  it("leaves another project's sign-in p95 under 1 s (or 4× its own pace on a loaded machine), and the flood's excess gets RATE_LIMITED fast", async () => {
    const [a, b] = await Promise.all([h.createProject({ owner }), h.createProject({ owner })]);
    const bUser = await h.signUpUser(b);
    const signInB = () => h.post('/auth/password/sign-in', { email: bUser.email, password: bUser.password }, fromIp(freshIp(), b.client()));
    // B's own pace first, without the flood: on a machine shared with other work (a CI runner, a
    // laptop), a sign-in's argon2id alone can take hundreds of milliseconds.
    const alone: number[] = [];
    for (let i = 0; i < 10; i++) {
      const started = performance.now();
      expect((await signInB()).status).toBe(200);
      alone.push(performance.now() - started);
    }

    // 300 senders of sign-ups on A, each sign-up from its own IP: no per-IP limit stands in for fairness.
    const flood = floodSignUps(`${h.url}/api/v1/auth/password/sign-up`, a.client(), 300, '10.77');
    // Let the flood's connections land first.
    await new Promise((resolve) => setTimeout(resolve, 300));

    // B signs in, one call after another, 20 times while the flood goes on.
    const bMillis: number[] = [];
    const window = { from: Date.now(), to: 0 };
    while (bMillis.length < 20) {
      const started = performance.now();
      const res = await signInB();
      bMillis.push(performance.now() - started);
      expect(res.status).toBe(200);
    }
    window.to = Date.now();
    flood.stop();
    const results = await flood.answers;

    // The flood really competed with B (answered all through B's sign-ins), and was partly served,
    // partly refused at once.
    const during = results.filter((r) => r.at >= window.from && r.at <= window.to);
    expect(during.length, `flood answers during B's ${window.to - window.from} ms`).toBeGreaterThanOrEqual(3);
    expect(results.some((r) => r.at > window.to - (window.to - window.from) / 4)).toBe(true);
    const statuses = results.map((r) => r.status);
    expect(
      statuses.every((s) => s === 200 || s === 429),
      JSON.stringify([...new Set(statuses)]),
    ).toBe(true);
    const refused = results.filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(r.code).toBe('RATE_LIMITED');
      expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
    }

    // Under 1 s (the bound) on a machine with cores to spare. On one so loaded that B alone
    // is slow, the bound scales with B's own pace: without fairness B waited for A's whole queue
    // (28 s in the report), far beyond either. Read at the 95th percentile of 20 (all but the
    // slowest one): in the full suite, beside other test files, one sign-in in ten now and then
    // met a 1.5 s stall of the shared machine (the other nine 64-382 ms), which is no queue.
    const bound = Math.max(1000, 4 * percentile(alone, 99));
    expect(
      percentile(bMillis, 95),
      `B's sign-ins during the flood (ms): ${bMillis.map(Math.round).join(', ')}; alone: ${alone.map(Math.round).join(', ')}`,
    ).toBeLessThan(bound);
  }, 180_000);
});

describe('per-IP limits on every call that hashes a password', () => {
  it('sign-up, sign-in, password update, password set and server create with a password share one per-IP budget', async () => {
    const project = await h.createProject({ owner });
    const ip = freshIp();
    const signUp = await h.post('/auth/password/sign-up', { email: h.uniqueEmail(), password: 'first-password-1' }, fromIp(ip, project.client()));
    expect(signUp.status).toBe(200);
    const email = (await h.get('/users/me', project.client(signUp.body.access_token))).body.primary_email as string;
    const signIn = await h.post('/auth/password/sign-in', { email, password: 'first-password-1' }, fromIp(ip, project.client()));
    expect(signIn.status).toBe(200);
    const update = await h.post(
      '/auth/password/update',
      { old_password: 'first-password-1', new_password: 'second-password-2' },
      fromIp(ip, project.client(signIn.body.access_token)),
    );
    expect(update.status).toBe(200);
    const created = await h.post('/users', { primary_email: h.uniqueEmail(), password: 'server-password-1' }, fromIp(ip, project.server()));
    expect(created.status).toBe(201);
    // A user without a password (made by the server) sets one.
    const bare = await h.post('/users', { primary_email: h.uniqueEmail() }, project.server());
    const session = await h.post('/auth/sessions', { user_id: bare.body.id }, project.server());
    const set = await h.post('/auth/password/set', { password: 'third-password-3' }, fromIp(ip, project.client(session.body.access_token)));
    expect(set.status).toBe(200);
    // Five calls: the budget is spent, whichever call comes next.
    expectRateLimited(await h.post('/auth/password/sign-in', { email, password: 'second-password-2' }, fromIp(ip, project.client())));
    expectRateLimited(await h.post('/users', { primary_email: h.uniqueEmail(), password: 'server-password-1' }, fromIp(ip, project.server())));
    // Another IP is not affected.
    expect((await h.post('/auth/password/sign-in', { email, password: 'second-password-2' }, fromIp(freshIp(), project.client()))).status).toBe(200);
  }, 60_000);

  it('anonymous sign-ups are limited per IP too', async () => {
    const project = await h.createProject({ owner, config: { anonymous_enabled: true } });
    const ip = freshIp();
    for (let i = 0; i < SIGN_UPS_PER_IP; i++) {
      expect((await h.post('/auth/anonymous/sign-up', {}, fromIp(ip, project.client()))).status).toBe(200);
    }
    expectRateLimited(await h.post('/auth/anonymous/sign-up', {}, fromIp(ip, project.client())));
    expect((await h.post('/auth/anonymous/sign-up', {}, fromIp(freshIp(), project.client()))).status).toBe(200);
  });
});

describe('tRPC batches', () => {
  const signUpBatch = (project: ProjectFixture, count: number, ip: string) => {
    const paths = Array.from({ length: count }, () => 'auth.passwordSignUp').join(',');
    const body = Object.fromEntries(Array.from({ length: count }, (_, i) => [String(i), { email: h.uniqueEmail(`batch${i}`), password: 'batch-password-1' }]));
    return h.call(`/api/trpc/${paths}?batch=1`, { method: 'POST', body, headers: fromIp(ip, project.client()) });
  };
  const userCount = async (project: ProjectFixture) =>
    ((await h.get('/users?limit=200&include_anonymous=true', project.server())).body.items as unknown[]).length;

  it('of more than 10 calls are refused whole with SCHEMA_ERROR before any call runs', async () => {
    const project = await h.createProject({ owner });
    const res = await signUpBatch(project, 50, freshIp());
    expect(res.status).toBe(400);
    const body = JSON.stringify(res.body);
    expect(body).toContain('SCHEMA_ERROR');
    expect(body).toMatch(/[Bb]atch/);
    expect(await userCount(project)).toBe(0);
  });

  it('count each call against the limits on its own', async () => {
    // Anonymous sign-ups: counted per IP like password ones, without the hashing admission (whose
    // bound of 1 here would refuse most of a parallel batch before the per-IP count).
    const project = await h.createProject({ owner, config: { anonymous_enabled: true } });
    const paths = Array.from({ length: 10 }, () => 'auth.anonymousSignUp').join(',');
    const body = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [String(i), {}]));
    const res = await h.call(`/api/trpc/${paths}?batch=1`, { method: 'POST', body, headers: fromIp(freshIp(), project.client()) });
    const items = res.body as { result?: unknown; error?: { data?: { latch?: { code?: string } } } }[];
    expect(Array.isArray(items)).toBe(true);
    expect(items).toHaveLength(10);
    const codes = items.map((item) => (item.result ? 'ok' : item.error?.data?.latch?.code));
    expect(codes.filter((c) => c === 'ok')).toHaveLength(SIGN_UPS_PER_IP);
    expect(codes.filter((c) => c === 'RATE_LIMITED')).toHaveLength(10 - SIGN_UPS_PER_IP);
    // Some calls went through: the batch must not be repeated whole, so no Retry-After.
    expect(res.headers.get('retry-after')).toBeNull();

    // Every call refused: the batch says how long to wait before sending it again.
    const ip = freshIp();
    const first = await h.call(`/api/trpc/${paths}?batch=1`, { method: 'POST', body, headers: fromIp(ip, project.client()) });
    expect((first.body as unknown[]).length).toBe(10);
    const refused = await h.call(`/api/trpc/${paths}?batch=1`, { method: 'POST', body, headers: fromIp(ip, project.client()) });
    const refusedCodes = (refused.body as { error?: { data?: { latch?: { code?: string } } } }[]).map((item) => item.error?.data?.latch?.code);
    expect(refusedCodes).toEqual(Array.from({ length: 10 }, () => 'RATE_LIMITED'));
    expect(refused.headers.get('x-latch-known-error')).toBe(refusedCodes.join(','));
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});
