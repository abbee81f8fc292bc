import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { Deps } from '../../deps.js';
import { hashSecret, lastFour, newProjectKey } from '../../crypto/tokens.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { AuthContext } from '../../access/context.js';
import * as q from './queries.js';
import { type ApiKeySetDto, toApiKeySetDto } from './dto.js';
import type { apiKeySetCreateSchema, apiKeySetCreatedSchema } from '../../../contract/schemas/api-keys.js';

/** Creates a key set; the full keys are in this response only, the table keeps SHA-256 hashes. */
export async function createApiKeySet(
  deps: Deps,
  auth: AuthContext,
  input: z.infer<typeof apiKeySetCreateSchema>,
): Promise<z.infer<typeof apiKeySetCreatedSchema>> {
  if (!input.has_publishable_client_key && !input.has_secret_server_key && !input.has_super_secret_admin_key) {
    throw new KnownErrors.SchemaError(
      'Request validation failed:\n  - at least one of has_publishable_client_key, has_secret_server_key, has_super_secret_admin_key must be true',
    );
  }
  if (input.expires_at_millis != null && input.expires_at_millis <= Date.now()) {
    throw new KnownErrors.SchemaError('Request validation failed:\n  - expires_at_millis must be in the future');
  }
  const pck = input.has_publishable_client_key ? newProjectKey('publishable_client_key') : null;
  const ssk = input.has_secret_server_key ? newProjectKey('secret_server_key') : null;
  const sak = input.has_super_secret_admin_key ? newProjectKey('super_secret_admin_key') : null;
  const row = await q.insertApiKeySet(deps.db, {
    id: randomUUID(),
    project_id: auth.project.id,
    description: input.description,
    expires_at: input.expires_at_millis != null ? new Date(input.expires_at_millis) : null,
    publishable_client_key_hash: pck && hashSecret(pck),
    publishable_client_key_last_four: pck && lastFour(pck),
    secret_server_key_hash: ssk && hashSecret(ssk),
    secret_server_key_last_four: ssk && lastFour(ssk),
    super_secret_admin_key_hash: sak && hashSecret(sak),
    super_secret_admin_key_last_four: sak && lastFour(sak),
  });
  return { ...toApiKeySetDto(row), publishable_client_key: pck, secret_server_key: ssk, super_secret_admin_key: sak };
}

export async function listApiKeySets(deps: Deps, auth: AuthContext): Promise<ApiKeySetDto[]> {
  return (await q.listApiKeySets(deps.db, auth.project.id)).map(toApiKeySetDto);
}

export async function getApiKeySet(deps: Deps, auth: AuthContext, id: string): Promise<ApiKeySetDto> {
  const row = await q.findApiKeySet(deps.db, auth.project.id, id);
  if (!row) throw new KnownErrors.ApiKeyNotFound();
  return toApiKeySetDto(row);
}

/** PATCH: description, and `revoked: true` (revocation is one-way). */
export async function updateApiKeySet(deps: Deps, auth: AuthContext, id: string, patch: { description?: string; revoked?: true }): Promise<ApiKeySetDto> {
  const current = await q.findApiKeySet(deps.db, auth.project.id, id);
  if (!current) throw new KnownErrors.ApiKeyNotFound();
  const changes = {
    ...(patch.description !== undefined ? { description: patch.description } : {}),
    ...(patch.revoked && !current.manually_revoked_at ? { manually_revoked_at: new Date() } : {}),
  };
  // Nothing to change (an empty body, or revoking a revoked set): an UPDATE with no SET is not SQL.
  if (Object.keys(changes).length === 0) return toApiKeySetDto(current);
  const row = await q.updateApiKeySet(deps.db, auth.project.id, id, changes);
  // Revocation takes effect in this instance at once; other instances within the cache's TTL.
  deps.projectAuthCache.invalidate();
  if (!row) throw new KnownErrors.ApiKeyNotFound();
  return toApiKeySetDto(row);
}

export async function deleteApiKeySet(deps: Deps, auth: AuthContext, id: string): Promise<void> {
  const deleted = await q.deleteApiKeySet(deps.db, auth.project.id, id);
  deps.projectAuthCache.invalidate();
  if (!deleted) throw new KnownErrors.ApiKeyNotFound();
}
