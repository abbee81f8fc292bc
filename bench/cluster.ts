/**
 * `BENCH_ONLY=cluster npm run bench` (issue 21, item 6): GET /users/me and POST refresh through
 * HAProxy in front of 1, 2 and 3 Latch instances (the production entry point, dist/server/main.mjs)
 * on one PostgreSQL behind PgBouncer in transaction mode: the topology of `npm run test:cluster`,
 * started with the same helpers (server/test/cluster/processes.ts). For each instance count and
 * path it reports throughput and latency through the balancer and the CPU each request costs:
 * in the Latch instances (the sizing figure: requests per core), in PostgreSQL and in the balancer
 * and pooler. Bounded: BENCH_DURATION (10 s) + BENCH_WARMUP (2 s) per measurement, 6 measurements.
 *
 * On a 2-core machine the instances, HAProxy, PgBouncer, PostgreSQL and the load generator share
 * the cores, so throughput cannot grow with instances here: the CPU per request is the figure that
 * carries over to bigger machines (docs/scaling.md, Sizing).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Daemon, freePort, startHaproxy, startPgBouncer, waitForPort } from '../server/test/cluster/processes.js';
import type { Cleanups } from '../server/test/child-server.js';
import { runLoad } from './lib/load.js';
import { type ServerProc, cpuMs, machineBusyMs, postgresCpuByPid, postgresCpuDelta, startServer } from './lib/proc.js';
import { databaseUrl, queryRows, setUpProject } from './lib/setup.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PASSWORD = 'correct-horse-battery-staple';
const USERS = 30;
/** Per instance; PgBouncer multiplexes them onto its 20 server connections. */
const POOL_SIZE = 10;

export interface ClusterRow {
  instances: number;
  path: 'me' | 'refresh';
  rps: number;
  p50: number;
  p99: number;
  total: number;
  non2xx: number;
  errors: number;
  /** Latch CPU (all instances) per answered request, µs. */
  latchCpuUs: number;
  /** Each instance's CPU per request it served (round robin: total ÷ instances), µs. */
  perInstanceCpuUs: number[];
  /** PostgreSQL backends' CPU per request, µs. */
  postgresCpuUs: number;
  /** HAProxy + PgBouncer CPU per request, µs. */
  proxyCpuUs: number;
  /** Share of the machine's CPU that was busy during the window (all processes). */
  machineBusy: number;
}

export interface ClusterBench {
  rows: ClusterRow[];
  durationSec: number;
  connections: number;
}

