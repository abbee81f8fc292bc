import { type Kysely, sql } from 'kysely';
import { runStatements } from './lib/columns.js';

/**
 * Brute-force counters (server/domains/rate-limits). One row per (bucket, key), e.g.
 * ('sign_in_email', '<tenancy>:<email>'): the attempts counted in the fixed window that ends at
 * `window_ends_at`. In the database, not in process memory, so every instance on one PostgreSQL
 * sees the same count. An expired row is dead (the next hit restarts it at 1) and is deleted
 * opportunistically; the index on window_ends_at serves that clean-up.
 *
 * UNLOGGED: every password sign-in writes here (twice: counted, then given back on success), and
 * all sign-ins from one IP update one row. Unlogged writes make no WAL, so their commits do not
 * wait for a disk flush and the hot row's lock is held for microseconds, not a flush each. The
 * price is acceptable for counters: a crash (not a clean restart) empties the table, and standbys
 * do not have it (a promoted standby starts with fresh windows).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const statements = [
    sql`CREATE UNLOGGED TABLE rate_limits (
      bucket text NOT NULL,
      key text NOT NULL,
      count integer NOT NULL,
      window_ends_at timestamptz NOT NULL,
      PRIMARY KEY (bucket, key)
    )`,
    sql`CREATE INDEX rate_limits_window_ends_idx ON rate_limits (window_ends_at)`,
  ];
  await runStatements(db, statements);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE IF EXISTS rate_limits`.execute(db);
}
