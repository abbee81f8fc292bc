import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import { WORKFLOW_TOKEN_DEFAULT_SECONDS, WORKFLOW_TOKEN_PREFIX, type workflowTokenCreateSchema } from '../../../contract/schemas/workflow-tokens.js';
import type { AuthContext } from '../../access/context.js';
import { hashSecret, randomSecret } from '../../crypto/tokens.js';
import type { Deps } from '../../deps.js';
import * as q from './queries.js';

/**
 * Workflow tokens (admin access): a random 224-bit secret with a `wft_` prefix, stored as its
 * SHA-256 only, bound to one tenancy and always expiring. What it grants is server access to that
 * project (access/resolve.ts), nothing at the admin level.
 */
export async function createWorkflowToken(
  deps: Deps,
  auth: AuthContext,
  input: z.infer<typeof workflowTokenCreateSchema>,
): Promise<{ row: q.WorkflowTokenRow; token: string }> {
  const token = `${WORKFLOW_TOKEN_PREFIX}${randomSecret()}`;
  const row = await q.insertWorkflowToken(deps.db, {
    tenancy_id: auth.tenancy.id,
    id: randomUUID(),
    token_hash: hashSecret(token),
    description: input.description ?? '',
    expires_at: new Date(Date.now() + (input.expires_in_seconds ?? WORKFLOW_TOKEN_DEFAULT_SECONDS) * 1000),
  });
  return { row, token };
}

export function listWorkflowTokens(deps: Deps, auth: AuthContext): Promise<q.WorkflowTokenRow[]> {
  return q.listWorkflowTokens(deps.db, auth.tenancy.id);
}

/** Revocation is deletion: the token is refused (WORKFLOW_TOKEN_DOES_NOT_EXIST) from the next request on. */
export async function revokeWorkflowToken(deps: Deps, auth: AuthContext, tokenId: string): Promise<void> {
  if (!(await q.deleteWorkflowToken(deps.db, auth.tenancy.id, tokenId))) throw new KnownErrors.WorkflowTokenDoesNotExist();
}
