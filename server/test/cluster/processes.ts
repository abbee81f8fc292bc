import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import type { Cleanups } from '../child-server.js';

/**
 * PgBouncer and HAProxy as child processes of the cluster test, each on a free port with its own
 * configuration in a temporary folder, stopped by PID (never by name: other engineers' processes
 * share this machine).
 */

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once something accepts TCP connections on the port. */
export async function waitForPort(port: number, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface Daemon {
  port: number;
  child: ChildProcess;
  output: () => string;
  /** SIGKILL by PID, and waits for the exit. */
  stop: () => Promise<void>;
  /** Stops it and starts it again with the same configuration, on the same port. */
  restart: () => Promise<void>;
}

function configDir(cleanups: Cleanups, prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  // PgBouncer refuses to run as root and drops to the postgres user, who must read its files.
  chmodSync(dir, 0o755);
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function daemon(command: string, args: string[], port: number, cleanups: Cleanups): Promise<Daemon> {
  let child: ChildProcess;
  let out = '';
  const start = async () => {
    child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (chunk: Buffer) => (out = (out + chunk.toString()).slice(-20_000)));
    child.stderr!.on('data', (chunk: Buffer) => (out = (out + chunk.toString()).slice(-20_000)));
    await waitForPort(port).catch((error: Error) => {
      throw new Error(`${error.message}: ${command} said:\n${out}`);
    });
  };
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      process.kill(child.pid!, 'SIGKILL');
    });
  await start();
  cleanups.push(stop);
  return {
    port,
    get child() {
      return child;
    },
    output: () => out,
    stop,
    restart: async () => {
      await stop();
      await start();
    },
  };
}

/**
 * PgBouncer in transaction mode in front of PostgreSQL (trust auth here, as the test cluster's
 * PostgreSQL is). Short waits, so an outage turns into errors within seconds rather than hangs:
 * a client waits at most 5 s for a server connection (query_wait_timeout, an 08P01 error), and a
 * failed server login is retried after 1 s (server_login_retry; 15 s by default).
 */
export async function startPgBouncer(postgres: { host: string; port: number; user: string }, cleanups: Cleanups): Promise<Daemon> {
  const port = await freePort();
  const dir = configDir(cleanups, 'latch-pgbouncer-');
  const users = path.join(dir, 'users.txt');
  writeFileSync(users, `"${postgres.user}" ""\n`, { mode: 0o644 });
  const ini = path.join(dir, 'pgbouncer.ini');
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${postgres.host} port=${postgres.port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${users}`,
      'pool_mode = transaction',
      'max_client_conn = 1000',
      'default_pool_size = 20',
      'server_login_retry = 1',
      'server_connect_timeout = 3',
      'query_wait_timeout = 5',
      'log_connections = 0',
      'log_disconnections = 0',
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  const args = userInfo().uid === 0 ? ['-u', 'postgres', ini] : [ini];
  return daemon('/usr/sbin/pgbouncer', args, port, cleanups);
}

/**
 * HAProxy round-robin over the instances, each checked by TCP connect every 500 ms (down after two
 * misses): a killed instance leaves the rotation within about a second, while an instance whose
 * database is down stays in and answers its own catalogued 503. A request whose connection is
 * refused is sent to another instance (retry-on conn-failure; it never reached Latch, so that is
 * safe for any method). `port` picks the balancer's port (the bench restarts it on one port with
 * 1, 2 and 3 backends, so the instances' LATCH_BASE_URL stays right); a free one by default.
 */
export async function startHaproxy(backendPorts: number[], cleanups: Cleanups, port?: number): Promise<Daemon> {
  port ??= await freePort();
  const dir = configDir(cleanups, 'latch-haproxy-');
  const cfg = path.join(dir, 'haproxy.cfg');
  writeFileSync(
    cfg,
    [
      'global',
      '  maxconn 4000',
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 60s',
      '  timeout server 60s',
      '  retries 3',
      '  option redispatch',
      '  retry-on conn-failure',
      'frontend latch_in',
      `  bind 127.0.0.1:${port}`,
      '  default_backend latch',
      'backend latch',
      '  balance roundrobin',
      '  default-server check inter 500 fall 2 rise 1',
      ...backendPorts.map((backend, i) => `  server latch${i + 1} 127.0.0.1:${backend}`),
      '',
    ].join('\n'),
  );
  return daemon('/usr/sbin/haproxy', ['-db', '-f', cfg], port, cleanups);
}
