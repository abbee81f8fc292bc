import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { databaseUrl, POSTGRES_ADMIN_URL } from '../test/global-setup.js';
import { openDatabase } from './kysely.js';
import { transactionRetries } from './retrying-kysely.js';

/** Deadlocks and serialization failures are retried from BEGIN; other errors are not (issue 21 item 5). */
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

describe('transaction retries', () => {
  it('an error that retrying cannot fix (a unique violation) is thrown at once, the callback ran once', async () => {
    const { db, close } = await openDatabase({ kind: 'pglite', dataDir: null });
    closers.push(close);
    await sql`CREATE TABLE retry_once (id int PRIMARY KEY)`.execute(db);
    await sql`INSERT INTO retry_once VALUES (1)`.execute(db);
    let runs = 0;
    const before = transactionRetries.count;
    const failed = db.transaction().execute(async (trx) => {
      runs++;
      await sql`INSERT INTO retry_once VALUES (1)`.execute(trx);
    });
    await expect(failed).rejects.toMatchObject({ code: '23505' });
    expect(runs).toBe(1);
    expect(transactionRetries.count).toBe(before);
  });

  it.runIf(process.env.LATCH_TEST_DB === 'postgres')(
    'two transactions that deadlock both commit: PostgreSQL aborts one (40P01) and it runs again',
    { timeout: 60_000 },
    async () => {
      const name = `latch_retry_${Date.now().toString(36)}`;
      const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      closers.push(async () => {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.end();
      });
      const { db, close } = await openDatabase({ kind: 'postgres', url: databaseUrl(name), poolSize: 4 });
      closers.push(close);
      await sql`CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL)`.execute(db);
      await sql`INSERT INTO accounts VALUES (1, 100), (2, 100)`.execute(db);

      // Each transaction locks its first row, waits until the other has locked its own, then
      // reaches for the other's: a deadlock on the first attempt, none on the retry.
      let locked = 0;
      let runs = 0;
      const bothLocked = () =>
        new Promise<void>((resolve) => {
          const check = () => (locked >= 2 ? resolve() : setTimeout(check, 5));
          check();
        });
      const move = (from: number, to: number) =>
        db.transaction().execute(async (trx) => {
          runs++;
          await sql`UPDATE accounts SET balance = balance - 10 WHERE id = ${from}`.execute(trx);
          if (runs <= 2) {
            locked++;
            await bothLocked();
          }
          await sql`UPDATE accounts SET balance = balance + 10 WHERE id = ${to}`.execute(trx);
        });
      const before = transactionRetries.count;
      await Promise.all([move(1, 2), move(2, 1)]);
      expect(runs).toBe(3);
      expect(transactionRetries.count - before).toBe(1);
      // Both transfers happened exactly once.
      expect((await sql<{ id: number; balance: number }>`SELECT id, balance FROM accounts ORDER BY id`.execute(db)).rows).toEqual([
        { id: 1, balance: 100 },
        { id: 2, balance: 100 },
      ]);
    },
  );
});
