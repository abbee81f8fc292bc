import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
} from 'kysely';
import type { Database } from './kysely.js';
import { isDatabaseUnavailable } from './errors.js';
import type { DB } from './schema.js';

/**
 * The read replica (issue 21, item 4): with DATABASE_READ_URL set, `deps.readDb` sends the heavy
 * reads that tolerate replication lag (user lists and search, metrics, server/admin team lists,
 * project lists, email lists, payment transactions) to a streaming replica; everything else, the
 * auth hot path, every write and every read that must see the caller's own last write, stays on
 * `deps.db` (the primary). docs/scaling.md lists which reads go where and why.
 *
 * `readDb` is a Kysely whose every statement is tried on the replica and, when the replica fails,
 * run again on the primary: a replica that is down, restarting, cut off, still behind a migration
 * (a column it does not have yet) or that cancelled the query for a recovery conflict never turns
 * into an error for the caller. A replica that cannot be reached is left alone for
 * REPLICA_RETRY_AFTER_MS (its reads go straight to the primary, with no connect attempt each), then
 * tried again. Running a read twice is safe; running a write on it is refused up front (a write
 * through readDb is a bug, and the replica would refuse it anyway).
 */

/** How long reads skip an unreachable replica before it is tried again. */
export const REPLICA_RETRY_AFTER_MS = 5_000;

/** How long a read waits for a replica connection before the primary serves it instead. */
export const REPLICA_CONNECT_TIMEOUT_MS = 2_000;

/** Process-wide counts for /metrics (one replica per process). */
export const readReplicaStats = {
  /** Reads the replica answered. */
  replica: 0,
  /** Reads of readDb the primary answered (the replica failed or was being skipped). */
  primary: 0,
  /** Replica failures that sent a read to the primary. */
  fallbacks: 0,
  /** 1 while the replica is in use, 0 while it is skipped after a failure; null without a replica. */
  up: null as number | null,
};

type Warn = (message: string, extra?: Record<string, unknown>) => void;

const WRITE_NODES = new Set(['InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode', 'MergeQueryNode']);

function isWrite(query: CompiledQuery): boolean {
  if (WRITE_NODES.has(query.query.kind)) return true;
  // Raw SQL (sql`…`, precompiled queries): only plain reads are allowed.
  return query.query.kind === 'RawNode' && !/^\s*(\(\s*)*(select|with|values|table)\b/i.test(query.sql);
}

/** Routes single statements to the replica, or to the primary while the replica is failing. */
export class ReadRouter {
  private downUntil = 0;

  constructor(
    private readonly replica: Database,
    private readonly primary: Database,
    private readonly warn: Warn,
    private readonly now: () => number = Date.now,
  ) {
    readReplicaStats.up = 1;
  }

  async execute<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (isWrite(query)) throw new Error('readDb serves reads only: run writes on deps.db');
    if (this.now() >= this.downUntil) {
      try {
        const result = await this.replica.executeQuery<R>(query);
        if (readReplicaStats.up === 0) this.warn('the read replica answers again: lag-tolerant reads go back to it');
        readReplicaStats.up = 1;
        readReplicaStats.replica++;
        return result;
      } catch (error) {
        // A statement the replica refused as a write (a data-modifying CTE the guard above cannot
        // see) is a bug to surface, not a read to rerun.
        if ((error as { code?: unknown } | null)?.code === '25006') throw error;
        readReplicaStats.fallbacks++;
        if (isDatabaseUnavailable(error)) {
          // Only an unreachable replica is skipped for a while; a query it refused for another
          // reason (a recovery conflict, a column a migration has not replayed yet) is just rerun.
          if (readReplicaStats.up !== 0) {
            this.warn(`the read replica cannot be reached: reads go to the primary, the replica is tried again in ${REPLICA_RETRY_AFTER_MS / 1000} s`, {
              error: error instanceof Error ? error.message : String(error),
            });
          }
          readReplicaStats.up = 0;
          this.downUntil = this.now() + REPLICA_RETRY_AFTER_MS;
        }
      }
    }
    const result = await this.primary.executeQuery<R>(query);
    readReplicaStats.primary++;
    return result;
  }

  destroy(): Promise<void> {
    readReplicaStats.up = null;
    return this.replica.destroy();
  }
}

/** A connection that holds nothing: each statement is routed on its own. */
class RoutedConnection implements DatabaseConnection {
  constructor(private readonly router: ReadRouter) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.router.execute<R>(query);
  }

  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('readDb does not stream: use deps.db');
  }
}

class ReadRouterDriver implements Driver {
  constructor(private readonly router: ReadRouter) {}
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return new RoutedConnection(this.router);
  }
  // A transaction would have to stay on one server: reads that need one run on deps.db.
  async beginTransaction(): Promise<void> {
    throw new Error('readDb runs single statements, not transactions: use deps.db');
  }
  async commitTransaction(): Promise<void> {}
  async rollbackTransaction(): Promise<void> {}
  async releaseConnection(): Promise<void> {}
  destroy(): Promise<void> {
    return this.router.destroy();
  }
}

class ReadRouterDialect implements Dialect {
  constructor(private readonly router: ReadRouter) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver() {
    return new ReadRouterDriver(this.router);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
}

/**
 * `deps.readDb` over a replica (a Kysely on DATABASE_READ_URL) with the primary as its fallback.
 * Destroying it closes the replica's pool only; the primary belongs to its opener.
 */
export function readReplicaDatabase(replica: Database, primary: Database, warn: Warn, now: () => number = Date.now): Database {
  return new Kysely<DB>({ dialect: new ReadRouterDialect(new ReadRouter(replica, primary, warn, now)) });
}
