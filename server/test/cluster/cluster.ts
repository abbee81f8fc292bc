import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type ChildServer, type Cleanups, freshPostgresDatabase, killHard, startServer } from '../child-server.js';
import { type Daemon, freePort, startHaproxy, startPgBouncer, waitForPort } from './processes.js';

/**
 * The local cluster of `npm run test:cluster` (issue 21): a fresh database on the machine's
 * PostgreSQL, PgBouncer in transaction mode in front of it, three Latch instances (child processes)
 * that reach the database through PgBouncer with DATABASE_PREPARED_STATEMENTS=false, and HAProxy
 * round-robin in front of them. Instances 1 and 2 also LISTEN for cache invalidations straight
 * on PostgreSQL (DATABASE_DIRECT_URL); instance 3 has no direct URL, so it shows the fallback: its
 * project/key cache only expires (5 s).
 */

export const ADMIN_URL = process.env.LATCH_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface Instance {
  /** 1-based, as in the report. */
  n: number;
  port: number;
  url: string;
  env: Record<string, string>;
  server: ChildServer | null;
}

export interface Cluster {
  /** The balancer's URL: what clients use. */
  url: string;
  instances: Instance[];
  pgbouncer: Daemon;
  balancer: Daemon;
  /** The fresh database, straight on PostgreSQL (for the test's own checks). */
  directUrl: string;
  /** A query on a new direct connection (it survives PostgreSQL restarts between calls). */
  query: <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<R[]>;
  kill: (n: number) => Promise<void>;
  /** Starts a killed instance again, on its port (the balancer's health check takes it back). */
  revive: (n: number) => Promise<void>;
}

export async function startCluster(cleanups: Cleanups, extraEnv: Record<string, string> = {}): Promise<Cluster> {
  const database = await freshPostgresDatabase(ADMIN_URL, 'latch_cluster', cleanups);
  const admin = new URL(ADMIN_URL);
  const pgbouncer = await startPgBouncer({ host: admin.hostname, port: Number(admin.port || 5432), user: decodeURIComponent(admin.username) }, cleanups);
  const pooled = new URL(database.url);
  pooled.port = String(pgbouncer.port);
  const secret = randomBytes(48).toString('base64url');
  const ports = [await freePort(), await freePort(), await freePort()];
  const instances: Instance[] = ports.map((port, i) => ({
    n: i + 1,
    port,
    url: `http://127.0.0.1:${port}`,
    server: null,
    env: {
      PORT: String(port),
      LATCH_SECRET: secret,
      LATCH_BASE_URL: 'http://127.0.0.1',
      DATABASE_URL: pooled.toString(),
      DATABASE_PREPARED_STATEMENTS: 'false',
      DATABASE_POOL_SIZE: '10',
      ...(i < 2 ? { DATABASE_DIRECT_URL: database.url } : {}),
      ...extraEnv,
    },
  }));
  const start = async (instance: Instance) => {
    const server = await startServer(instance.env, cleanups);
    instance.server = server;
    // An instance that dies on its own (not by kill()) is a finding: say why.
    server.child.once('exit', (code, signal) => {
      if (signal !== 'SIGKILL') console.error(`[cluster] instance ${instance.n} exited (${code ?? signal}):\n${server.output().slice(-3000)}`);
    });
  };
  // The first one applies the migrations (the lock row makes the others wait anyway).
  await start(instances[0]!);
  await Promise.all(instances.slice(1).map(start));
  const balancer = await startHaproxy(ports, cleanups);
  const query = async <R extends pg.QueryResultRow>(text: string, values: unknown[] = []) => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      return (await client.query<R>(text, values)).rows;
    } finally {
      await client.end();
    }
  };
  const byNumber = (n: number) => instances[n - 1]!;
  return {
    url: `http://127.0.0.1:${balancer.port}`,
    instances,
    pgbouncer,
    balancer,
    directUrl: database.url,
    query,
    kill: async (n) => {
      const instance = byNumber(n);
      if (instance.server) await killHard(instance.server);
    },
    revive: async (n) => {
      await start(byNumber(n));
      await waitForPort(byNumber(n).port);
    },
  };
}
