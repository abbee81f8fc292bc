import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { type Kysely, Migrator, sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { migrations } from '../../migrations/index.js';
import { databaseUrl, POSTGRES_ADMIN_URL } from '../test/global-setup.js';
import { type Database, openDatabase } from './kysely.js';
import { migrateToLatest } from './migrate.js';

/**
 * Latch's schema and locks stay portable to engines that speak PostgreSQL's protocol but are
 * distributed (Citus, YugabyteDB) or sit behind a transaction-mode pooler (issue 21 item 5):
 * no advisory locks, triggers, functions, enums, LOCK TABLE, extensions beyond pg_trgm, one DDL
 * statement per step, and every unique key of a tenant table led by tenancy_id.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return name === 'node_modules' ? [] : sourceFiles(file);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [file] : [];
  });
}

const FORBIDDEN: [RegExp, string][] = [
  [/pg_advisory/i, 'advisory lock (use a row lock)'],
  [/\bLOCK\s+TABLE\b/i, 'LOCK TABLE'],
  [/\bCREATE\s+(?:OR\s+REPLACE\s+)?TRIGGER\b/i, 'trigger'],
  [/\bCREATE\s+(?:OR\s+REPLACE\s+)?(?:FUNCTION|PROCEDURE)\b/i, 'stored function'],
  [/plpgsql|\bDO\s+\$\$/i, 'PL/pgSQL'],
  [/\bCREATE\s+TYPE\b/i, 'custom type or enum (use text + CHECK)'],
  [/\bCREATE\s+EXTENSION\b(?![^`]*\bpg_trgm\b)/i, 'extension other than pg_trgm'],
];

describe('portable SQL', () => {
  it('no migration or server module uses a construct distributed PostgreSQL engines lack', () => {
    const found: string[] = [];
    for (const file of [...sourceFiles(path.join(ROOT, 'migrations')), ...sourceFiles(path.join(ROOT, 'server'))]) {
      // Comments may name what they avoid; code may not.
      const text = readFileSync(file, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '');
      for (const [pattern, what] of FORBIDDEN) if (pattern.test(text)) found.push(`${path.relative(ROOT, file)}: ${what}`);
    }
    expect(found).toEqual([]);
  });

  it('each migration statement holds one SQL command', () => {
    const found: string[] = [];
    for (const file of sourceFiles(path.join(ROOT, 'migrations'))) {
      // A `;` followed by more SQL inside one sql`…` template is a second command.
      for (const [, body] of readFileSync(file, 'utf8').matchAll(/sql`([^`]*)`/g)) {
        if (/;\s*\S/.test(body!)) found.push(`${path.relative(ROOT, file)}: ${body!.slice(0, 80)}`);
      }
    }
    expect(found).toEqual([]);
  });
});

/**
 * Keys that must be global, each with its reason. An OAuth provider's callback arrives with only
 * the state Latch gave it: the flow's tenancy is known once the flow is found by its state. (On a
 * distributed engine: put the tenancy into the state, or keep oauth_flows on the coordinator.)
 */
const GLOBAL_KEYS = new Set(['oauth_flows.oauth_flows_state_hash_key']);

/** Unique indexes (primary keys included) of tables with a tenancy_id column not led by it. */
async function keysNotLedByTenancy(db: Database): Promise<string[]> {
  const { rows } = await sql<{ table: string; index: string; nullable: boolean }>`
    SELECT t.relname AS table, i.relname AS index, NOT ta.attnotnull AS nullable
    FROM pg_index ix
    JOIN pg_class t ON t.oid = ix.indrelid
    JOIN pg_class i ON i.oid = ix.indexrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    JOIN pg_attribute ta ON ta.attrelid = t.oid AND ta.attname = 'tenancy_id'
    LEFT JOIN pg_attribute first ON first.attrelid = t.oid AND first.attnum = ix.indkey[0]
    WHERE n.nspname = current_schema() AND ix.indisunique AND first.attname IS DISTINCT FROM 'tenancy_id'
    ORDER BY 1, 2`.execute(db);
  // A nullable tenancy_id marks a system table (jobs, the email outbox: an owner's sign-up mail
  // belongs to no tenancy); its rows are keyed by their own id.
  return rows.filter((row) => !row.nullable && !GLOBAL_KEYS.has(`${row.table}.${row.index}`)).map((row) => `${row.table}.${row.index}`);
}

async function advisoryLocksHeld(db: Database): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory'`.execute(db);
  return rows[0]!.n;
}

