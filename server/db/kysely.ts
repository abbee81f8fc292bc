import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { lockDataDir } from './data-dir-lock.js';
import { RowLockMigrationAdapter } from './migration-lock.js';
import { RetryingKysely } from './retrying-kysely.js';
import { PGliteDialect } from './pglite-dialect.js';
import { useNamedStatements } from './prepared-statements.js';
import type { DB } from './schema.js';

export type Database = Kysely<DB>;

export type DatabaseTarget =
  | { kind: 'postgres'; url: string; poolSize: number; /** Named statements for the hot queries (default true). */ preparedStatements?: boolean }
  | { kind: 'pglite'; dataDir: string | null; loadDataDir?: Blob };

// int8 (count(*), bigint) comes back as a string from pg and as a number from PGlite; make both
// numbers. Every bigint we store (millis, counters) is far below 2^53.
pg.types.setTypeParser(20, (value) => Number(value));

/** How long a request waits for a database connection before it is answered 503. */
export const CONNECT_TIMEOUT_MS = 10_000;

/** PostgreSQL with the migration lock as a row lock (db/migration-lock.ts). */
class LatchPostgresDialect extends PostgresDialect {
  override createAdapter() {
    return new RowLockMigrationAdapter();
  }
}

/**
 * A Kysely over a pg Pool: bounded waits, no crash on a dropped connection, named statements unless
 * a transaction-mode pooler is in the way. Used for the primary and for the read replica.
 */
export function openPostgres(
  target: { url: string; poolSize: number; preparedStatements?: boolean },
  connectTimeoutMs = CONNECT_TIMEOUT_MS,
  label = 'PostgreSQL',
): Database {
  // A bounded wait for a connection: while the database (or its pooler) is down or every pooled
  // connection is busy, a request fails with DATABASE_UNAVAILABLE (503) instead of hanging.
  const pool = new pg.Pool({ connectionString: target.url, max: target.poolSize, connectionTimeoutMillis: connectTimeoutMs, keepAlive: true });
  // A pool-level error (e.g. the server restarts) must not crash the process.
  pool.on('error', (error) => console.error(`[latch] ${label} pool error:`, error.message));
  // pg-pool listens for errors only on idle clients: a client checked out (inside a transaction,
  // between two statements) whose connection drops would emit 'error' to no one, and the process
  // would die (seen in the cluster test when PgBouncer restarted). Its next query fails instead
  // (DATABASE_UNAVAILABLE), and the pool drops it on release since it is no longer queryable.
  pool.on('connect', (client) => client.on('error', () => {}));
  // Off behind a pooler in transaction mode (PgBouncer before 1.21), where a statement prepared on
  // one server connection is missing on the next.
  if (target.preparedStatements !== false) pool.on('connect', useNamedStatements);
  return new RetryingKysely<DB>({ dialect: new LatchPostgresDialect({ pool }) });
}

/** Opens the database: a pg Pool for PostgreSQL, or embedded PGlite (in memory when dataDir is null). */
export async function openDatabase(target: DatabaseTarget): Promise<{ db: Database; close: () => Promise<void> }> {
  if (target.kind === 'postgres') {
    const db = openPostgres(target);
    return { db, close: () => db.destroy() };
  }
  let unlock = () => {};
  if (target.dataDir) {
    mkdirSync(target.dataDir, { recursive: true });
    unlock = lockDataDir(target.dataDir);
  }
  let pglite: PGlite;
  try {
    pglite = await PGlite.create(target.dataDir ?? undefined, {
      extensions: { pg_trgm },
      ...(target.loadDataDir ? { loadDataDir: target.loadDataDir } : {}),
    });
  } catch (error) {
    unlock();
    throw error;
  }
  const db = new RetryingKysely<DB>({ dialect: new PGliteDialect(pglite) });
  return {
    db,
    close: async () => {
      try {
        await db.destroy();
        await pglite.close();
      } finally {
        unlock();
      }
    },
  };
}
