import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { Deps } from '../../deps.js';
import type { UserTeamApiKeyRow } from '../../db/schema.js';
import { isForeignKeyViolation } from '../../db/errors.js';
import { type ApiKeyOwnerType, newApiKey, parseApiKey } from '../../crypto/api-key-format.js';
import { hashSecret, lastFour } from '../../crypto/tokens.js';
import { KnownError } from '../../../contract/errors/known-error.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { AuthContext } from '../../access/context.js';
import { authorizeTeamAction, resolveExistingUserId } from '../../access/policy.js';
import { limitApiKeyCheck } from '../rate-limits/service.js';
import * as q from './queries.js';
import { type TeamApiKey, type UserApiKey, toApiKeyDto } from './dto.js';
import type { apiKeyUpdateSchema } from '../../../contract/schemas/user-team-api-keys.js';

/**
 * API keys that belong to a user or a team (not the project's internal keys, see
 * domains/api-keys). Shown in full once, stored as SHA-256. The check call applies the spec's
 * order for these keys: revoked first, then expired (reason codes manually-revoked and expired).
 */

type Owner = { type: 'user'; userId: string } | { type: 'team'; teamId: string };

function ownerTypeOf(row: UserTeamApiKeyRow): ApiKeyOwnerType {
  return row.user_id ? 'user' : 'team';
}

/** allow_user_api_keys / allow_team_api_keys switch the feature on; off, no key is made or accepted. */
function requireEnabled(auth: AuthContext, type: ApiKeyOwnerType): void {
  const enabled = type === 'user' ? auth.project.config.allow_user_api_keys : auth.project.config.allow_team_api_keys;
  if (!enabled) throw new KnownErrors.ApiKeysNotEnabled(type);
}

/**
 * May the caller manage this owner's keys? Clients: their own user keys, and keys of teams where
 * they hold $manage_api_keys. Server and admin: any owner that exists.
 */
async function authorizeOwner(
  deps: Deps,
  auth: AuthContext,
  owner: { type: 'user'; userIdParam: string | undefined } | { type: 'team'; teamId: string },
): Promise<Owner> {
  if (owner.type === 'user') return { type: 'user', userId: await resolveExistingUserId(deps, auth, owner.userIdParam) };
  await authorizeTeamAction(deps, auth, owner.teamId, '$manage_api_keys');
  return { type: 'team', teamId: owner.teamId };
}

type KeyFields = { description: string; expires_at_millis?: number | null; is_public?: boolean };
type UserKeyInput = KeyFields & { type: 'user'; user_id?: string };
type TeamKeyInput = KeyFields & { type: 'team'; team_id: string };

export function createApiKey(deps: Deps, auth: AuthContext, input: UserKeyInput): Promise<Omit<UserApiKey, 'value'> & { value: string }>;
export function createApiKey(deps: Deps, auth: AuthContext, input: TeamKeyInput): Promise<Omit<TeamApiKey, 'value'> & { value: string }>;
export async function createApiKey(deps: Deps, auth: AuthContext, input: UserKeyInput | TeamKeyInput) {
  requireEnabled(auth, input.type);
  const owner = await authorizeOwner(
    deps,
    auth,
    input.type === 'user' ? { type: 'user', userIdParam: input.user_id } : { type: 'team', teamId: input.team_id },
  );
  if (input.expires_at_millis != null && input.expires_at_millis <= Date.now()) {
    throw new KnownErrors.SchemaError('Request validation failed:\n  - expires_at_millis must be in the future (or null for a key that never expires)', {
      issues: [{ path: 'expires_at_millis', message: 'must be in the future' }],
    });
  }
  // A cap on what one owner can store (LATCH_MAX_API_KEYS_PER_OWNER). Checked before the insert,
  // not under a lock: concurrent creations can overshoot it by the requests in flight.
  const maxKeys = deps.env.quotas.apiKeysPerOwner;
  if ((await q.countActiveApiKeys(deps.db, auth.tenancy.id, owner.type === 'user' ? { userId: owner.userId } : { teamId: owner.teamId })) >= maxKeys) {
    throw new KnownErrors.QuotaExceeded('api_keys', maxKeys);
  }
  const isPublic = input.is_public ?? false;
  const value = newApiKey(input.type, isPublic);
  let row: UserTeamApiKeyRow;
  try {
    row = await q.insertApiKey(deps.db, {
      tenancy_id: auth.tenancy.id,
      id: randomUUID(),
      secret_hash: hashSecret(value),
      last_four: lastFour(value),
      is_public: isPublic,
      description: input.description,
      expires_at: input.expires_at_millis == null ? null : new Date(input.expires_at_millis),
      user_id: owner.type === 'user' ? owner.userId : null,
      team_id: owner.type === 'team' ? owner.teamId : null,
      // A team key made in a user's session goes when that user is signed out everywhere.
      created_by_user_id: owner.type === 'team' && auth.type === 'client' ? (auth.user?.sub ?? null) : null,
    });
  } catch (error) {
    // The owner was deleted between the access check and the insert.
    if (isForeignKeyViolation(error)) throw owner.type === 'user' ? new KnownErrors.UserNotFound() : new KnownErrors.TeamNotFound(owner.teamId);
    throw error;
  }
  return { ...toApiKeyDto(row), value };
}