const opened: { close: () => Promise<void> }[] = [];
afterAll(async () => {
  for (const database of opened) await database.close();
});

describe('the migrated schema', () => {
  it('leads every unique key of a tenant table with tenancy_id', { timeout: 60_000 }, async () => {
    const database = await openDatabase({ kind: 'pglite', dataDir: null });
    opened.push(database);
    await migrateToLatest(database.db);
    expect(await keysNotLedByTenancy(database.db)).toEqual([]);
  });

  it('a migration that fails leaves no lock behind: the next run applies the fixed one', { timeout: 60_000 }, async () => {
    const database = await openDatabase({ kind: 'pglite', dataDir: null });
    opened.push(database);
    const run = (up: (db: Kysely<any>) => Promise<void>) =>
      new Migrator({
        db: database.db,
        provider: {
          getMigrations: async () => ({
            a: { up: async (db) => void (await sql`CREATE TABLE a_table (id int)`.execute(db)) },
            b: { up },
          }),
        },
        migrationTableName: 'lock_test_migrations',
        migrationLockTableName: 'lock_test_migrations_lock',
      }).migrateToLatest();
    const failed = await run(async (db) => {
      await sql`CREATE TABLE b_table (id int)`.execute(db);
      throw new Error('b is broken');
    });
    expect(String(failed.error)).toContain('b is broken');
    // All or nothing: a's table went with the failed batch.
    expect((await sql`SELECT to_regclass('a_table') AS t`.execute(database.db)).rows).toEqual([{ t: null }]);
    const fixed = await run(async (db) => void (await sql`CREATE TABLE b_table (id int)`.execute(db)));
    expect(fixed.error).toBeUndefined();
    expect(fixed.results?.map((r) => [r.migrationName, r.status])).toEqual([
      ['a', 'Success'],
      ['b', 'Success'],
    ]);
  });
});

describe.runIf(process.env.LATCH_TEST_DB === 'postgres')('on PostgreSQL', () => {
  it('two instances migrating one database at once take a row lock, not an advisory lock, and apply each migration once', { timeout: 120_000 }, async () => {
    const name = `latch_lock_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const first = await openDatabase({ kind: 'postgres', url: databaseUrl(name), poolSize: 2 });
    const second = await openDatabase({ kind: 'postgres', url: databaseUrl(name), poolSize: 2 });
    const watcher = await openDatabase({ kind: 'postgres', url: databaseUrl(name), poolSize: 1 });
    try {
      let advisory = 0;
      let watching = true;
      const watch = (async () => {
        while (watching) {
          advisory = Math.max(advisory, await advisoryLocksHeld(watcher.db));
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })();
      const [a, b] = await Promise.all([migrateToLatest(first.db), migrateToLatest(second.db)]);
      watching = false;
      await watch;
      // One instance applied everything, the other waited on the row and found nothing to do.
      expect([a.length, b.length].sort((x, y) => x - y)).toEqual([0, Object.keys(migrations).length]);
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM latch_migrations`.execute(watcher.db);
      expect(rows[0]!.n).toBe(Object.keys(migrations).length);
      expect(advisory).toBe(0);
      expect(await keysNotLedByTenancy(watcher.db)).toEqual([]);
    } finally {
      await first.close();
      await second.close();
      await watcher.close();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  });
});
