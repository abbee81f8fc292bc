/**
 * `tsx bench/ab.ts <dirA> <dirB> [me|refresh|…]`: an interleaved A/B of two checkouts of Latch
 * (e.g. a `git archive` of the previous commit beside this one) on one PostgreSQL database, for a
 * busy shared machine. Both servers run at once; the load alternates between them in short rounds
 * (AB BA AB …), so drift in the other processes' load hits both alike. Reported per server: median
 * over rounds of server CPU µs per request and of PostgreSQL CPU µs per request (from /proc), and
 * req/s. The CPU medians and the A/B ratio are what to read; absolute req/s follows the noise.
 *
 * Scenarios: me, refresh, sign-in, sign-up (unique addresses; not against the floor, which has no sign-up).
 * Sign-in and sign-up also report the argon2id ceiling measured before and after the rounds.
 * `tsx bench/ab.ts . floor-prepared refresh` runs the floor (bench/floor-server.mjs; `floor` or
 * `floor-prepared`) as B on A's project: the ratio to the floor under the same noise as A.
 * Env: AB_ROUNDS=6, AB_SECONDS=3, AB_CONNECTIONS=50, BENCH_POSTGRES_URL as for bench/run.ts; AB_KEEP_DB=1
 * keeps the latch_ab database afterwards (to study its statements with pgbench or EXPLAIN);
 * AB_NODE_ARGS: extra node flags for both servers, e.g. `--cpu-prof --cpu-prof-dir=/tmp/ab-prof` to diff
 * their profiles per request (bench/profile-summary.ts); AB_ENV_A / AB_ENV_B: JSON objects of extra environment for one side (e.g. to compare settings of
 * one checkout: `AB_ENV_B='{"LATCH_PASSWORD_HASH_CONCURRENCY":"2"}' tsx bench/ab.ts . . sign-in`).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { runLoad } from './lib/load.js';
import { cpuSplitMs, latchEntryArgs, postgresCpuByPid, postgresCpuDelta, startFloor, startServer } from './lib/proc.js';
import { adminStatement, databaseUrl, queryRows, setUpProject } from './lib/setup.js';

const [dirA, dirB, which = 'me'] = process.argv.slice(2);
if (!dirA || !dirB) throw new Error('usage: tsx bench/ab.ts <dirA> <dirB> [me|refresh|sign-in|sign-up]');
const ROUNDS = Number(process.env.AB_ROUNDS ?? 6);
const SECONDS = Number(process.env.AB_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.AB_CONNECTIONS ?? 50);
const ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB = 'latch_ab';
const dbUrl = databaseUrl(ADMIN_URL, DB);
const admin = (text: string) => adminStatement(ADMIN_URL, text);
const NODE_ARGS = (process.env.AB_NODE_ARGS ?? '').split(' ').filter(Boolean);

const secret = randomBytes(48).toString('base64url');
function start(dir: string, name: string, extra: Record<string, string>) {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('LATCH_') && k !== 'DATABASE_URL' && k !== 'PORT') env[k] = v;
  return startServer({
    name,
    args: [...NODE_ARGS, ...latchEntryArgs(dir)],
    cwd: path.resolve(dir),
    env: {
      ...env,
      HOST: '127.0.0.1',
      PORT: '0',
      DATABASE_URL: dbUrl,
      LATCH_SECRET: secret,
      LATCH_LOG_LEVEL: 'error',
      LATCH_ACCESS_TOKEN_TTL_SECONDS: '3600',
      LATCH_DATA_DIR: '/nonexistent',
      LATCH_BENCH_STATS: '1',
      LATCH_RATE_LIMIT_SIGN_UPS_PER_IP: '1000000',
      LATCH_RATE_LIMIT_PASSWORD_HASHES_PER_IP: '1000000',
      ...extra,
    },
    ready: /Latch is running at http:\/\/[^\s:]+:(\d+)/,
  });
}

await admin(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
await admin(`CREATE DATABASE ${DB}`);
// B = `floor` or `floor-prepared`: bench/floor-server.mjs (issue 8's floor) on A's project, so the
// ratio to the floor is read under the same noise as A (me, refresh and sign-in).
const floorB = dirB === 'floor' || dirB === 'floor-prepared';
if (floorB && which === 'sign-up') throw new Error('the floor has no sign-up: compare two checkouts');
const a = await start(dirA, 'A', JSON.parse(process.env.AB_ENV_A ?? '{}') as Record<string, string>);
let b = floorB ? a : await start(dirB, 'B', JSON.parse(process.env.AB_ENV_B ?? '{}') as Record<string, string>);
try {
  // Sign-in spreads over 60 users as bench/run.ts does: with 20, 50 connections now and then put
  // more than 10 sign-ins of one address in flight at once, and the per-(email, IP) attempt bound
  // (which counts an attempt until its check ends) answers 429, as it should for a real burst.
  const { client, users, projectId } = await setUpProject(a.url, which === 'sign-in' ? 60 : 20, 'correct-horse-battery-staple');
  if (floorB) {
    const [tenancy] = await queryRows<{ id: string }>(dbUrl, "SELECT id FROM tenancies WHERE project_id = $1 AND branch_id = 'main'", [projectId]);
    const jwks = await (await fetch(`${a.url}/api/v1/projects/${projectId}/.well-known/jwks.json`)).text();
    b = await startFloor(
      dirB,
      { databaseUrl: dbUrl, jwks, tenancyId: tenancy!.id, projectId, poolSize: 20 },
      { prepared: dirB === 'floor-prepared', repoRoot: path.resolve('.'), nodeArgs: NODE_ARGS },
    );
  }
  const emails = users.map((user) => user.email);
  const pick = () => users[Math.floor(Math.random() * users.length)]!;
  let signUps = 0;
  const signUpRun = randomBytes(4).toString('hex');
  const scenario =
    which === 'sign-up'
      ? {
          path: '/api/v1/auth/password/sign-up',
          method: 'POST' as const,
          body: '{}',
          headers: { ...client, 'content-type': 'application/json' },
          vary: () => ({ body: JSON.stringify({ email: `ab-${signUpRun}-${signUps++}@example.com`, password: 'correct-horse-battery-staple' }) }),
        }
      : which === 'sign-in'
        ? {
            path: '/api/v1/auth/password/sign-in',
            method: 'POST' as const,
            body: '{}',
            headers: { ...client, 'content-type': 'application/json' },
            vary: () => ({ body: JSON.stringify({ email: emails[Math.floor(Math.random() * emails.length)], password: 'correct-horse-battery-staple' }) }),
          }
        : which === 'refresh'
          ? {
              path: '/api/v1/auth/sessions/current/refresh',
              method: 'POST' as const,
              body: '{}',
              headers: { ...client, 'content-type': 'application/json' },
              vary: () => ({ headers: { 'x-latch-refresh-token': pick().refresh_token } }),
            }
          : { path: '/api/v1/users/me', method: 'GET' as const, headers: client, vary: () => ({ headers: { 'x-latch-access-token': pick().access_token } }) };

  type Sample = { cpu: number; sys: number; pg: number; rps: number; loop: number; xacts: number };
  // Transactions the database committed or rolled back (every statement outside BEGIN is one).
  const xactCount = async () =>
    Number((await queryRows<{ n: string }>(ADMIN_URL, 'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1', [DB]))[0]!.n);
  const samples = { A: [] as Sample[], B: [] as Sample[] };
  const loopP99 = async (proc: typeof a) =>
    Number(/^latch_event_loop_delay_p99_ms ([\d.]+)$/m.exec(await (await fetch(`${proc.url}/metrics`)).text())?.[1] ?? NaN);
  const once = async (proc: typeof a, durationSec: number): Promise<Sample> => {
    await loopP99(proc); // resets the histogram
    const x0 = await xactCount();
    const c0 = cpuSplitMs(proc.pid)!;
    const p0 = postgresCpuByPid(DB);
    const r = await runLoad({
      url: `${proc.url}${floorB && proc === b ? scenario.path.replace('/api/v1', '') : scenario.path}`,
      connections: CONNECTIONS,
      method: scenario.method,
      headers: scenario.headers,
      ...(scenario.body ? { body: scenario.body } : {}),
      vary: scenario.vary,
      durationSec,
    });
    const c1 = cpuSplitMs(proc.pid)!;
    const cpu = c1.user + c1.system - c0.user - c0.system;
    const sys = c1.system - c0.system;
    const pgMs = postgresCpuDelta(p0, postgresCpuByPid(DB));
    if (r.non2xx || r.errors)
      throw new Error(
        `${proc === a ? 'A' : 'B'}: non-2xx ${r.non2xx}, errors ${r.errors}, statuses ${JSON.stringify(r.statuses)}; stderr: ${proc.stderr().slice(-1500)}`,
      );
    // pg_stat_database is flushed by each backend when it goes idle, at most once a second.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const xacts = ((await xactCount()) - x0) / r.total;
    const sample = { cpu: (cpu * 1000) / r.total, sys: (sys * 1000) / r.total, pg: (pgMs * 1000) / r.total, rps: r.rps, loop: await loopP99(proc), xacts };
    // Sign-ins still queued when the load stops finish afterwards: let them, so the two servers'
    // attempts never overlap in the shared per-IP and per-email counters.
    if (which === 'sign-in' || which === 'sign-up') await new Promise((resolve) => setTimeout(resolve, 3000));
    return sample;
  };
  // Sign-in and sign-up: the argon2id ceiling (bench/argon-ceiling.ts, its own process) before and
  // after the rounds, so each side's rate reads as a fraction of what the cores can verify (sign-in)
  // or hash (sign-up).
  const ceiling = () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', 'bench/argon-ceiling.ts', '5'], { cwd: path.resolve('.'), encoding: 'utf8' });
    const measured = JSON.parse(out.trim().split('\n').at(-1)!) as { verifyPerSecond: number; hashPerSecond: number };
    return which === 'sign-up' ? measured.hashPerSecond : measured.verifyPerSecond;
  };
  const ceilings = which === 'sign-in' || which === 'sign-up' ? [ceiling()] : [];
  await once(a, 2);
  await once(b, 2);
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const);
    for (const name of order) samples[name].push(await once(name === 'A' ? a : b, SECONDS));
  }
  if (ceilings.length) ceilings.push(ceiling());
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const row = (name: 'A' | 'B') => ({
    cpu: median(samples[name].map((s) => s.cpu)),
    sys: median(samples[name].map((s) => s.sys)),
    pg: median(samples[name].map((s) => s.pg)),
    rps: median(samples[name].map((s) => s.rps)),
    loop: median(samples[name].map((s) => s.loop)),
    xacts: median(samples[name].map((s) => s.xacts)),
  });
  const ra = row('A');
  const rb = row('B');
  console.log(
    `${which}: A ${dirA}: server ${ra.cpu.toFixed(0)} µs (kernel ${ra.sys.toFixed(0)}) + PG ${ra.pg.toFixed(0)} µs per request (${ra.xacts.toFixed(2)} transactions), ${ra.rps.toFixed(0)} req/s, loop delay p99 ${ra.loop.toFixed(1)} ms (medians of ${ROUNDS})`,
  );
  console.log(
    `${which}: B ${dirB}: server ${rb.cpu.toFixed(0)} µs (kernel ${rb.sys.toFixed(0)}) + PG ${rb.pg.toFixed(0)} µs per request (${rb.xacts.toFixed(2)} transactions), ${rb.rps.toFixed(0)} req/s, loop delay p99 ${rb.loop.toFixed(1)} ms (medians of ${ROUNDS})`,
  );
  if (ceilings.length) {
    const ceilingRate = (ceilings[0]! + ceilings[1]!) / 2;
    console.log(
      `${which}: argon2id ceiling ${ceilings.map((c) => c.toFixed(1)).join(' / ')} ${which === 'sign-up' ? 'hashes' : 'verifications'}/s; A ${(ra.rps / ceilingRate).toFixed(2)}x of it, B ${(rb.rps / ceilingRate).toFixed(2)}x`,
    );
  }
  console.log(`${which}: B/A server CPU ${(rb.cpu / ra.cpu).toFixed(2)}, PG CPU ${(rb.pg / ra.pg).toFixed(2)}, req/s ${(rb.rps / ra.rps).toFixed(2)}`);
} finally {
  await a.stop();
  if (b !== a) await b.stop();
  if (process.env.AB_KEEP_DB !== '1') await admin(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`).catch(() => undefined);
}
