/**
 * Resolving a request's credentials into a caller: the project and tenancy (through the in-process
 * cache), the key of the claimed access level, the signed-in user's access token, and the admin
 * console owner's token. Each failure is a catalogued error, in the order spec sections 6 and 8 give.
 */
import type { Deps } from '../deps.js';
import { KnownErrors } from '../../contract/errors/known-errors.js';
import { type AccessTokenClaims, TokenVerificationError } from '../crypto/jwt.js';
import { hashSecret } from '../crypto/tokens.js';
import { DEFAULT_BRANCH_ID, INTERNAL_PROJECT_ID, effectiveConfig } from '../../contract/config/project-config.js';
import { findOwnerAccess, findProjectForRequest, type KeyColumn, type ProjectForRequest } from '../domains/projects/queries.js';
import { findWorkflowTokenByHash } from '../domains/workflow-tokens/queries.js';
import { WEBHOOKS_TOKEN_AUDIENCE } from '../../contract/schemas/webhooks.js';
import { ProjectAuthCache } from './project-auth-cache.js';
import { ACCESS_TYPES, type AccessType, type AuthContext, type LatchHeaders, type ProjectRecord, type Tenancy } from './context.js';

/**
 * The request's credentials with x-latch-auth (a JSON object `{accessToken?, refreshToken?}`; anything
 * else is a SCHEMA_ERROR) folded in; the x-latch-access-token and x-latch-refresh-token headers win.
 * Parsed once per request, memoised on the headers object: resolveAuth (project and user auth) and
 * the refresh call (its refresh token) all read the answer.
 */
const withAuthHeader = new WeakMap<LatchHeaders, LatchHeaders>();
export function applyAuthHeader(headers: LatchHeaders): LatchHeaders {
  if (headers.authHeader === null) return headers;
  let applied = withAuthHeader.get(headers);
  if (applied) return applied;
  let parsed: unknown;
  try {
    parsed = JSON.parse(headers.authHeader);
  } catch {
    parsed = undefined;
  }
  const bad = () => new KnownErrors.SchemaError('The x-latch-auth header must be a JSON object like {"accessToken": "…", "refreshToken": "…"}.');
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw bad();
  const { accessToken, refreshToken } = parsed as Record<string, unknown>;
  if ((accessToken !== undefined && typeof accessToken !== 'string') || (refreshToken !== undefined && typeof refreshToken !== 'string')) throw bad();
  applied = { ...headers, accessToken: headers.accessToken ?? accessToken ?? null, refreshToken: headers.refreshToken ?? refreshToken ?? null };
  withAuthHeader.set(headers, applied);
  return applied;
}

function keyFor(type: AccessType, h: LatchHeaders): { column: KeyColumn; hash: string } | null {
  if (type === 'client' && h.publishableClientKey) return { column: 'publishable_client_key_hash', hash: hashSecret(h.publishableClientKey) };
  if (type === 'server' && h.secretServerKey) return { column: 'secret_server_key_hash', hash: hashSecret(h.secretServerKey) };
  if (type === 'admin' && h.superSecretAdminKey) return { column: 'super_secret_admin_key_hash', hash: hashSecret(h.superSecretAdminKey) };
  return null;
}

async function verifyUserToken(deps: Deps, token: string, which: 'access' | 'admin'): Promise<AccessTokenClaims> {
  try {
    return await deps.keyring.verify(token);
  } catch (error) {
    const expired = error instanceof TokenVerificationError && error.reason === 'expired';
    if (which === 'admin') throw expired ? new KnownErrors.AdminAccessTokenExpired() : new KnownErrors.UnparsableAdminAccessToken();
    throw expired ? new KnownErrors.AccessTokenExpired() : new KnownErrors.UnparsableAccessToken();
  }
}

/**
 * The project + tenancy + key lookup, through the in-process cache (project-auth-cache.ts): only
 * complete successes are cached, for at most PROJECT_AUTH_CACHE_TTL_MS and never past the key's
 * expiry; writes through this instance invalidate it.
 */
