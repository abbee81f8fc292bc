import { type Kysely, sql } from 'kysely';

/**
 * Brute-force counters (server/domains/rate-limits). One row per (bucket, key), e.g.
 * ('sign_in_email', '<tenancy>:<email>'): the attempts counted in the fixed window that ends at
 * `window_ends_at`. In the database, not in process memory, so every instance on one PostgreSQL
 * sees the same count. An expired row is dead (the next hit restarts it at 1) and is deleted
 * opportunistically; the index on window_ends_at serves that clean-up.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const statements = [
    sql`CREATE TABLE rate_limits (
      bucket text NOT NULL,
      key text NOT NULL,
      count integer NOT NULL,
      window_ends_at timestamptz NOT NULL,
      PRIMARY KEY (bucket, key)
    )`,
    sql`CREATE INDEX rate_limits_window_ends_idx ON rate_limits (window_ends_at)`,
  ];
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE IF EXISTS rate_limits`.execute(db);
}
