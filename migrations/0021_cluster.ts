import type { Kysely } from 'kysely';

/** Anything the multi-instance work needs (issue 21). Reserved; filled by its branch. */
export async function up(_db: Kysely<unknown>): Promise<void> {}

export async function down(_db: Kysely<unknown>): Promise<void> {}
