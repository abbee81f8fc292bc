import type { Kysely } from 'kysely';

/** Shipped empty in session 6 and already recorded as run on deployed databases, so it stays empty: the email tables live in 0017 and 0018. */
export async function up(_db: Kysely<unknown>): Promise<void> {}

export async function down(_db: Kysely<unknown>): Promise<void> {}
