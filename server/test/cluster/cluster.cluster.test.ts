import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cleanups, type Project, call, setUpProject, sleep } from '../child-server.js';
import { type Cluster, startCluster } from './cluster.js';
import { Load, type LoadReport, describeLoad } from './load.js';

/**
 * `npm run test:cluster` (issue 21): three Latch instances behind HAProxy, on one PostgreSQL behind
 * PgBouncer in transaction mode (cluster.ts). Cross-instance correctness with measured propagation
 * times, then faults under a steady load: kill -9 of an instance, PgBouncer restarted, and
 * PostgreSQL restarted (only with LATCH_CLUSTER_RESTART_PG=1: it restarts the machine's shared
 * PostgreSQL). Every figure is printed as one `[cluster]` line.
 */

const cleanups: Cleanups = [];
let cluster: Cluster;
let project: Project;
/** Recipients of the verification emails whose sign-up the loads saw acknowledged. */
const mailedAcknowledged: string[] = [];

beforeAll(async () => {
  cluster = await startCluster(cleanups, {
    LATCH_EMAIL_RATE_LIMIT_PER_HOUR: '0',
    LATCH_EMAIL_RATE_LIMIT_PER_IP: '0',
    LATCH_EMAIL_RATE_LIMIT_PER_RECIPIENT: '0',
    LATCH_EMAIL_POLL_INTERVAL_MS: '200',
    LATCH_RATE_LIMIT_SIGN_IN_PER_EMAIL_IP: '5',
  });
  project = await setUpProject(cluster.url, 'Cluster');
}, 240_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** Calls `probe` until it says true; the milliseconds it took (or throws past `limitMs`). */
async function timeUntil(limitMs: number, probe: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await probe()) return Math.round(performance.now() - started);
    if (performance.now() - started > limitMs) throw new Error(`not seen within ${limitMs} ms`);
    await sleep(10);
  }
}

/** The bound the docs state: milliseconds with a listener, the cache TTL (5 s) plus a probe's time without. */
const WITH_LISTENER_MS = 1_000;
const WITHOUT_LISTENER_MS = 5_500;

