/**
 * Access policy shared by every procedure: the checks that decide whether a caller may act, kept in
 * one place so a new route cannot forget them (issue 13 item 5, issue 14 item 1):
 * - `me` resolution (resolveUserId, resolveMe, resolveExistingUserId);
 * - the live-session check every user-acting procedure runs (liveSessionUser and its forms);
 * - team-action authorization (authorizeTeamAction);
 * - marking the user active (last_active_at) when they act.
 *
 * The live-session rule: an access token is a 10-minute JWT that verifies without the database, so
 * by itself it outlives a sign-out, a password change that signs other sessions out, a revoked
 * session and a deleted user. Every procedure that reads the caller's access token therefore also
 * checks that the session the token names (`refresh_token_id`) still exists and belongs to the
 * token's user; when it does not, the token is treated exactly like an expired one
 * (ACCESS_TOKEN_EXPIRED), so clients refresh, fail, and sign out. The check is done once per request
 * (trpc/procedures.ts runs it before the input is parsed) and its answer — the user's row — is
 * memoised, so services that need the signed-in user (`GET /users/me`, the hot path) reuse it
 * instead of querying again: one indexed join per request, as before the rule was enforced
 * everywhere.
 */
import type { Deps } from '../deps.js';
import type { UserRow } from '../db/schema.js';
import type { Executor } from '../db/executor.js';
import { KnownErrors } from '../../contract/errors/known-errors.js';
import type { SystemTeamPermission } from '../../contract/schemas/permissions.js';
import type { AuthContext } from './context.js';
import { findSessionUser, findUser, touchLastActive } from '../domains/users/queries.js';
import { findTeamAccess } from '../domains/permissions/queries.js';
import { findTeam } from '../domains/teams/queries.js';

// ─── `me` ─────────────────────────────────────────────────────────────────────────────────────

/**
 * Resolves `user_id` (`me`, omitted, or a UUID) for the caller: `me` without a signed-in user is
 * CANNOT_GET_OWN_USER_WITHOUT_USER; clients may only name themselves (another id answers
 * USER_NOT_FOUND, as if it did not exist; USER_AUTHENTICATION_REQUIRED without a token).
 */
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

/**
 * `me` → the caller's user id (CANNOT_GET_OWN_USER_WITHOUT_USER without one); any other id as given.
 * For paths where a client may name other users and a permission check decides (team members).
 */
export function resolveMe(auth: AuthContext, userIdParam: string): string {
  if (userIdParam === 'me') {
    if (!auth.user) throw new KnownErrors.CannotGetOwnUserWithoutUser();
    return auth.user.sub;
  }
  return userIdParam;
}

/** Whether the request's access token is the given user's (then its session was checked live). */
export function isOwnUser(auth: AuthContext, userId: string): boolean {
  return auth.user !== null && auth.user.sub === userId;
}

// ─── The live session ─────────────────────────────────────────────────────────────────────────

/** One lookup per request: keyed by the request's auth context (built once per request). */
const sessionUsers = new WeakMap<AuthContext, Promise<UserRow | undefined>>();

/**
 * The signed-in user of the request's access token, while its session is live. Throws
 * USER_AUTHENTICATION_REQUIRED without an access token and ACCESS_TOKEN_EXPIRED when the session is
 * gone (signed out, revoked, the user deleted). Memoised per request; marks the user active.
 *
 * Inside a transaction pass `trx` as `db`: the access middleware has normally run the check already
 * (the memoised answer needs no connection), but a first lookup on `deps.db` inside a PGlite
 * transaction would wait for the transaction's own connection.
 *
 * @example
 * const user = await liveSessionUser(deps, auth);
 * if (!user.password_hash) throw new KnownErrors.UserDoesNotHavePassword();
 */
export async function liveSessionUser(deps: Deps, auth: AuthContext, db: Executor = deps.db): Promise<UserRow> {
  const claims = auth.user;
  if (!claims) throw new KnownErrors.UserAuthenticationRequired();
  let pending = sessionUsers.get(auth);
  if (!pending) {
    pending = findSessionUser(db, auth.tenancy.id, claims.sub, claims.refresh_token_id);
    sessionUsers.set(auth, pending);
    // A failed lookup (database down) is not remembered as an answer.
    pending.catch(() => sessionUsers.delete(auth));
  }
  const user = await pending;
  if (!user) throw new KnownErrors.AccessTokenExpired();
  noteUserActive(deps, auth.tenancy.id, user.id);
  return user;
}

/**
 * Whether a session seen earlier (a token's user and session id, kept across a redirect) is still
 * live now: for flows that outlast the request that carried the token, as an OAuth link does.
 */
export async function sessionStillLive(db: Executor, tenancyId: string, userId: string, sessionId: string): Promise<boolean> {
  return (await findSessionUser(db, tenancyId, userId, sessionId)) !== undefined;
}

/** The live session's user id (see liveSessionUser). */
export async function liveSessionUserId(deps: Deps, auth: AuthContext): Promise<string> {
  return (await liveSessionUser(deps, auth)).id;
}

/** The live session's user and the session's id (for "every other session" rules). */
export async function liveSession(deps: Deps, auth: AuthContext): Promise<{ user: UserRow; sessionId: string }> {
  const user = await liveSessionUser(deps, auth);
  return { user, sessionId: auth.user!.refresh_token_id };
}

