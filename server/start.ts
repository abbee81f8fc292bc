import type { AddressInfo } from 'node:net';
import { type ServerResponse, createServer } from 'node:http';
import { createRequestHandler } from './app.js';
import { handleClientError } from './http/client-error.js';
import { deriveKey } from './crypto/encryption.js';
import { setPasswordHashConcurrency, warmPasswordHashing } from './crypto/passwords.js';
import { setMaxSessionsPerUser } from './domains/auth/sign-in.js';
import { type DatabaseTarget, openDatabase, openPostgres } from './db/kysely.js';
import { REPLICA_CONNECT_TIMEOUT_MS, readReplicaDatabase } from './db/read-replica.js';
import { migrateToLatest } from './db/migrate.js';
import { type Deps, createLogger } from './deps.js';
import { KeyringHolder } from './access/keyring.js';
import { ensureInternalProject } from './domains/projects/service.js';
import { type LatchEnv, loadEnv } from './env.js';
import { JOB_KINDS } from './job-kinds.js';
import { startJobWorker } from './jobs/worker.js';
import { setRenderThreads } from './domains/emails/sandbox/index.js';
import { ProjectAuthCache } from './access/project-auth-cache.js';
import { registerUnsubscribeSigner } from './domains/notifications/unsubscribe-links.js';
import { startCacheSignals } from './access/cache-signals.js';

export interface RunningLatch {
  url: string;
  port: number;
  deps: Deps;
  /** Stops accepting connections, waits for in-flight requests, then closes the database. */
  close: () => Promise<void>;
}

/** How long close() lets in-flight requests finish before cutting their connections. */
const SHUTDOWN_GRACE_MS = 8_000;

export interface StartOptions {
  env?: LatchEnv;
  /** Overrides the database the env selects (tests: in-memory PGlite or a fresh PostgreSQL database). */
  database?: DatabaseTarget;
  /** An embedded data directory to load (a PGlite dump), for fast test start-up. */
  quiet?: boolean;
}

export async function startLatch(options: StartOptions = {}): Promise<RunningLatch> {
  const env = options.env ?? loadEnv();
  const log = createLogger(options.quiet ? 'error' : env.logLevel);
  const target: DatabaseTarget =
    options.database ??
    (env.databaseUrl
      ? { kind: 'postgres', url: env.databaseUrl, poolSize: env.databasePoolSize, preparedStatements: env.databasePreparedStatements }
      : { kind: 'pglite', dataDir: env.dataDir });
  const { db, close: closeDb } = await openDatabase(target);
  const applied = await migrateToLatest(db);
  if (applied.length) log.info(`applied migrations: ${applied.join(', ')}`);

  // The replica's pool connects lazily: a replica that is down at start-up only means its reads go
  // to the primary until it answers.
  const readDb =
    target.kind === 'postgres' && env.databaseReadUrl
      ? readReplicaDatabase(
          openPostgres(
            { url: env.databaseReadUrl, poolSize: env.databasePoolSize, preparedStatements: env.databasePreparedStatements },
            REPLICA_CONNECT_TIMEOUT_MS,
          ),
          db,
          log.warn,
        )
      : db;

  let port = env.port;
  const deps: Deps = {
    db,
    readDb,
    env,
    keyring: await KeyringHolder.load(db, deriveKey(env.secret, 'signing-keys')),
    baseUrl: () => env.baseUrl ?? `http://localhost:${port}`,
    configKey: deriveKey(env.secret, 'config-secrets'),
    log,
    projectAuthCache: new ProjectAuthCache(),
  };
  // Other instances' writes to projects and keys clear this instance's cache (PostgreSQL only).
  const cacheSignals = target.kind === 'postgres' ? startCacheSignals(deps, deps.projectAuthCache) : null;
  await ensureInternalProject(deps);
  const forgetUnsubscribeSigner = registerUnsubscribeSigner(deps);
  setPasswordHashConcurrency(env.passwordHashConcurrency, env.passwordHashQueuePerProject);
  setMaxSessionsPerUser(env.quotas.sessionsPerUser);
  await warmPasswordHashing();

  const handler = createRequestHandler(deps);
  const server = createServer(handler.serverOptions, handler);
  server.keepAliveTimeout = 65_000;
  // Requests the HTTP parser refuses (headers too large, malformed, too slow) get catalogued errors.
  server.on('clientError', handleClientError);
  // While closing, every response says `connection: close`, so a keep-alive client cannot hold the
  // server open by sending one more request on a socket it already has. Responses already under
  // way when close() starts are marked too (shouldKeepAlive is read when their headers go out).
  let closing = false;
  const inFlight = new Set<ServerResponse>();
  server.on('request', (_req, res: ServerResponse) => {
    if (closing) res.shouldKeepAlive = false;
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(env.port, env.host, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  // Runs the outbox's jobs, email delivery among them (every instance runs one; they share it safely).
  if (env.email.renderThreads > 0) setRenderThreads(env.email.renderThreads);
  const jobWorker = startJobWorker(deps, JOB_KINDS, { pollIntervalMs: env.email.pollIntervalMs, leaseMs: env.email.jobLeaseMs });
  const url = env.baseUrl ?? `http://localhost:${port}`;
  log.info(
    `storage: ${target.kind === 'postgres' ? `PostgreSQL${readDb !== db ? ' (lag-tolerant reads on DATABASE_READ_URL)' : ''}` : `embedded PGlite (${target.dataDir ?? 'in memory'})`}`,
  );

  return {
    url,
    port,
    deps,
    close: async () => {
      closing = true;
      forgetUnsubscribeSigner();
      for (const res of inFlight) if (!res.headersSent) res.shouldKeepAlive = false;
      await new Promise<void>((resolve) => {
        // close() stops accepting and resolves once every connection has ended. Sockets that are idle
        // now are closed at once; sockets busy with a request finish it (their response carries
        // `connection: close`) and are swept as they turn idle. After the grace period the rest
        // are cut, so a stuck client cannot keep the process alive.
        server.close(() => resolve());
        server.closeIdleConnections();
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        const cut = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
        server.once('close', () => {
          clearInterval(sweep);
          clearTimeout(cut);
        });
      });
      // Only now, with no request left that could still query it, does the database go away.
      await jobWorker.stop();
      await cacheSignals?.close();
      if (readDb !== db) await readDb.destroy();
      await closeDb();
    },
  };
}