describe('correctness across instances', () => {
  it('a key revoked on instance 1 is refused by 2 (notified) and 3 (cache expiry) within the bound', async () => {
    const [one, two, three] = cluster.instances.map((instance) => instance.url) as [string, string, string];
    const keys = await call(one, '/internal/api-keys', {
      headers: project.admin(),
      body: { description: 'to revoke', has_publishable_client_key: true, has_secret_server_key: false, has_super_secret_admin_key: false },
    });
    expect(keys.status).toBe(201);
    const headers = { 'x-latch-project-id': project.id, 'x-latch-access-type': 'client', 'x-latch-publishable-client-key': keys.body.publishable_client_key };
    // Warm every instance's cache with the key.
    for (const base of [one, two, three]) expect((await call(base, '/projects/current', { headers })).status).toBe(200);
    const revoked = await call(one, `/internal/api-keys/${keys.body.id}`, { method: 'PATCH', headers: project.admin(), body: { revoked: true } });
    expect(revoked.status).toBe(200);
    const refused = (base: string) => async () => (await call(base, '/projects/current', { headers })).status === 401;
    const [onTwo, onThree] = await Promise.all([timeUntil(WITH_LISTENER_MS, refused(two)), timeUntil(WITHOUT_LISTENER_MS, refused(three))]);
    expect(await refused(one)()).toBe(true);
    console.info(`[cluster] key revocation seen by instance 2 (LISTEN/NOTIFY) after ${onTwo} ms, by instance 3 (cache TTL only) after ${onThree} ms`);
  });

  it('a config change on instance 1 (sign-up closed) is honoured by 2 within the bound', async () => {
    const other = await setUpProject(cluster.instances[0]!.url, 'Config');
    const signUp = (base: string) =>
      call(base, '/auth/password/sign-up', { headers: other.client(), body: { email: `c-${Math.random()}@example.com`, password: 'cluster-password-1' } });
    expect((await signUp(cluster.instances[1]!.url)).status).toBe(200);
    const patched = await call(cluster.instances[0]!.url, '/internal/projects/current', {
      method: 'PATCH',
      headers: other.admin(),
      body: { config: { sign_up_enabled: false } },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const ms = await timeUntil(WITH_LISTENER_MS, async () => (await signUp(cluster.instances[1]!.url)).body?.code === 'SIGN_UP_NOT_ENABLED');
    console.info(`[cluster] sign-up closed on instance 1, refused by instance 2 after ${ms} ms`);
  });

  it('a session signed out on instance 1 is refused at once by 2 and 3; a permission granted on 1 is seen at once by 2 and 3', async () => {
    const [one, two, three] = cluster.instances.map((instance) => instance.url) as [string, string, string];
    const email = `session-${Math.random()}@example.com`;
    const user = await call(one, '/auth/password/sign-up', { headers: project.client(), body: { email, password: 'cluster-password-1' } });
    expect(user.status).toBe(200);
    const token = user.body.access_token as string;
    for (const base of [two, three]) expect((await call(base, '/users/me', { headers: project.client(token) })).status).toBe(200);

    const definition = await call(one, '/project-permission-definitions', { headers: project.admin(), body: { id: 'read_reports' } });
    expect(definition.status, JSON.stringify(definition.body)).toBe(201);
    const granted = await call(one, `/project-permissions/${user.body.user_id}/read_reports`, { method: 'POST', headers: project.server(), body: {} });
    expect(granted.status, JSON.stringify(granted.body)).toBeLessThan(300);
    for (const base of [two, three]) {
      const held = await call(base, '/project-permissions?user_id=me', { headers: project.client(token) });
      expect(held.status).toBe(200);
      expect((held.body.items as { id: string }[]).map((item) => item.id)).toContain('read_reports');
    }

    const signedOut = await call(one, '/auth/sessions/current', { method: 'DELETE', headers: project.client(token) });
    expect(signedOut.status, JSON.stringify(signedOut.body)).toBe(200);
    for (const base of [two, three]) {
      const me = await call(base, '/users/me', { headers: project.client(token) });
      expect(me.status).toBe(401);
      expect(me.body.code).toBe('ACCESS_TOKEN_EXPIRED');
    }
  });

  it('a rate limit counts across instances: failed sign-ins spread over all three stop at the limit', async () => {
    const email = `limited-${Math.random()}@example.com`;
    expect((await call(cluster.url, '/auth/password/sign-up', { headers: project.client(), body: { email, password: 'cluster-password-1' } })).status).toBe(
      200,
    );
    const codes: string[] = [];
    for (let i = 0; i < 12; i++) {
      const base = cluster.instances[i % 3]!.url;
      const res = await call(base, '/auth/password/sign-in', { headers: project.client(), body: { email, password: 'wrong-password-1' } });
      codes.push(res.body.code as string);
    }
    // LATCH_RATE_LIMIT_SIGN_IN_PER_EMAIL_IP=5: five wrong answers in all, whichever instance served them.
    expect(codes.filter((code) => code === 'EMAIL_PASSWORD_MISMATCH').length).toBe(5);
    expect(codes.slice(6).every((code) => code === 'RATE_LIMITED')).toBe(true);
  });
});

/** Every acknowledged write is in the database: the users and teams the load was told exist. */
async function verifyWrites(report: LoadReport): Promise<{ acknowledged: number; found: number }> {
  const userIds = report.signUps.map((s) => s.userId);
  const users = await cluster.query<{ n: number }>('select count(*)::int as n from users where id = any($1::uuid[])', [userIds]);
  const teams = await cluster.query<{ n: number }>('select count(*)::int as n from teams where id = any($1::uuid[])', [report.teams]);
  return { acknowledged: userIds.length + report.teams.length, found: users[0]!.n + teams[0]!.n };
}

/** Runs the load around a fault, and checks the house rules: no 500, no hang, nothing acknowledged lost. */
async function underLoad(label: string, fault: () => Promise<void>, afterMs = 6_000): Promise<void> {
  const load = new Load(cluster.url, project);
  await sleep(2_000);
  const faultAt = Date.now();
  await fault();
  await sleep(afterMs);
  const report = await load.stop();
  mailedAcknowledged.push(...report.signUps.filter((s) => s.mailed).map((s) => s.email));
  const writes = await verifyWrites(report);
  const recoveryMs = report.lastFailureAt === null ? 0 : (report.firstSuccessAfterFailureAt ?? Date.now()) - faultAt;
  console.info(describeLoad(label, report, { writesAcknowledged: writes.acknowledged, writesFound: writes.found, recoveryMs }));
  expect(writes.found, 'acknowledged writes found in the database').toBe(writes.acknowledged);
  const codes = Object.keys(report.errors);
  expect(
    codes.filter((code) => code.startsWith('500') || code === 'TIMEOUT'),
    JSON.stringify(report.errors),
  ).toEqual([]);
  expect(report.signUps.length).toBeGreaterThan(0);
}

describe('faults under load through the balancer', () => {
  it('kill -9 of instance 2: the balancer routes around it, nothing acknowledged is lost', { timeout: 240_000 }, async () => {
    await underLoad('kill -9 of instance 2', () => cluster.kill(2), 6_000);
    // Started again (outside the load: a cold start of the TypeScript server takes long on this
    // machine), the balancer's check takes it back.
    await cluster.revive(2);
    await sleep(1_500);
    for (let i = 0; i < 6; i++) expect((await call(cluster.url, '/users/me', { headers: project.server() })).status).toBeLessThan(500);
  });

  it('PgBouncer restarted: every instance recovers on its own, errors are catalogued 503s', { timeout: 120_000 }, async () => {
    await underLoad('PgBouncer restarted (down 2 s)', async () => {
      await cluster.pgbouncer.stop();
      await sleep(2_000);
      await cluster.pgbouncer.restart();
    });
    // Each instance serves again without a process restart.
    for (const instance of cluster.instances) expect((await call(instance.url, '/users/me', { headers: project.server() })).status).toBeLessThan(500);
  });

  const restartPg = process.env.LATCH_CLUSTER_RESTART_PG === '1';
  if (!restartPg) console.warn('[cluster] PostgreSQL restart case skipped: it restarts the shared PostgreSQL; set LATCH_CLUSTER_RESTART_PG=1 (.ci/run does)');
  it.skipIf(!restartPg)('PostgreSQL restarted: every instance recovers on its own, errors are catalogued 503s', { timeout: 180_000 }, async () => {
    const version = readdirSync('/etc/postgresql')[0]!;
    await underLoad(
      'PostgreSQL restarted',
      async () => {
        execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'restart'], { stdio: 'ignore' });
      },
      12_000,
    );
    for (const instance of cluster.instances) expect((await call(instance.url, '/users/me', { headers: project.server() })).status).toBeLessThan(500);
  });

  it('the jobs outbox held across instances and faults: every acknowledged email job exists once and settles', { timeout: 90_000 }, async () => {
    // Emails of the load's sign-ups (no SMTP here: each is settled as not-delivered).
    let rows: { state: string; attempts: number; to_email: string }[] = [];
    for (let waited = 0; waited < 20_000; waited += 500) {
      rows = await cluster.query('select state, attempts, to_email from email_outbox');
      if (rows.length && rows.every((row) => row.state !== 'pending')) break;
      await sleep(500);
    }
    const byRecipient = new Map<string, number>();
    for (const row of rows) byRecipient.set(row.to_email, (byRecipient.get(row.to_email) ?? 0) + 1);
    const jobs = await cluster.query<{ status: string; attempts: number }>("select status, attempts from jobs where kind like '%email%'");
    const stats = {
      emails: rows.length,
      pending: rows.filter((row) => row.state === 'pending').length,
      attemptsOverOne: rows.filter((row) => row.attempts > 1).length,
      jobs: jobs.length,
      jobsPending: jobs.filter((job) => job.status === 'pending').length,
    };
    console.info(`[cluster] email jobs after the faults: ${JSON.stringify(stats)}`);
    expect(mailedAcknowledged.length).toBeGreaterThan(0);
    // No lost job: every acknowledged one has its email; no double: each exactly one row, one attempt.
    for (const email of mailedAcknowledged) expect(byRecipient.get(email), email).toBe(1);
    expect(stats.attemptsOverOne).toBe(0);
    // Only jobs whose lease the kill -9 cut off may still wait (their lease, 5 min, runs out and
    // another instance runs them: at-least-once): at most one worker batch, each leased, none lost.
    const stranded = await cluster.query<{ leased: boolean }>("select leased_at is not null as leased from jobs where status = 'pending'");
    expect(stranded.length).toBeLessThanOrEqual(8);
    expect(stranded.every((job) => job.leased)).toBe(true);
  });
});
