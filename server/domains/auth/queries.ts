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
