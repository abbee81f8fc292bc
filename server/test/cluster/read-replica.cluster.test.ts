import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChildServer, type Cleanups, type Project, call, setUpProject, sleep, startServer } from '../child-server.js';
import { type ReplicaPair, canCreateClusters, startReplicaPair } from './replica-pair.js';

/**
 * `npm run test:cluster`, issue 21 item 4: one Latch instance on a PostgreSQL primary with
 * DATABASE_READ_URL on a streaming replica of it (replica-pair.ts makes both for this run). With
 * the replica's replay paused (`pg_wal_replay_pause()`), a row written through Latch is on the
 * primary and not yet on the replica, which tells apart who answered each read: the lag-tolerant
 * lists miss it (the replica), the auth path, GET by id and a client's own lists see it (the
 * primary). Then the replica is stopped: every read still answers (the primary), never an error,
 * and once the replica is back it serves again after the retry delay.
 */

const cleanups: Cleanups = [];
const possible = canCreateClusters();
if (!possible) console.warn('[cluster] read-replica test skipped: it needs root (pg_createcluster, pg_basebackup)');

let pair: ReplicaPair;
let server: ChildServer;
let project: Project;
/** Every answer of the run: none may be a 5xx. */
const statuses: { path: string; status: number; code?: string }[] = [];

async function api(pathname: string, options: Parameters<typeof call>[2] = {}) {
  const res = await call(server.url, pathname, options);
  statuses.push({ path: pathname, status: res.status, code: res.body?.code });
  return res;
}

const listedEmails = async (query = '') => {
  const res = await api(`/users?limit=200${query}`, { headers: project.server() });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.items as { primary_email: string }[]).map((user) => user.primary_email);
};
const createUser = async () => {
  const email = `rr-${randomBytes(4).toString('hex')}@example.com`;
  const res = await api('/users', { headers: project.server(), body: { primary_email: email, primary_email_auth_enabled: true } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: res.body.id as string, email };
};
const totalUsers = async () => {
  const res = await api('/internal/metrics', { headers: project.admin() });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.total_users as number;
};
/** This instance's read-replica counters from /metrics (loopback may read it). */
async function replicaMetrics(): Promise<{ replica: number; primary: number; fallbacks: number; up: number }> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? NaN);
  return {
    replica: value(/^latch_db_read_replica_queries_total\{served_by="replica"\} (\d+)$/m),
    primary: value(/^latch_db_read_replica_queries_total\{served_by="primary"\} (\d+)$/m),
    fallbacks: value(/^latch_db_read_replica_fallbacks_total (\d+)$/m),
    up: value(/^latch_db_read_replica_up (\d+)$/m),
  };
}
async function until(limitMs: number, probe: () => Promise<boolean>, what: string): Promise<number> {
  const started = Date.now();
  while (!(await probe())) {
    if (Date.now() - started > limitMs) throw new Error(`${what}: not within ${limitMs} ms`);
    await sleep(100);
  }
  return Date.now() - started;
}
/** Waits until the replica has replayed everything the primary has written so far, then pauses its replay. */
async function pauseReplay(): Promise<void> {
  const lsn = (await pair.onPrimary<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn'))[0]!.lsn;
  await until(
    20_000,
    async () => (await pair.onReplica<{ ok: boolean }>('select pg_last_wal_replay_lsn() >= $1::pg_lsn as ok', [lsn]))[0]!.ok,
    'replica caught up',
  );
  await pair.onReplica('select pg_wal_replay_pause()');
}

beforeAll(async () => {
  if (!possible) return;
  pair = await startReplicaPair(cleanups);
  server = await startServer(
    {
      LATCH_SECRET: randomBytes(48).toString('base64url'),
      DATABASE_URL: pair.primaryUrl,
      DATABASE_READ_URL: pair.replicaUrl,
      DATABASE_POOL_SIZE: '5',
      LATCH_LOG_LEVEL: 'warn',
    },
    cleanups,
  );
  project = await setUpProject(server.url, 'Replica');
  const patched = await api('/internal/projects/current', {
    method: 'PATCH',
    headers: project.admin(),
    body: { config: { client_team_creation_enabled: true } },
  });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
}, 240_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
}, 60_000);

