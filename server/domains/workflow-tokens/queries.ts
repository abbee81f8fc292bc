import type { Executor } from '../../db/executor.js';

/** Workflow tokens of one tenancy; every read and write is scoped by tenancy_id. */
const COLUMNS = ['id', 'description', 'created_at', 'expires_at'] as const;

export type WorkflowTokenRow = { id: string; description: string; created_at: Date; expires_at: Date };

export async function insertWorkflowToken(
  db: Executor,
  row: { tenancy_id: string; id: string; token_hash: string; description: string; expires_at: Date },
): Promise<WorkflowTokenRow> {
  return db.insertInto('workflow_tokens').values(row).returning(COLUMNS).executeTakeFirstOrThrow();
}

export async function listWorkflowTokens(db: Executor, tenancyId: string): Promise<WorkflowTokenRow[]> {
  return db.selectFrom('workflow_tokens').select(COLUMNS).where('tenancy_id', '=', tenancyId).orderBy('created_at', 'desc').limit(1000).execute();
}

export async function deleteWorkflowToken(db: Executor, tenancyId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('workflow_tokens').where('tenancy_id', '=', tenancyId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The token of this tenancy with this hash (access/resolve.ts): a token of another project is not found. */
export async function findWorkflowTokenByHash(db: Executor, tenancyId: string, tokenHash: string): Promise<{ expires_at: Date } | undefined> {
  return db.selectFrom('workflow_tokens').select('expires_at').where('tenancy_id', '=', tenancyId).where('token_hash', '=', tokenHash).executeTakeFirst();
}