async function lookUpProject(
  deps: Deps,
  projectId: string,
  branchId: string,
  key: { column: KeyColumn; hash: string } | null,
): Promise<ProjectForRequest | undefined> {
  const cache = deps.projectAuthCache;
  const cacheKey = ProjectAuthCache.key(projectId, branchId, key);
  const hit = cache.get(cacheKey);
  if (hit) return hit;
  return cache.shared(cacheKey, async () => {
    const generation = cache.currentGeneration;
    const row = await findProjectForRequest(deps.db, projectId, branchId, key);
    if (row && row.tenancy_id && (key === null || row.key_valid))
      cache.set(cacheKey, row, generation, row.key_expires_at === null ? null : new Date(row.key_expires_at));
    return row;
  });
}

/**
 * The project as the request sees it, built once per looked-up row: a cached row is the same
 * object on every request of its lifetime, so its record (with the merged config) is too. Frozen,
 * since requests share it.
 */
const projectRecords = new WeakMap<ProjectForRequest, ProjectRecord>();
function projectRecordOf(row: ProjectForRequest): ProjectRecord {
  let record = projectRecords.get(row);
  if (!record) {
    record = Object.freeze({
      id: row.id,
      displayName: row.display_name,
      description: row.description,
      isProductionMode: row.is_production_mode,
      logoUrl: row.logo_url,
      fullLogoUrl: row.full_logo_url,
      ownerTeamId: row.owner_team_id,
      createdAt: row.created_at,
      config: Object.freeze(effectiveConfig(row.config)),
    });
    projectRecords.set(row, record);
  }
  return record;
}

/**
 * A workflow token (x-latch-workflow-token) is checked whenever it is sent, against this request's
 * tenancy only: another project's token does not exist here. One indexed read, not cached, so a
 * revoked token is refused at once.
 */
async function checkWorkflowToken(deps: Deps, tenancyId: string, token: string): Promise<void> {
  const row = await findWorkflowTokenByHash(deps.db, tenancyId, hashSecret(token));
  if (!row) throw new KnownErrors.WorkflowTokenDoesNotExist();
  if (row.expires_at.getTime() <= Date.now()) throw new KnownErrors.WorkflowTokenExpired();
}

