import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../test/harness.js';
import { openDatabase } from './kysely.js';
import { precompiled } from './precompiled.js';

const h = useHarness();

describe('precompiled', () => {
  it('compiles once and binds each call its own parameters', async () => {
    let builds = 0;
    const pair = precompiled((db, a: string, b: number) => {
      builds++;
      return db.selectNoFrom([sql<string>`${a}::text`.as('a'), sql<number>`${b}::int`.as('b')]);
    });
    expect(await pair(h.latch.deps.db, 'x', 1)).toEqual([{ a: 'x', b: 1 }]);
    expect(await pair(h.latch.deps.db, 'y', 2)).toEqual([{ a: 'y', b: 2 }]);
    expect(builds).toBe(1);
  });

  it('refuses a query whose SQL binds the parameters in another order', async () => {
    const swapped = precompiled((db, a: string, b: string) => db.selectNoFrom([sql<string>`${b}::text`.as('b'), sql<string>`${a}::text`.as('a')]));
    await expect(swapped(h.latch.deps.db, 'first', 'second')).rejects.toThrow(/not the parameters in their given order/);
  });

  it('runs inside a transaction with the transaction', async () => {
    const one = precompiled((db, id: string) => db.selectFrom('projects').select('id').where('id', '=', id));
    const rows = await h.latch.deps.db.transaction().execute((trx) => one(trx, 'internal'));
    expect(rows).toEqual([{ id: 'internal' }]);
  });

  it.runIf(process.env.LATCH_TEST_DB === 'postgres')('runs as a named prepared statement on PostgreSQL, prepared once per connection', async () => {
    const byId = precompiled((db, id: string) => db.selectFrom('projects').select('display_name').where('id', '=', id));
    const prepared = await h.latch.deps.db.transaction().execute(async (trx) => {
      expect(await byId(trx, 'internal')).toHaveLength(1);
      expect(await byId(trx, 'no-such-project')).toEqual([]);
      // Other text on the same connection stays unnamed.
      await sql`select 1`.execute(trx);
      return (await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(trx)).rows;
    });
    const mine = prepared.filter((row) => row.statement.includes('"display_name"'));
    expect(mine).toHaveLength(1);
    expect(mine[0]!.name).toMatch(/^latch_\d+$/);
    expect(prepared.some((row) => row.statement === 'select 1')).toBe(false);
  });

  it.runIf(process.env.LATCH_TEST_DB === 'postgres')('names no statement when prepared statements are off (DATABASE_PREPARED_STATEMENTS=false)', async () => {
    if (h.database.kind !== 'postgres') throw new Error('expected PostgreSQL');
    const { db, close } = await openDatabase({ ...h.database, poolSize: 1, preparedStatements: false });
    try {
      const byId = precompiled((d, id: string) => d.selectFrom('projects').select('description').where('id', '=', id));
      const prepared = await db.transaction().execute(async (trx) => {
        expect(await byId(trx, 'internal')).toHaveLength(1);
        return (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(trx)).rows;
      });
      expect(prepared).toEqual([]);
    } finally {
      await close();
    }
  });
});