export async function runClusterBench(options: {
  adminUrl: string;
  durationSec: number;
  warmupSec: number;
  connections: number;
  log: (line: string) => void;
}): Promise<ClusterBench> {
  const { adminUrl, durationSec, warmupSec, connections, log } = options;
  const cleanups: Cleanups = [];
  const dataDir = mkdtempSync(path.join(tmpdir(), 'latch-bench-cluster-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const dbName = `latch_bench_cluster_${randomBytes(3).toString('hex')}`;
  await queryRows(adminUrl, `CREATE DATABASE ${dbName}`);
  cleanups.push(async () => void (await queryRows(adminUrl, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined)));
  try {
    const admin = new URL(adminUrl);
    const pgbouncer = await startPgBouncer({ host: admin.hostname, port: Number(admin.port || 5432), user: decodeURIComponent(admin.username) }, cleanups);
    const pooled = new URL(databaseUrl(adminUrl, dbName));
    pooled.port = String(pgbouncer.port);
    const balancerPort = await freePort();
    const base = `http://127.0.0.1:${balancerPort}`;
    const secret = randomBytes(48).toString('base64url');
    const ports = [await freePort(), await freePort(), await freePort()];
    const instances: ServerProc[] = [];
    for (const port of ports) {
      const proc = await startServer({
        name: `latch:${port}`,
        args: ['--enable-source-maps', 'dist/server/main.mjs'],
        cwd: ROOT,
        env: {
          ...process.env,
          HOST: '127.0.0.1',
          PORT: String(port),
          // One issuer for all: a token minted by one instance verifies on the others.
          LATCH_BASE_URL: base,
          LATCH_SECRET: secret,
          LATCH_DATA_DIR: dataDir,
          LATCH_LOG_LEVEL: 'error',
          LATCH_ACCESS_TOKEN_TTL_SECONDS: '3600',
          LATCH_RATE_LIMIT_SIGN_UPS_PER_IP: '1000000',
          LATCH_RATE_LIMIT_PASSWORD_HASHES_PER_IP: '1000000',
          DATABASE_URL: pooled.toString(),
          DATABASE_PREPARED_STATEMENTS: 'false',
          DATABASE_POOL_SIZE: String(POOL_SIZE),
        },
        // It prints the balancer's URL (LATCH_BASE_URL); its own port is the one given.
        ready: /Latch is running at http:\/\/[^\s:]+:(\d+)/,
        timeoutMs: 120_000,
      });
      cleanups.push(async () => void (await proc.stop()));
      instances.push(proc);
    }
    let balancer: Daemon = await startHaproxy(ports, cleanups, balancerPort);
    await waitForPort(balancerPort);
    const fixture = await setUpProject(base, USERS, PASSWORD, { concurrency: 5 });
    log(
      `cluster: project ${fixture.projectId}, ${fixture.users.length} users; PgBouncer :${pgbouncer.port}, HAProxy :${balancerPort}, instances :${ports.join(', :')}`,
    );
    const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)]!;
    const loads = {
      me: {
        method: 'GET' as const,
        path: '/api/v1/users/me',
        headers: fixture.client,
        vary: () => ({ headers: { 'x-latch-access-token': pick(fixture.users).access_token } }),
      },
      refresh: {
        method: 'POST' as const,
        path: '/api/v1/auth/sessions/current/refresh',
        headers: { ...fixture.client, 'content-type': 'application/json' },
        body: '{}',
        vary: () => ({ headers: { 'x-latch-refresh-token': pick(fixture.users).refresh_token } }),
      },
    };

    const rows: ClusterRow[] = [];
    for (const n of [1, 2, 3]) {
      // The balancer again on the same port, over the first n instances.
      await balancer.stop();
      balancer = await startHaproxy(ports.slice(0, n), cleanups, balancerPort);
      const serving = instances.slice(0, n);
      for (const id of ['me', 'refresh'] as const) {
        const load = loads[id];
        const opts = {
          url: `${base}${load.path}`,
          connections,
          method: load.method,
          headers: load.headers,
          vary: load.vary,
          ...('body' in load ? { body: load.body } : {}),
        };
        await runLoad({ ...opts, durationSec: warmupSec });
        const cpuBefore = serving.map((proc) => cpuMs(proc.pid) ?? 0);
        const proxyBefore = (cpuMs(balancer.child.pid!) ?? 0) + (cpuMs(pgbouncer.child.pid!) ?? 0);
        const pgBefore = postgresCpuByPid(dbName);
        const busyBefore = machineBusyMs();
        const t0 = performance.now();
        const result = await runLoad({ ...opts, durationSec });
        const wallMs = performance.now() - t0;
        const busy = (machineBusyMs() - busyBefore) / (wallMs * 2);
        const cpu = serving.map((proc, i) => (cpuMs(proc.pid) ?? 0) - cpuBefore[i]!);
        const proxy = (cpuMs(balancer.child.pid!) ?? 0) + (cpuMs(pgbouncer.child.pid!) ?? 0) - proxyBefore;
        const pgCpu = postgresCpuDelta(pgBefore, postgresCpuByPid(dbName));
        const answered = Math.max(1, result.total - result.non2xx - result.errors);
        const perRequest = (ms: number, requests = answered) => Math.round((ms * 1000) / requests);
        const row: ClusterRow = {
          instances: n,
          path: id,
          rps: result.rps,
          p50: result.p50,
          p99: result.p99,
          total: result.total,
          non2xx: result.non2xx,
          errors: result.errors + result.timeouts,
          latchCpuUs: perRequest(cpu.reduce((a, b) => a + b, 0)),
          perInstanceCpuUs: cpu.map((ms) => perRequest(ms, answered / n)),
          postgresCpuUs: perRequest(pgCpu),
          proxyCpuUs: perRequest(proxy),
          machineBusy: Math.min(1, busy),
        };
        rows.push(row);
        log(
          `  ${n} instance(s) ${id.padEnd(7)} ${row.rps.toFixed(0).padStart(6)} req/s  p50 ${row.p50} ms  p99 ${row.p99} ms  non-2xx ${row.non2xx}  errors ${row.errors}  CPU/request: Latch ${row.latchCpuUs} µs (per instance ${row.perInstanceCpuUs.join(' / ')}), PostgreSQL ${row.postgresCpuUs} µs, HAProxy+PgBouncer ${row.proxyCpuUs} µs; machine ${(100 * row.machineBusy).toFixed(0)} % busy`,
        );
      }
    }
    return { rows, durationSec, connections };
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}

/** The Markdown table of a run (for bench/RESULTS.md). */
export function clusterTable(bench: ClusterBench): string {
  const lines = [
    '| Instances | Path | req/s | p50 ms | p99 ms | non-2xx / errors | Latch CPU µs/req (per instance) | PostgreSQL CPU µs/req | HAProxy + PgBouncer µs/req | req per Latch core-second |',
    '|---:|---|---:|---:|---:|---:|---|---:|---:|---:|',
  ];
  for (const r of bench.rows)
    lines.push(
      `| ${r.instances} | ${r.path === 'me' ? 'GET /users/me' : 'POST refresh'} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.non2xx} / ${r.errors} | ${r.latchCpuUs} (${r.perInstanceCpuUs.join(' / ')}) | ${r.postgresCpuUs} | ${r.proxyCpuUs} | ${Math.round(1e6 / Math.max(1, r.latchCpuUs)).toLocaleString('en')} |`,
    );
  return lines.join('\n');
}