describe.skipIf(!possible)('DATABASE_READ_URL: lag-tolerant reads on a streaming replica, the rest on the primary', () => {
  it('the replica answers the lists and metrics; writes, the auth path, GET by id and a client’s own teams use the primary', async () => {
    const before = await createUser();
    const caughtUp = await until(20_000, async () => (await listedEmails()).includes(before.email), 'first user listed');
    console.info(`[cluster] read replica: a new user listed after ${caughtUp} ms`);
    await pauseReplay();
    const totalBefore = await totalUsers();

    // Writes while the replica stands still: they reach the primary (the replica is read-only).
    const hidden = await createUser();
    expect(await pair.onPrimary('select 1 from users where id = $1', [hidden.id])).toHaveLength(1);
    expect(await pair.onReplica('select 1 from users where id = $1', [hidden.id])).toHaveLength(0);
    const signUp = await api('/auth/password/sign-up', {
      headers: project.client(),
      body: { email: `rr-client-${Date.now()}@example.com`, password: 'replica-password-1' },
    });
    expect(signUp.status, JSON.stringify(signUp.body)).toBe(200);
    const token = signUp.body.access_token as string;
    const serverTeam = await api('/teams', { headers: project.server(), body: { display_name: 'Made by the server' } });
    expect(serverTeam.status, JSON.stringify(serverTeam.body)).toBe(201);
    const clientTeam = await api('/teams', { headers: project.client(token), body: { display_name: 'Made by the client' } });
    expect(clientTeam.status, JSON.stringify(clientTeam.body)).toBe(201);

    // The replica: the user list, search and metrics do not know the new rows yet.
    const listed = await listedEmails();
    expect(listed).toContain(before.email);
    expect(listed).not.toContain(hidden.email);
    expect(await listedEmails(`&query=${encodeURIComponent(hidden.email)}`)).toEqual([]);
    expect(await totalUsers()).toBe(totalBefore);
    const serverTeams = await api('/teams', { headers: project.server() });
    expect(serverTeams.status).toBe(200);
    expect((serverTeams.body.items as { id: string }[]).map((team) => team.id)).not.toContain(serverTeam.body.id);

    // The primary: the auth path (the session just made), GET by id, a client's own team list.
    const me = await api('/users/me', { headers: project.client(token) });
    expect(me.status, JSON.stringify(me.body)).toBe(200);
    const refreshed = await api('/auth/sessions/current/refresh', {
      method: 'POST',
      headers: { ...project.client(), 'x-latch-refresh-token': signUp.body.refresh_token },
    });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect((await api(`/users/${hidden.id}`, { headers: project.server() })).status).toBe(200);
    const ownTeams = await api('/teams?user_id=me', { headers: project.client(token) });
    expect(ownTeams.status).toBe(200);
    expect((ownTeams.body.items as { id: string }[]).map((team) => team.id)).toContain(clientTeam.body.id);

    // Replay resumes: the lists catch up.
    await pair.onReplica('select pg_wal_replay_resume()');
    await until(20_000, async () => (await listedEmails()).includes(hidden.email), 'replica caught up after resume');
    expect(await totalUsers()).toBeGreaterThan(totalBefore);
    const counters = await replicaMetrics();
    expect(counters.up).toBe(1);
    expect(counters.replica).toBeGreaterThan(0);
    expect(counters.fallbacks).toBe(0);
  });

  it('the replica stopped: reads fall back to the primary with no error, and go back to the replica once it answers again', async () => {
    pair.stopReplica();
    await expect(pair.onReplica('select 1')).rejects.toThrow();
    const stoppedAt = Date.now();
    const during = await createUser();
    // Served at once by the primary (it has the new user), again and again while the replica is down.
    for (let i = 0; i < 5; i++) {
      expect(await listedEmails()).toContain(during.email);
      expect(await totalUsers()).toBeGreaterThan(0);
      expect((await api('/internal/emails', { headers: project.admin() })).status).toBe(200);
      expect((await api('/internal/emails/sent', { headers: project.admin() })).status).toBe(200);
      expect((await api('/internal/payments/transactions', { headers: project.admin() })).status).toBe(200);
      expect((await api('/teams', { headers: project.server() })).status).toBe(200);
    }
    const down = await replicaMetrics();
    expect(down.up).toBe(0);
    expect(down.fallbacks).toBeGreaterThan(0);
    expect(down.primary).toBeGreaterThan(0);
    console.info(
      `[cluster] read replica stopped: ${down.primary} reads served by the primary, ${down.fallbacks} replica failure(s) rerun there, in ${Date.now() - stoppedAt} ms`,
    );

    await pair.startReplica();
    await pauseReplay();
    const afterRestart = await createUser();
    // The replica is skipped for 5 s after a failure, then tried again: once it serves, the paused
    // replica does not know the new user.
    const ms = await until(20_000, async () => !(await listedEmails()).includes(afterRestart.email), 'replica serving again');
    console.info(`[cluster] read replica back: serving reads again ${ms} ms after it was ready`);
    expect((await replicaMetrics()).up).toBe(1);
    await pair.onReplica('select pg_wal_replay_resume()');
  });

  it('no answer of the run was a 5xx', () => {
    expect(statuses.filter((s) => s.status >= 500)).toEqual([]);
    expect(statuses.length).toBeGreaterThan(20);
  });
});
