import { type Kysely, type RawBuilder, sql } from 'kysely';

/*
 * The column sets and keys most tenant tables repeat, as SQL fragments to embed in a migration's
 * `sql` template (`${tenancyAndId()}`). Each one compiles to exactly the text the migrations spelled
 * out before (same words, same line breaks), so a migration written with them produces the same
 * statements: migrations are frozen, and these helpers must never change what an applied one ran.
 * Plain text on purpose: no application code, no identifiers taken from callers' input.
 */

/** The first two columns of a tenant table keyed by `id`: its tenancy (rows go with it) and the id. */
export function tenancyAndId(idType: 'uuid' | 'text' = 'uuid'): RawBuilder<unknown> {
  return sql.raw(`tenancy_id uuid NOT NULL REFERENCES tenancies (id) ON DELETE CASCADE,\n      id ${idType} NOT NULL`);
}

/** `created_at`, set by the database when the row is written. */
export const createdAt: RawBuilder<unknown> = sql.raw('created_at timestamptz NOT NULL DEFAULT now()');

/** `updated_at`, starting at the row's creation (the application moves it). */
export const updatedAt: RawBuilder<unknown> = sql.raw('updated_at timestamptz NOT NULL DEFAULT now()');

/** The primary key of a tenant table: led by `tenancy_id` (server/db/portable-schema.test.ts checks). */
export function tenantKey(...columns: string[]): RawBuilder<unknown> {
  return sql.raw(`PRIMARY KEY (tenancy_id, ${columns.join(', ')})`);
}

/** A row that belongs to a user of the same tenancy, deleted with the user. */
export function userForeignKey(column = 'user_id'): RawBuilder<unknown> {
  return sql.raw(`FOREIGN KEY (tenancy_id, ${column}) REFERENCES users (tenancy_id, id) ON DELETE CASCADE`);
}

/** Runs a migration's statements in order. */
export async function runStatements(db: Kysely<any>, statements: RawBuilder<unknown>[]): Promise<void> {
  for (const statement of statements) await statement.execute(db);
}

/** A migration's `down`: drops its tables, in the order given (dependents first). */
export async function dropTables(db: Kysely<any>, tables: string[]): Promise<void> {
  for (const table of tables) await sql.raw(`DROP TABLE IF EXISTS ${table}`).execute(db);
}
