import { randomUUID } from 'node:crypto';
import type { Deps } from '../../deps.js';
import type { UserRow } from '../../db/schema.js';
import { hashSecret, randomSecret } from '../../crypto/tokens.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import { DEFAULT_QUOTAS } from '../../env.js';
import type { AuthContext, Tenancy } from '../../access/context.js';
import type { Executor } from '../../db/executor.js';
import { findUser } from '../users/queries.js';
import { revokeKeysOfUser } from '../user-team-api-keys/queries.js';
import * as q from './queries.js';

/** Default session lifetime: one year (spec section 9, "Default server session expiry"). */
export const DEFAULT_SESSION_MILLIS = 31_536_000_000;

export interface IssuedSession {
  sessionId: string;
  refreshToken: string;
  expiresAt: Date;
}

/**
 * Sessions one user may hold (LATCH_MAX_SESSIONS_PER_USER); a new one signs the oldest out. Set
 * once at start-up (setMaxSessionsPerUser), like the password hashing limits: issueSession is called
 * with an executor, not the deps, from every way in.
 */
let maxSessionsPerUser = DEFAULT_QUOTAS.sessionsPerUser;

/** Called once at start-up with env.quotas.sessionsPerUser. */
export function setMaxSessionsPerUser(max: number): void {
  maxSessionsPerUser = Math.max(1, Math.floor(max));
}

/**
 * Creates a session row; the refresh token (224 random bits) is returned once and stored hashed.
 * Past maxSessionsPerUser the user's oldest sessions are deleted (signed out): a client that signs
 * in in a loop cannot grow the table without bound.
 */
export async function issueSession(
  db: Executor,
  tenancy: Tenancy,
  userId: string,
  options: { isImpersonation?: boolean; expiresInMillis?: number; ip?: string | null } = {},
): Promise<IssuedSession> {
  const refreshToken = randomSecret();
  const sessionId = randomUUID();
  const expiresAt = new Date(Date.now() + (options.expiresInMillis ?? DEFAULT_SESSION_MILLIS));
  await q.insertSession(db, {
    tenancy_id: tenancy.id,
    id: sessionId,
    user_id: userId,
    refresh_token_hash: hashSecret(refreshToken),
    is_impersonation: options.isImpersonation ?? false,
    expires_at: expiresAt,
    last_used_ip: options.ip ?? null,
  });
  await q.deleteSessionsBeyond(db, tenancy.id, userId, sessionId, maxSessionsPerUser);
  return { sessionId, refreshToken, expiresAt };
}

/**
 * Signs an access token (ES256, 10 minutes by default) for a user's session. The token never
 * outlives its session: most routes check only the signature, so a short session (impersonation,
 * `expires_in_millis`) would otherwise keep working for up to a full access-token lifetime.
 */
export function mintAccessToken(deps: Deps, tenancy: Tenancy, user: q.TokenUser, sessionId: string, sessionExpiresAt: Date | null): Promise<string> {
  const untilSessionEnds = sessionExpiresAt ? Math.floor((sessionExpiresAt.getTime() - Date.now()) / 1000) : Infinity;
  return deps.keyring.sign(
    {
      sub: user.id,
      iss: `${deps.baseUrl()}/api/v1/projects/${tenancy.projectId}`,
      aud: user.is_anonymous ? `${tenancy.projectId}:anon` : tenancy.projectId,
      project_id: tenancy.projectId,
      branch_id: tenancy.branchId,
      refresh_token_id: sessionId,
      role: 'authenticated',
      name: user.display_name,
      email: user.primary_email,
      email_verified: user.primary_email_verified,
      selected_team_id: user.selected_team_id,
      is_anonymous: user.is_anonymous,
    },
    Math.max(0, Math.min(deps.env.accessTokenTtlSeconds, untilSessionEnds)),
  );
}

export interface AuthResponse {
  access_token: string;
  refresh_token: string;
  user_id: string;
  is_new_user: boolean;
}

export async function authResponse(deps: Deps, tenancy: Tenancy, user: UserRow, session: IssuedSession, isNewUser: boolean): Promise<AuthResponse> {
  return {
    access_token: await mintAccessToken(deps, tenancy, user, session.sessionId, session.expiresAt),
    refresh_token: session.refreshToken,
    user_id: user.id,
    is_new_user: isNewUser,
  };
}

/**
 * Exchanges a refresh token for a new access token. The refresh token is not rotated, so many
 * concurrent refreshes of one token all succeed (tabs, retries); it dies with its session.
 */
