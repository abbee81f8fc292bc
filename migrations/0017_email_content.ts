import type { Kysely } from 'kysely';

/** Email themes, templates and drafts (issue 17 items 1-2). Reserved so parallel branches do not fight over the migration list; filled by its branch. */
export async function up(_db: Kysely<unknown>): Promise<void> {}

export async function down(_db: Kysely<unknown>): Promise<void> {}