export function listApiKeys(deps: Deps, auth: AuthContext, owner: { type: 'user'; userIdParam: string | undefined }): Promise<UserApiKey[]>;
export function listApiKeys(deps: Deps, auth: AuthContext, owner: { type: 'team'; teamId: string }): Promise<TeamApiKey[]>;
export async function listApiKeys(
  deps: Deps,
  auth: AuthContext,
  owner: { type: 'user'; userIdParam: string | undefined } | { type: 'team'; teamId: string },
): Promise<(UserApiKey | TeamApiKey)[]> {
  const resolved = await authorizeOwner(deps, auth, owner);
  const rows = await q.listApiKeys(deps.db, auth.tenancy.id, resolved.type === 'user' ? { userId: resolved.userId } : { teamId: resolved.teamId });
  return rows.map(toApiKeyDto);
}

/**
 * Loads a key by id for a caller allowed to manage it. A key of the other type, or one a client
 * may not see (someone else's, a team they are not in), is API_KEY_NOT_FOUND: ids do not leak.
 */
async function loadManagedKey(deps: Deps, auth: AuthContext, type: ApiKeyOwnerType, id: string): Promise<UserTeamApiKeyRow> {
  const row = await q.findApiKey(deps.db, auth.tenancy.id, id);
  if (!row || ownerTypeOf(row) !== type) throw new KnownErrors.ApiKeyNotFound();
  try {
    await authorizeOwner(deps, auth, row.user_id ? { type: 'user', userIdParam: row.user_id } : { type: 'team', teamId: row.team_id! });
  } catch (error) {
    if (error instanceof KnownError && (error.code === 'USER_NOT_FOUND' || error.code === 'TEAM_NOT_FOUND')) throw new KnownErrors.ApiKeyNotFound();
    throw error;
  }
  return row;
}

export function getApiKey(deps: Deps, auth: AuthContext, type: 'user', id: string): Promise<UserApiKey>;
export function getApiKey(deps: Deps, auth: AuthContext, type: 'team', id: string): Promise<TeamApiKey>;
export async function getApiKey(deps: Deps, auth: AuthContext, type: ApiKeyOwnerType, id: string): Promise<UserApiKey | TeamApiKey> {
  return toApiKeyDto(await loadManagedKey(deps, auth, type, id));
}

type KeyUpdate = z.infer<typeof apiKeyUpdateSchema>;
export function updateApiKey(deps: Deps, auth: AuthContext, type: 'user', input: KeyUpdate): Promise<UserApiKey>;
export function updateApiKey(deps: Deps, auth: AuthContext, type: 'team', input: KeyUpdate): Promise<TeamApiKey>;
export async function updateApiKey(deps: Deps, auth: AuthContext, type: ApiKeyOwnerType, input: KeyUpdate): Promise<UserApiKey | TeamApiKey> {
  const row = await loadManagedKey(deps, auth, type, input.api_key_id);
  const patch: { description?: string; expires_at?: Date | null; manually_revoked_at?: Date } = {};
  if (input.description !== undefined) patch.description = input.description;
  if (input.expires_at_millis !== undefined) patch.expires_at = input.expires_at_millis === null ? null : new Date(input.expires_at_millis);
  if (input.revoked === true && !row.manually_revoked_at) {
    // A public key is meant to be seen by anyone; to retire one, set its expires_at_millis.
    if (row.is_public) throw new KnownErrors.PublicApiKeyCannotBeRevoked();
    patch.manually_revoked_at = new Date();
  }
  if (input.revoked === false && row.manually_revoked_at) {
    throw new KnownErrors.SchemaError(
      'Request validation failed:\n  - revoked cannot be set back to false: a revoked API key stays revoked; create a new one',
      { issues: [{ path: 'revoked', message: 'a revoked key cannot be restored' }] },
    );
  }
  const updated = await q.updateApiKey(deps.db, auth.tenancy.id, row.id, patch);
  if (!updated) throw new KnownErrors.ApiKeyNotFound();
  return toApiKeyDto(updated);
}

/**
 * Checks a presented key. Shape and checksum first, with no lookup (a typo is API_KEY_NOT_FOUND,
 * a key of the other type WRONG_API_KEY_TYPE); then the hash within this project; then revoked
 * before expired. Keys not found count against the caller's IP (RATE_LIMITED past the limit).
 */
export function checkApiKey(deps: Deps, auth: AuthContext, type: 'user', value: string, ip: string | null): Promise<UserApiKey>;
export function checkApiKey(deps: Deps, auth: AuthContext, type: 'team', value: string, ip: string | null): Promise<TeamApiKey>;
export async function checkApiKey(deps: Deps, auth: AuthContext, type: ApiKeyOwnerType, value: string, ip: string | null): Promise<UserApiKey | TeamApiKey> {
  requireEnabled(auth, type);
  const limit = await limitApiKeyCheck(deps, auth.tenancy, ip);
  const notFound = async () => {
    await limit.failed();
    return new KnownErrors.ApiKeyNotFound();
  };
  const parsed = parseApiKey(value);
  if (!parsed) throw await notFound();
  if (parsed.type !== type) throw new KnownErrors.WrongApiKeyType(type, parsed.type);
  const row = await q.findApiKeyByHash(deps.db, auth.tenancy.id, hashSecret(value));
  if (!row) throw await notFound();
  if (ownerTypeOf(row) !== type) throw new KnownErrors.WrongApiKeyType(type, ownerTypeOf(row));
  if (row.manually_revoked_at) throw new KnownErrors.ApiKeyRevoked();
  if (row.expires_at && row.expires_at.getTime() <= Date.now()) throw new KnownErrors.ApiKeyExpired();
  return toApiKeyDto(row);
}