/**
 * The rule the access middleware applies to every procedure that acts for a user: when the request
 * carries a user's access token, its session must be live. Requests without one pass (server and
 * admin keys act for no user; a client without a token meets USER_AUTHENTICATION_REQUIRED where a
 * user is needed).
 */
export async function requireLiveSession(deps: Deps, auth: AuthContext): Promise<void> {
  if (auth.user) await liveSessionUser(deps, auth);
}

/**
 * A client acts only as itself: the live session's user id, after checking that `userIdParam`
 * (`me` when omitted) names that user (resolveUserId's errors otherwise).
 */
export async function clientOwnUserId(deps: Deps, auth: AuthContext, userIdParam: string | undefined): Promise<string> {
  const userId = await liveSessionUserId(deps, auth);
  resolveUserId(auth, userIdParam ?? 'me');
  return userId;
}

/**
 * The user a request is about, by id: the caller's own is the live-session row (memoised, so
 * GET /users/me costs one query); anyone else's must exist (USER_NOT_FOUND).
 * Inside a transaction pass `trx`: PGlite has one connection, so a read on `deps.db` there deadlocks.
 */
export async function loadUserFor(deps: Deps, auth: AuthContext, userId: string, db: Executor = deps.db): Promise<UserRow> {
  if (isOwnUser(auth, userId)) return liveSessionUser(deps, auth, db);
  const row = await findUser(db, auth.tenancy.id, userId);
  if (!row) throw new KnownErrors.UserNotFound();
  return row;
}

/**
 * The user a request is about: `me` (or nothing) is the caller, with a live session; clients may
 * only name themselves (resolveUserId); server callers get USER_NOT_FOUND for an id that does not
 * exist in this project.
 */
export async function resolveExistingUserId(deps: Deps, auth: AuthContext, userIdParam: string | undefined): Promise<string> {
  const userId = resolveUserId(auth, userIdParam);
  if (isOwnUser(auth, userId)) return liveSessionUserId(deps, auth);
  if (!(await findUser(deps.db, auth.tenancy.id, userId))) throw new KnownErrors.UserNotFound();
  return userId;
}

// ─── Team actions ─────────────────────────────────────────────────────────────────────────────

/**
 * Gatekeeper of every team action. Server and admin callers may act on any team of the project
 * (it must exist). A client must be a signed-in member holding `permission` (through any chain of
 * contained permissions) — or just a member when `permission` is null. A team the client is not
 * in answers TEAM_NOT_FOUND, so clients cannot probe for other teams' ids. The session check rides
 * in the same query as the membership and permission checks.
 */
export async function authorizeTeamAction(deps: Deps, auth: AuthContext, teamId: string, permission: SystemTeamPermission | null): Promise<void> {
  if (auth.type !== 'client') {
    if (!(await findTeam(deps.db, auth.tenancy.id, teamId))) throw new KnownErrors.TeamNotFound(teamId);
    return;
  }
  if (!auth.user) throw new KnownErrors.UserAuthenticationRequired();
  const access = await findTeamAccess(deps.db, auth.tenancy.id, teamId, auth.user.sub, auth.user.refresh_token_id, permission);
  if (!access.session_live) throw new KnownErrors.AccessTokenExpired();
  if (!access.is_member) throw new KnownErrors.TeamNotFound(teamId);
  if (!access.has_permission && permission) throw new KnownErrors.TeamPermissionRequired(teamId, auth.user.sub, permission);
}

// ─── Activity ─────────────────────────────────────────────────────────────────────────────────

/** At most one last_active_at write per user per minute per instance. */
const ACTIVE_WRITE_INTERVAL_MS = 60_000;
/** Users remembered at once; past this the oldest are forgotten (at worst, one extra write each). */
const ACTIVE_USERS_REMEMBERED = 10_000;
/** User id → when this instance last wrote their last_active_at; insertion order is time order. */
const lastActiveWrites = new Map<string, number>();

/**
 * Marks a user active (users.last_active_at, the console's "active users"): called where users act —
 * every request with a live session (liveSessionUser) and every token refresh. Throttled in process
 * so the hot path does not write on every request, and never awaited: the write runs beside the
 * response, and a failure is logged, not the request's. The query itself also skips a row written
 * in the last minute (another instance may have just done it).
 */
export function noteUserActive(deps: Deps, tenancyId: string, userId: string): void {
  const now = Date.now();
  const last = lastActiveWrites.get(userId);
  if (last !== undefined && now - last < ACTIVE_WRITE_INTERVAL_MS) return;
  // Re-inserting keeps the map in time order, so the stale and the excess are always at its head.
  lastActiveWrites.delete(userId);
  lastActiveWrites.set(userId, now);
  for (const [id, at] of lastActiveWrites) {
    if (lastActiveWrites.size <= ACTIVE_USERS_REMEMBERED && now - at < ACTIVE_WRITE_INTERVAL_MS) break;
    lastActiveWrites.delete(id);
  }
  touchLastActive(deps.db, tenancyId, userId).catch((error: unknown) => {
    deps.log.warn('could not record user activity (last_active_at)', { error: error instanceof Error ? error.message : String(error) });
  });
}