/** The order of checks follows spec sections 6 and 8; each failure is a catalogued error. */
export async function resolveAuth(
  deps: Deps,
  rawHeaders: LatchHeaders,
  options: { ignoreAccessToken?: boolean; clientGone?: () => boolean } = {},
): Promise<AuthContext | null> {
  const parsed = applyAuthHeader(rawHeaders);
  const h = options.ignoreAccessToken && parsed.accessToken !== null ? { ...parsed, accessToken: null } : parsed;
  const anyKey = h.publishableClientKey ?? h.secretServerKey ?? h.superSecretAdminKey ?? h.adminAccessToken;
  if (h.accessType === null) {
    if (anyKey) throw new KnownErrors.ProjectKeyWithoutAccessType();
    // A project id says the caller means a project, so it must say at which level (spec section 8).
    if (h.projectId !== null) throw new KnownErrors.AccessTypeRequired();
    return null;
  }
  if (!ACCESS_TYPES.includes(h.accessType as AccessType)) throw new KnownErrors.InvalidAccessType(h.accessType);
  const type = h.accessType as AccessType;
  if (h.projectId === null) throw new KnownErrors.AccessTypeWithoutProjectId(type);

  const key = keyFor(type, h);
  const row = await lookUpProject(deps, h.projectId, h.branchId ?? DEFAULT_BRANCH_ID, key);
  if (!row) throw new KnownErrors.CurrentProjectNotFound(h.projectId);
  if (!row.tenancy_id) throw new KnownErrors.BranchDoesNotExist(h.branchId ?? DEFAULT_BRANCH_ID);
  const project = projectRecordOf(row);
  const tenancy: Tenancy = { id: row.tenancy_id, projectId: row.id, branchId: h.branchId ?? DEFAULT_BRANCH_ID };

  if (h.workflowToken) await checkWorkflowToken(deps, tenancy.id, h.workflowToken);

  let adminUserId: string | null = null;
  let scope: AuthContext['scope'];
  if (type === 'client') {
    // The internal project's client is the admin console: a public client that needs no key.
    if (!h.publishableClientKey && project.id !== INTERNAL_PROJECT_ID) throw new KnownErrors.PublishableClientKeyRequiredForProject(project.id);
    if (h.publishableClientKey && !row.key_valid) throw new KnownErrors.InvalidPublishableClientKey(project.id);
  } else if (type === 'server') {
    // A valid workflow token (checked above) stands in for the secret server key.
    if (!h.secretServerKey && !h.workflowToken) throw new KnownErrors.ServerAuthenticationRequired();
    if (h.secretServerKey && !row.key_valid) throw new KnownErrors.InvalidSecretServerKey(project.id);
  } else if (h.superSecretAdminKey) {
    if (!row.key_valid) throw new KnownErrors.InvalidSuperSecretAdminKey(project.id);
  } else if (h.adminAccessToken) {
    const owner = await verifyUserToken(deps, h.adminAccessToken, 'admin');
    if (owner.aud === WEBHOOKS_TOKEN_AUDIENCE) {
      // A webhooks token: signed for this project and branch only, narrowed by the procedure (trpc/procedures.ts).
      if (owner.project_id !== project.id || owner.branch_id !== tenancy.branchId) throw new KnownErrors.InvalidProjectForAdminAccessToken();
      return { type, project, tenancy, user: null, adminUserId: null, scope: 'webhooks', clientGone: options.clientGone };
    }
    if (owner.project_id !== INTERNAL_PROJECT_ID || owner.is_anonymous) throw new KnownErrors.InvalidProjectForAdminAccessToken();
    // Revocation is immediate for owners too: a signed-out (or deleted) owner's token is expired.
    const access = await findOwnerAccess(deps.db, project.id, owner.sub, owner.refresh_token_id);
    if (!access.session_live) throw new KnownErrors.AdminAccessTokenExpired();
    if (!access.is_owner) throw new KnownErrors.AdminAccessTokenIsNotAdmin();
    adminUserId = owner.sub;
  } else {
    throw new KnownErrors.AdminAuthenticationRequired();
  }

  let user: AccessTokenClaims | null = null;
  if (h.accessToken) {
    user = await verifyUserToken(deps, h.accessToken, 'access');
    if (user.project_id !== project.id || user.branch_id !== tenancy.branchId) {
      throw new KnownErrors.InvalidProjectForAccessToken(project.id, user.project_id);
    }
    // The audience marks anonymous tokens, so a verifier that ignores is_anonymous still refuses them.
    if (user.aud !== (user.is_anonymous ? `${project.id}:anon` : project.id)) throw new KnownErrors.UnparsableAccessToken();
    if (user.is_anonymous && !h.allowAnonymousUser) throw new KnownErrors.AnonymousAuthenticationNotAllowed();
  }
  return { type, project, tenancy, user, adminUserId, clientGone: options.clientGone };
}

/**
 * A project and tenancy by id, with no key (a redirect from an OAuth provider carries no
 * credentials: the in-flight flow it resumes names its tenancy). Null when the project or branch
 * is gone.
 */
export async function loadProjectTenancy(deps: Deps, projectId: string, branchId: string): Promise<{ project: ProjectRecord; tenancy: Tenancy } | null> {
  const row = await lookUpProject(deps, projectId, branchId, null);
  if (!row?.tenancy_id) return null;
  return { project: projectRecordOf(row), tenancy: { id: row.tenancy_id, projectId: row.id, branchId } };
}
