/**
 * `tsx bench/instructions.ts <dir> [me|refresh] [<dir2> …]`: user-space instructions per request of
 * a Latch checkout, counted by valgrind's callgrind, for A/B comparisons that the machine's load
 * cannot move (bench/ab.ts measures CPU time, which a busy shared machine inflates by ±10 %).
 * The name `floor` instead of a folder counts bench/floor-server.mjs with named prepared statements
 * (the stricter floor of bench/run.ts) on a fixture a plain Latch of this checkout makes first, so
 * Latch's count can be read against what the same DB work costs without a framework.
 *
 * The server runs under `valgrind --tool=callgrind --instr-atstart=no` on PostgreSQL (database
 * latch_instructions, dropped afterwards); after a warm-up (so V8 has optimised the hot code), the
 * collection is switched on for a fixed number of requests and off again. The count covers the
 * server process's user-space code (JavaScript, V8, libuv, OpenSSL, pg parsing), not the kernel
 * (socket writes) and not PostgreSQL: read it beside the CPU figures of ab.ts, not instead of them.
 *
 * Env: INSTR_REQUESTS=3000 counted requests, INSTR_WARMUP=6000, INSTR_CONNECTIONS=4, INSTR_NODE_ARGS
 * (extra node flags for the server, space-separated, e.g. "--max-semi-space-size=32"),
 * BENCH_POSTGRES_URL as for bench/run.ts. Slow: each server starts in about a minute under valgrind.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { latchEntryArgs, startServer, stopChild, track } from './lib/proc.js';
import { type BenchProject, adminStatement, databaseUrl, queryRows, setUpProject } from './lib/setup.js';

const args = process.argv.slice(2);
const scenario = args.find((a) => a === 'me' || a === 'refresh') ?? 'me';
const dirs = args.filter((a) => a !== scenario);
if (dirs.length === 0) throw new Error('usage: tsx bench/instructions.ts <dir> [me|refresh] [<dir2> …]');
const REQUESTS = Number(process.env.INSTR_REQUESTS ?? 3000);
const WARMUP = Number(process.env.INSTR_WARMUP ?? 6000);
const CONNECTIONS = Number(process.env.INSTR_CONNECTIONS ?? 4);
const NODE_ARGS = (process.env.INSTR_NODE_ARGS ?? '').split(' ').filter(Boolean);
const ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB = 'latch_instructions';
/**
 * Where valgrind and callgrind_control meet: the file name also carries $USER and $HOST, and the
 * server's HOST=127.0.0.1 must be the controller's too.
 */
const VGDB_PREFIX = '/tmp/latch-vgdb';
const CONTROL = { stdio: 'ignore' as const, env: { ...process.env, HOST: '127.0.0.1' } };
const dbUrl = databaseUrl(ADMIN_URL, DB);

const admin = (text: string) => adminStatement(ADMIN_URL, text);

/** A Latch server's environment (the floor ignores the LATCH_ part): this run's database, quiet logs. */
function serverEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('LATCH_') && k !== 'DATABASE_URL' && k !== 'PORT') env[k] = v;
  return Object.assign(env, extra, {
    HOST: '127.0.0.1',
    PORT: '0',
    DATABASE_URL: dbUrl,
    LATCH_SECRET: 'instructions-bench-secret-0123456789abcdef',
    LATCH_LOG_LEVEL: 'error',
    LATCH_ACCESS_TOKEN_TTL_SECONDS: '3600',
    LATCH_DATA_DIR: '/nonexistent',
  });
}

