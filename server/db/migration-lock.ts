import { type Kysely, type MigrationLockOptions, PostgresAdapter, sql } from 'kysely';

/**
 * The migration lock as a row lock on Kysely's lock table, not PostgreSQL's advisory locks, which
 * distributed engines speaking PostgreSQL's protocol (Citus workers, YugabyteDB) do not all share,
 * and which a transaction-mode pooler (PgBouncer) scopes to whichever server connection it lent.
 *
 * Kysely 0.28 calls acquireMigrationLock on the migration's connection *before* it opens the
 * migration transaction, and release after that transaction ended; a `FOR UPDATE` taken there in
 * autocommit would end at once. So acquire opens the transaction itself and takes the row lock in
 * it. The migrator's own BEGIN then only raises PostgreSQL's "already a transaction in progress"
 * warning, its COMMIT or ROLLBACK ends everything (migrations and lock together: a migration that
 * fails leaves no lock behind, nor does a process killed mid-migration, whose transaction dies with
 * its connection), and release's COMMIT is a no-op ("no transaction in progress"). A second
 * instance starting at the same moment waits on the row, then finds nothing left to run.
 */
export class RowLockMigrationAdapter extends PostgresAdapter {
  override async acquireMigrationLock(db: Kysely<any>, options: MigrationLockOptions): Promise<void> {
    await sql`BEGIN`.execute(db);
    // As long as Kysely's own advisory lock waits: migrations on a big table can take a while.
    await sql`SELECT set_config('lock_timeout', '3600000', true)`.execute(db);
    const table = options.lockTableSchema ? db.withSchema(options.lockTableSchema) : db;
    await table.selectFrom(options.lockTable).select('id').where('id', '=', options.lockRowId).forUpdate().execute();
  }

  override async releaseMigrationLock(db: Kysely<any>): Promise<void> {
    // Ends the transaction if the migrator did not (an error between acquire and its BEGIN).
    await sql`COMMIT`.execute(db);
  }
}
