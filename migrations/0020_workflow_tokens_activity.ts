import type { Kysely } from 'kysely';

/** Workflow tokens, webhook-service tokens and the daily activity table (issue 19 items 3, 5, 7). Reserved; filled by its branch. */
export async function up(_db: Kysely<unknown>): Promise<void> {}

export async function down(_db: Kysely<unknown>): Promise<void> {}
