import { sql } from 'kysely';
import type { Executor } from '../../db/executor.js';

/** The signing generations created after `notBefore`, newest first. */
export async function listSigningGenerations(db: Executor, notBefore: Date) {
  return db
    .selectFrom('signing_key_generations')
    .select(['generation', 'seed_encrypted', 'created_at'])
    .where('created_at', '>', notBefore)
    .orderBy('generation', 'desc')
    .execute();
}

/** The highest generation number ever used (0 when none): numbers are never reused. */
export async function maxSigningGeneration(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('signing_key_generations')
    .select(sql<number>`coalesce(max(generation), 0)::integer`.as('max'))
    .executeTakeFirst();
  return Number(row?.max ?? 0);
}

/**
 * Adds a generation, unless its number is taken (another instance rotated at the same moment) or,
 * when `unlessCreatedAfter` is given, a generation was created after it (another instance rotated
 * since we read). One statement, so the check and the insert cannot be split by a concurrent one.
 */
export async function insertSigningGeneration(
  db: Executor,
  row: { generation: number; seed_encrypted: string },
  unlessCreatedAfter: Date | null,
): Promise<void> {
  await db
    .insertInto('signing_key_generations')
    .columns(['generation', 'seed_encrypted'])
    .expression(() => {
      const values = db.selectNoFrom([sql<number>`${row.generation}::integer`.as('generation'), sql<string>`${row.seed_encrypted}::text`.as('seed_encrypted')]);
      return unlessCreatedAfter === null
        ? values
        : values.where(({ not, exists, selectFrom }) =>
            not(exists(selectFrom('signing_key_generations').select('generation').where('created_at', '>', unlessCreatedAfter))),
          );
    })
    .onConflict((oc) => oc.column('generation').doNothing())
    .execute();
}

// ---------------------------------------------------------------------------------------------
// CLI login requests (auth/cli.ts, migration 0011). Every time is the database's (now()), so all
// instances judge expiry and the poll interval by one clock.

/** A CLI login request as the poll and the confirm page judge it, with the database's verdicts on time. */
export interface CliAttemptState {
  id: string;
  state: 'waiting' | 'approved' | 'denied' | 'used';
  approved_user_id: string | null;
  requester_ip: string | null;
  created_at: Date;
  expires_at: Date;
  expired: boolean;
  /** Polled less than the minimum interval ago. */
  too_soon: boolean;
}

export async function insertCliAttempt(
  db: Executor,
  row: { tenancy_id: string; id: string; polling_code_hash: string; login_code_hash: string; requester_ip: string | null; expires_at: Date },
): Promise<void> {
  await db.insertInto('cli_auth_attempts').values(row).execute();
}

/**
 * Locks and reads the request of a code hash in this tenancy (FOR UPDATE: two polls, or a poll
 * and the confirm page, take turns, so a request is picked up at most once).
 */
export async function lockCliAttempt(
  db: Executor,
  tenancyId: string,
  by: 'polling_code_hash' | 'login_code_hash',
  codeHash: string,
  minPollIntervalMillis: number,
): Promise<CliAttemptState | undefined> {
  return db
    .selectFrom('cli_auth_attempts')
    .select(['id', 'state', 'approved_user_id', 'requester_ip', 'created_at', 'expires_at'])
    .select(sql<boolean>`expires_at <= now()`.as('expired'))
    .select(sql<boolean>`coalesce(last_polled_at > now() - make_interval(secs => ${minPollIntervalMillis / 1000}), false)`.as('too_soon'))
    .where('tenancy_id', '=', tenancyId)
    .where(by, '=', codeHash)
    .forUpdate()
    .executeTakeFirst();
}

export async function markCliAttemptPolled(db: Executor, tenancyId: string, id: string): Promise<void> {
  await db
    .updateTable('cli_auth_attempts')
    .set({ last_polled_at: sql<Date>`now()` })
    .where((eb) => eb.and({ tenancy_id: tenancyId, id }))
    .execute();
}

export async function setCliAttemptState(
  db: Executor,
  tenancyId: string,
  id: string,
  change: { state: 'approved' | 'denied'; approved_user_id: string | null } | { state: 'used' },
): Promise<void> {
  const set =
    change.state === 'used'
      ? { state: change.state, used_at: sql<Date>`now()` }
      : { state: change.state, approved_user_id: change.approved_user_id, decided_at: sql<Date>`now()` };
  await db.updateTable('cli_auth_attempts').set(set).where('tenancy_id', '=', tenancyId).where('id', '=', id).execute();
}

/**
 * Deletes up to `batch` requests that expired more than `graceSeconds` ago. Until then a late poll
 * still hears "expired" or "used" rather than "no such code".
 */
export async function deleteOldCliAttempts(db: Executor, graceSeconds: number, batch: number): Promise<void> {
  await db
    .deleteFrom('cli_auth_attempts')
    // Ids are random UUIDs: one is one request, whatever its tenancy.
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('cli_auth_attempts')
        .select('id')
        .where('expires_at', '<', sql<Date>`now() - make_interval(secs => ${graceSeconds})`)
        .limit(batch),
    )
    .execute();
}
