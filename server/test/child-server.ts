import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { expect } from 'vitest';

/**
 * Latch as a real child process (`node --import tsx server/main.ts`, as `npm start` runs it), and
 * the few HTTP calls the process-level tests (durability, cluster) make against it.
 */

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ChildServer {
  url: string;
  child: ChildProcess;
  output: () => string;
}

/** Cleanups run in reverse order by the calling file's afterAll. */
export type Cleanups = (() => Promise<void> | void)[];

export async function startServer(env: Record<string, string>, cleanups: Cleanups): Promise<ChildServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: ROOT,
    // The load comes from one IP (127.0.0.1): the per-IP sign-up and hashing limits, which would
    // refuse it after 100 sign-ups, are switched off; these files measure durability, not limits.
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      LATCH_LOG_LEVEL: 'error',
      LATCH_RATE_LIMIT_SIGN_UPS_PER_IP: '0',
      LATCH_RATE_LIMIT_PASSWORD_HASHES_PER_IP: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start within 180 s:\n${out}`)), 180_000);
    const onData = () => {
      const match = /Latch is running at (http:\/\/\S+)/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code ?? signal}) before it was ready:\n${out}`));
    });
  });
  return { url, child, output: () => out };
}

export function killHard(server: ChildServer): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    server.child.once('exit', () => resolve());
    server.child.kill('SIGKILL');
  });
}

export type Headers_ = Record<string, string>;

export async function call(
  base: string,
  pathname: string,
  options: { method?: string; headers?: Headers_; body?: unknown; signal?: AbortSignal } = {},
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}/api/v1${pathname}`, {
    method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
    headers: { ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: options.signal,
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // A balancer's own error page (HTML) rather than Latch's answer.
    body = { code: `NON_JSON_${res.status}`, error: text.slice(0, 200) };
  }
  return { status: res.status, body };
}

export interface Project {
  id: string;
  /** The key set's id (to revoke it). */
  keySetId: string;
  client: (accessToken?: string) => Headers_;
  server: () => Headers_;
  /** The owner's admin headers (an internal-project access token, 10 minutes). */
  admin: () => Headers_;
}

/** An owner, a project and its keys, over HTTP. */
export async function setUpProject(base: string, displayName = 'Durability'): Promise<Project> {
  const internal = { 'x-latch-project-id': 'internal', 'x-latch-access-type': 'client' };
  const owner = await call(base, '/auth/password/sign-up', {
    headers: internal,
    body: { email: `owner-${randomBytes(4).toString('hex')}@example.com`, password: 'owner-password-1' },
  });
  expect(owner.status).toBe(200);
  const project = await call(base, '/internal/projects', {
    headers: { ...internal, 'x-latch-access-token': owner.body.access_token },
    body: { display_name: displayName },
  });
  expect(project.status).toBe(201);
  const id = project.body.id as string;
  const keys = await call(base, '/internal/api-keys', {
    headers: { 'x-latch-project-id': id, 'x-latch-access-type': 'admin', 'x-latch-admin-access-token': owner.body.access_token },
    body: { description: displayName, has_publishable_client_key: true, has_secret_server_key: true, has_super_secret_admin_key: false },
  });
  expect(keys.status).toBe(201);
  return {
    id,
    keySetId: keys.body.id as string,
    client: (accessToken) => ({
      'x-latch-project-id': id,
      'x-latch-access-type': 'client',
      'x-latch-publishable-client-key': keys.body.publishable_client_key,
      ...(accessToken ? { 'x-latch-access-token': accessToken } : {}),
    }),
    server: () => ({ 'x-latch-project-id': id, 'x-latch-access-type': 'server', 'x-latch-secret-server-key': keys.body.secret_server_key }),
    admin: () => ({ 'x-latch-project-id': id, 'x-latch-access-type': 'admin', 'x-latch-admin-access-token': owner.body.access_token }),
  };
}

/** A fresh PostgreSQL database (dropped by the cleanups); returns its URL and name. */
export async function freshPostgresDatabase(adminUrl: string, prefix: string, cleanups: Cleanups): Promise<{ url: string; name: string }> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  cleanups.push(async () => {
    const again = new pg.Client({ connectionString: adminUrl });
    await again.connect();
    await again.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await again.end();
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), name };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether PostgreSQL answers at `adminUrl` (within 2 s): the tests that need it are skipped otherwise. */
export async function postgresReachable(adminUrl: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}