export async function refreshAccessToken(deps: Deps, tenancy: Tenancy, refreshToken: string | null, ip: string | null): Promise<string> {
  if (!refreshToken) throw new KnownErrors.RefreshTokenNotFoundOrExpired();
  const row = await q.findLiveSessionByTokenHash(deps.db, tenancy.id, hashSecret(refreshToken));
  if (!row) throw new KnownErrors.RefreshTokenNotFoundOrExpired();
  if (Date.now() - row.session_last_used_at.getTime() > 60_000) await q.touchSession(deps.db, tenancy.id, row.session_id, ip);
  return mintAccessToken(deps, tenancy, row, row.session_id, row.session_expires_at);
}

/**
 * Signs a user out everywhere: every session (but `exceptSessionId`, the caller's own when they
 * changed their password themselves) and every API key that acts for them: their user keys and the
 * team keys they created. A key outliving the reset that was meant to lock an intruder out would be
 * a session by another name (issue 13 item 1). In the caller's transaction.
 */
export async function signOutEverywhere(trx: Executor, tenancy: Tenancy, userId: string, exceptSessionId: string | null): Promise<void> {
  await q.deleteSessionsOfUser(trx, tenancy.id, userId, exceptSessionId);
  await revokeKeysOfUser(trx, tenancy.id, userId);
}

/** Resolves `user_id` (`me` or a UUID) for the caller: clients may only name themselves. */
export function resolveUserId(auth: AuthContext, userId: string | undefined): string {
  if (userId === undefined || userId === 'me') {
    if (!auth.user) throw new KnownErrors.CannotGetOwnUserWithoutUser();
    return auth.user.sub;
  }
  if (auth.type === 'client' && userId !== auth.user?.sub) {
    // A client never reads another user: answer as if the user did not exist.
    if (!auth.user) throw new KnownErrors.UserAuthenticationRequired();
    throw new KnownErrors.UserNotFound();
  }
  return userId;
}

export async function signOut(deps: Deps, auth: AuthContext): Promise<void> {
  if (!auth.user) throw new KnownErrors.UserAuthenticationRequired();
  await q.deleteSession(deps.db, auth.tenancy.id, auth.user.refresh_token_id, auth.user.sub);
}

export interface SessionDto {
  id: string;
  user_id: string;
  created_at: number;
  is_impersonation: boolean;
  last_used_at: number | null;
  is_current_session: boolean;
  last_used_at_end_user_ip_info: { ip: string } | null;
}

export async function listUserSessions(deps: Deps, auth: AuthContext, userIdParam: string | undefined): Promise<SessionDto[]> {
  const userId = resolveUserId(auth, userIdParam);
  const rows = await q.listSessions(deps.db, auth.tenancy.id, userId);
  // No sessions: tell "no such user" from "a user with no live session" (one extra lookup, only then).
  if (rows.length === 0 && userId !== auth.user?.sub && !(await findUser(deps.db, auth.tenancy.id, userId))) throw new KnownErrors.UserNotFound();
  return rows.map((row) => ({
    id: row.id,
    user_id: row.user_id,
    created_at: row.created_at.getTime(),
    is_impersonation: row.is_impersonation,
    last_used_at: row.last_used_at.getTime(),
    is_current_session: row.id === auth.user?.refresh_token_id,
    last_used_at_end_user_ip_info: row.last_used_ip ? { ip: row.last_used_ip } : null,
  }));
}

export async function revokeSession(deps: Deps, auth: AuthContext, sessionId: string, userIdParam: string | undefined): Promise<void> {
  const userId = resolveUserId(auth, userIdParam);
  if (sessionId === auth.user?.refresh_token_id) throw new KnownErrors.CannotDeleteCurrentSession();
  if (!(await q.deleteSession(deps.db, auth.tenancy.id, sessionId, userId))) throw new KnownErrors.SessionNotFound();
}

export async function createSessionForUser(
  deps: Deps,
  auth: AuthContext,
  input: { user_id: string; expires_in_millis?: number; is_impersonation?: boolean },
): Promise<{ access_token: string; refresh_token: string }> {
  const user = await findUser(deps.db, auth.tenancy.id, input.user_id);
  if (!user) throw new KnownErrors.UserIdDoesNotExist(input.user_id);
  const session = await issueSession(deps.db, auth.tenancy, user.id, { isImpersonation: input.is_impersonation ?? false, expiresInMillis: input.expires_in_millis ?? DEFAULT_SESSION_MILLIS });
  return { access_token: await mintAccessToken(deps, auth.tenancy, user, session.sessionId, session.expiresAt), refresh_token: session.refreshToken };
}
