import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Migrator, sql } from 'kysely';
import { afterAll, expect, it } from 'vitest';
import { openDatabase } from '../server/db/kysely.js';
import { sealEmailBody } from '../server/domains/emails/sealed-body.js';
import { startLatch } from '../server/start.js';
import { testEnv } from '../server/test/harness.js';
import { migrations } from './index.js';

/**
 * Migration 0007 (the jobs outbox) on a database that has pending emails from before it: each
 * pending email becomes a pending job with its attempts, due time and last error; sent and failed
 * emails get none; down and up again keep the due time; and the upgraded server delivers the email.
 */

const dir = mkdtempSync(path.join(tmpdir(), 'latch-0007-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const migrator = (db: Awaited<ReturnType<typeof openDatabase>>['db']) =>
  new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'latch_migrations',
    migrationLockTableName: 'latch_migrations_lock',
  });

it('turns pending emails into pending jobs (nothing lost at upgrade), and the upgraded server settles them', { timeout: 120_000 }, async () => {
  const env = testEnv({ email: { pollIntervalMs: 20 } });
  const target = { kind: 'pglite' as const, dataDir: dir };
  const pending = '6a1f2c3e-0000-4000-8000-000000000001';
  const sent = '6a1f2c3e-0000-4000-8000-000000000002';
  const due = new Date(Date.now() - 60_000);
  {
    const { db, close } = await openDatabase(target);
    const before = await migrator(db).migrateTo('0006_auth_claims');
    expect(before.error).toBeUndefined();
    // Written as the pre-0007 server wrote them (email_outbox had next_attempt_at then).
    for (const [id, state, attempts, error] of [
      [pending, 'pending', 2, 'The SMTP server refused the connection.'],
      [sent, 'sent', 1, null],
    ] as const) {
      const body = sealEmailBody(env.secret, id, { html: '<p>hello</p>', text: 'hello' });
      await sql`INSERT INTO email_outbox (id, tenancy_id, to_email, subject, html, text, state, attempts, error, next_attempt_at)
        VALUES (${id}, NULL, 'upgrade@example.com', 'Before the upgrade', ${body.html}, ${body.text}, ${state}, ${attempts}, ${error}, ${due})`.execute(db);
    }
    expect((await migrator(db).migrateToLatest()).error).toBeUndefined();
    const jobs = await db.selectFrom('jobs').selectAll().execute();
    expect(jobs).toEqual([
      expect.objectContaining({
        id: pending,
        kind: 'email',
        tenancy_id: null,
        payload: { email_id: pending },
        status: 'pending',
        attempts: 2,
        last_error: 'The SMTP server refused the connection.',
        leased_at: null,
      }),
    ]);
    expect(jobs[0]!.next_attempt_at.getTime()).toBe(due.getTime());

    // Down past 0007 and up again (later migrations are undone first): the due time goes back to
    // the email row and returns to its job.
    expect((await migrator(db).migrateTo('0006_auth_claims')).error).toBeUndefined();
    const back = await sql<{ next_attempt_at: Date }>`SELECT next_attempt_at FROM email_outbox WHERE id = ${pending}`.execute(db);
    expect(new Date(back.rows[0]!.next_attempt_at).getTime()).toBe(due.getTime());
    expect((await migrator(db).migrateToLatest()).error).toBeUndefined();
    expect(await db.selectFrom('jobs').select(['id', 'attempts']).execute()).toEqual([{ id: pending, attempts: 2 }]);
    await close();
  }

  // The upgraded server's worker picks the job up: no SMTP server here, so the email is settled
  // as not-delivered on its third attempt.
  const latch = await startLatch({ env, database: target, quiet: true });
  try {
    const started = Date.now();
    for (;;) {
      const row = await latch.deps.db.selectFrom('email_outbox').select(['state', 'attempts', 'error']).where('id', '=', pending).executeTakeFirstOrThrow();
      if (row.state !== 'pending') {
        expect(row).toMatchObject({ state: 'not-delivered', attempts: 3 });
        break;
      }
      if (Date.now() - started > 15_000) throw new Error(`the pending email stayed ${JSON.stringify(row)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await latch.deps.db.selectFrom('jobs').select(['status', 'attempts']).where('id', '=', pending).executeTakeFirstOrThrow()).toEqual({
      status: 'done',
      attempts: 3,
    });
    expect(await latch.deps.db.selectFrom('email_outbox').select(['state', 'attempts']).where('id', '=', sent).executeTakeFirstOrThrow()).toEqual({
      state: 'sent',
      attempts: 1,
    });
  } finally {
    await latch.close();
  }
});
