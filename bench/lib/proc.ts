import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';

/** A server child process the bench starts, measures and stops. */
export interface ServerProc {
  pid: number;
  port: number;
  url: string;
  child: ChildProcess;
  /** Everything the child wrote to stderr (kept for error messages). */
  stderr: () => string;
  stop: () => Promise<number | null>;
}

/** Children still running: killed if the bench itself exits early (an error, Ctrl-C). */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

/** Registers a child to be killed if the bench exits before it stops it. */
export function track(child: ChildProcess): ChildProcess {
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A free loopback port (for servers whose port must be known before they print anything). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** What the floor server (bench/floor-server.mjs) needs to stand in for Latch on one of its projects. */
export interface FloorFixture {
  databaseUrl: string;
  /** The project's JWKS (GET /projects/{id}/.well-known/jwks.json), to verify Latch's access tokens. */
  jwks: string;
  tenancyId: string;
  projectId: string;
  poolSize: number;
}

/**
 * Starts bench/floor-server.mjs (issue 8's floor: node:http + pg + jose doing a hot path's
 * essential work) on a Latch project; `prepared` runs its queries as named prepared statements.
 */
export function startFloor(name: string, fixture: FloorFixture, options: { prepared?: boolean; repoRoot: string; nodeArgs?: string[] }): Promise<ServerProc> {
  return startServer({
    name,
    args: [...(options.nodeArgs ?? []), 'bench/floor-server.mjs'],
    cwd: options.repoRoot,
    env: {
      ...process.env,
      DATABASE_URL: fixture.databaseUrl,
      PORT: '0',
      DATABASE_POOL_SIZE: String(fixture.poolSize),
      FLOOR_JWKS: fixture.jwks,
      FLOOR_TENANCY_ID: fixture.tenancyId,
      FLOOR_PROJECT_ID: fixture.projectId,
      ...(options.prepared ? { FLOOR_NAMED_STATEMENTS: '1' } : {}),
    },
    ready: /floor listening on (\d+)/,
  });
}

/**
 * The node arguments that start a checkout's Latch as `npm start` and bench/run.ts do: its esbuild
 * bundle (built here when stale), so tsx's per-closure `__name` calls and loader hooks, which
 * production never pays, do not weigh on an A/B or an instruction count. A checkout from before
 * the server build existed runs its TypeScript under tsx.
 */
export function latchEntryArgs(dir: string): string[] {
  if (!existsSync(path.join(dir, 'scripts/server-build.ts'))) return ['--import', 'tsx', 'server/main.ts'];
  execFileSync(process.execPath, ['--import', 'tsx', '-e', "await (await import('./scripts/server-build.ts')).buildServerIfStale()"], {
    cwd: path.resolve(dir),
    stdio: 'inherit',
  });
  return ['--enable-source-maps', 'dist/server/main.mjs'];
}

/**
 * Spawns `node <args>` and waits until it prints a line matching `ready` (whose first group is the
 * port) or until /health answers on `port`. Output is kept, not shown, unless BENCH_VERBOSE=1.
 */
export async function startServer(options: {
  name: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  ready: RegExp;
  timeoutMs?: number;
}): Promise<ServerProc> {
  const child = track(spawn(process.execPath, options.args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] }));
  let out = '';
  let err = '';
  const verbose = process.env.BENCH_VERBOSE === '1';
  child.stderr!.on('data', (chunk: Buffer) => {
    err += chunk.toString();
    if (verbose) process.stderr.write(`[${options.name}] ${chunk.toString()}`);
  });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${options.name} did not start within ${options.timeoutMs ?? 60_000} ms\n${err}`)),
      options.timeoutMs ?? 60_000,
    );
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (verbose) process.stderr.write(`[${options.name}] ${chunk.toString()}`);
      const match = options.ready.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${options.name} exited with code ${code} before it was ready\n${out}\n${err}`));
    });
  });
  return {
    pid: child.pid!,
    port,
    url: `http://127.0.0.1:${port}`,
    child,
    stderr: () => err,
    stop: () => stopChild(child),
  };
}

/** SIGTERM, then SIGKILL after 15 s; resolves with the exit code. */
export function stopChild(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', (code) => {
      clearTimeout(kill);
      resolve(code);
    });
    child.kill('SIGTERM');
  });
}

/** Peak resident set size (VmHWM) of a process in bytes, or null when it is gone. */
export function peakRss(pid: number): number | null {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Resets VmHWM to the current RSS (Linux clear_refs 5), so the next reading is this phase's peak. */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

const TICK_MS = 10; // CLK_TCK is 100 on Linux x86_64

/** CPU time (user + system, all threads) a process has used so far, in ms; null when it is gone. */
export function cpuMs(pid: number): number | null {
  const split = cpuSplitMs(pid);
  return split && split.user + split.system;
}

/** cpuMs in its two parts: user space (JavaScript, V8, libuv, OpenSSL) and the kernel (system calls, page faults). */
export function cpuSplitMs(pid: number): { user: number; system: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(fields[11]) * TICK_MS, system: Number(fields[12]) * TICK_MS }; // utime, stime (fields 14, 15 of stat)
  } catch {
    return null;
  }
}

/**
 * CPU time used so far by each live PostgreSQL backend serving one database (process title
 * `postgres: [cluster: ]<user> <database> <client> …`), in ms by pid: the database work of the
 * bench's requests, without other sessions' backends on the same server.
 */
export function postgresCpuByPid(database: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      const words = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ').split(' ');
      if (words.shift() !== 'postgres:') continue;
      if (words[0]?.endsWith(':')) words.shift(); // "15/main:"
      if (words[1] !== database) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(name), (Number(fields[11]) + Number(fields[12])) * TICK_MS);
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/**
 * CPU used by a database's backends between two readings: new backends count from zero; a backend
 * that exited in between (the pool closes idle connections) loses only its last stretch.
 */
export function postgresCpuDelta(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}

/** CPU time used by the whole machine so far (all cores, busy only), in ms. */
export function machineBusyMs(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) * TICK_MS;
}

/** The pid of the process listening on a loopback TCP port (from `ss -ltnp`), if any. */
export function pidListeningOn(port: number): number | null {
  try {
    const out = execFileSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' });
    const match = /pid=(\d+)/.exec(out);
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** Polls GET url until it answers 2xx; resolves with the elapsed milliseconds since `since`. */
export async function waitForHttp(url: string, since: number, timeoutMs = 60_000, everyMs = 10): Promise<number> {
  while (performance.now() - since < timeoutMs) {
    try {
      const res = await fetch(url);
      if (res.ok) return performance.now() - since;
    } catch {
      // not listening yet
    }
    await sleep(everyMs);
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}
