/**
 * Access policy shared by every procedure: the checks that decide whether a caller may act, kept in
 * one place so a new route cannot forget them (issue 13 item 5; issue 14 item 1 moves the auth
 * context types here too).
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
import { KnownErrors } from '../../contract/errors/known-errors.js';
import type { AuthContext } from './context.js';
import { findSessionUser } from '../domains/users/queries.js';
import type { Executor } from '../db/executor.js';

/** One lookup per request: keyed by the request's auth context (built once per request). */
const sessionUsers = new WeakMap<AuthContext, Promise<UserRow | undefined>>();

/**
 * The signed-in user of the request's access token, while its session is live. Throws
 * USER_AUTHENTICATION_REQUIRED without an access token and ACCESS_TOKEN_EXPIRED when the session is
 * gone (signed out, revoked, the user deleted). Memoised per request.
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
  return user;
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

/** Whether the request's access token is the given user's (then its session was checked live). */
export function isOwnUser(auth: AuthContext, userId: string): boolean {
  return auth.user !== null && auth.user.sub === userId;
}