async function startUnderCallgrind(dir: string, outFile: string, floorEnv?: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> {
  const env = serverEnv(floorEnv);
  const child = track(
    spawn(
      'valgrind',
      [
        '--tool=callgrind',
        '--instr-atstart=no',
        `--vgdb-prefix=${VGDB_PREFIX}`,
        `--callgrind-out-file=${outFile}`,
        process.execPath,
        ...NODE_ARGS,
        ...(floorEnv ? ['bench/floor-server.mjs'] : latchEntryArgs(dir)),
      ],
      { cwd: floorEnv ? process.cwd() : path.resolve(dir), env, stdio: ['ignore', 'pipe', 'pipe'] },
    ),
  );
  let out = '';
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${dir}: no start within 900 s (a loaded machine)\n${err.slice(-2000)}`)), 900_000);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /(?:Latch is running at http:\/\/[^\s:]+:|floor listening on )(\d+)/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => reject(new Error(`${dir}: exited ${code}\n${err.slice(-2000)}`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

/** The floor's fixture: a plain (uncounted) Latch of this checkout signs the users up and stops. */
async function floorFixture(): Promise<{ env: NodeJS.ProcessEnv; client: Record<string, string>; users: BenchProject['users'] }> {
  const latch = await startServer({
    name: 'latch:fixture',
    args: latchEntryArgs('.'),
    cwd: process.cwd(),
    env: serverEnv(),
    ready: /Latch is running at http:\/\/[^\s:]+:(\d+)/,
  });
  try {
    const { projectId, client, users } = await setUpProject(latch.url, 8, 'correct-horse-battery-staple');
    const jwks = await (await fetch(`${latch.url}/api/v1/projects/${projectId}/.well-known/jwks.json`)).text();
    const [tenancy] = await queryRows<{ id: string }>(dbUrl, `SELECT id FROM tenancies WHERE project_id = $1 AND branch_id = 'main'`, [projectId]);
    const env = { FLOOR_JWKS: jwks, FLOOR_TENANCY_ID: tenancy!.id, FLOOR_PROJECT_ID: projectId, FLOOR_NAMED_STATEMENTS: '1', DATABASE_POOL_SIZE: '20' };
    return { env, client, users };
  } finally {
    await latch.stop();
  }
}

async function drive(url: string, count: number, request: () => Promise<Response>): Promise<void> {
  let left = count;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (left-- > 0) {
        const res = await request();
        await res.arrayBuffer();
        if (!res.ok) throw new Error(`${url}: ${res.status}`);
      }
    }),
  );
}

const results: string[] = [];
for (const dir of dirs) {
  await admin(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${DB}`);
  const outFile = `/tmp/latch-callgrind-${randomBytes(4).toString('hex')}.out`;
  const fixture = dir === 'floor' ? await floorFixture() : null;
  const { child, url } = await startUnderCallgrind(dir, outFile, fixture?.env);
  try {
    const { client, users } = fixture ?? (await setUpProject(url, 8, 'correct-horse-battery-staple'));
    const api = fixture ? url : `${url}/api/v1`;
    let n = 0;
    const request =
      scenario === 'refresh'
        ? () =>
            fetch(`${api}/auth/sessions/current/refresh`, {
              method: 'POST',
              headers: { ...client, 'content-type': 'application/json', 'x-latch-refresh-token': users[n++ % users.length]!.refresh_token },
              body: '{}',
            })
        : () => fetch(`${api}/users/me`, { headers: { ...client, 'x-latch-access-token': users[n++ % users.length]!.access_token } });
    await drive(url, WARMUP, request);
    execFileSync('callgrind_control', [`--vgdb-prefix=${VGDB_PREFIX}`, '-i', 'on', String(child.pid)], CONTROL);
    await drive(url, REQUESTS, request);
    execFileSync('callgrind_control', [`--vgdb-prefix=${VGDB_PREFIX}`, '-i', 'off', String(child.pid)], CONTROL);
  } finally {
    await stopChild(child);
  }
  // The header's `summary:` stays 0 when instrumentation starts off; `totals:` at the end has the count.
  const summary = /^totals:\s+(\d+)/m.exec(readFileSync(outFile, 'utf8'))?.[1];
  if (process.env.INSTR_KEEP !== '1') rmSync(outFile, { force: true });
  else console.log(`kept ${outFile}`);
  const perRequest = Number(summary) / REQUESTS;
  results.push(
    `${scenario}: ${dir}: ${Math.round(perRequest).toLocaleString('en-US')} instructions per request (${REQUESTS} requests after ${WARMUP} warm-up, ${CONNECTIONS} connections)`,
  );
  console.log(results[results.length - 1]);
}
await admin(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`).catch(() => undefined);
if (results.length > 1) console.log(results.join('\n'));
