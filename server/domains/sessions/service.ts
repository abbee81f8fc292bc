import type { Deps } from '../../deps.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { AuthContext, Tenancy } from '../../access/context.js';
import type { Executor } from '../../db/executor.js';
import { findUser } from '../users/queries.js';
import { revokeKeysOfUser } from '../user-team-api-keys/queries.js';
import { resolveUserId } from '../../access/policy.js';
import { type SessionDto, toSessionDto } from './dto.js';
import * as q from './queries.js';

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

export async function signOut(deps: Deps, auth: AuthContext): Promise<void> {
  if (!auth.user) throw new KnownErrors.UserAuthenticationRequired();
  await q.deleteSession(deps.db, auth.tenancy.id, auth.user.refresh_token_id, auth.user.sub);
}

export async function listUserSessions(deps: Deps, auth: AuthContext, userIdParam: string | undefined): Promise<SessionDto[]> {
  const userId = resolveUserId(auth, userIdParam);
  const rows = await q.listSessions(deps.db, auth.tenancy.id, userId);
  // No sessions: tell "no such user" from "a user with no live session" (one extra lookup, only then).
  if (rows.length === 0 && userId !== auth.user?.sub && !(await findUser(deps.db, auth.tenancy.id, userId))) throw new KnownErrors.UserNotFound();
  return rows.map((row) => toSessionDto(row, auth.user?.refresh_token_id));
}

export async function revokeSession(deps: Deps, auth: AuthContext, sessionId: string, userIdParam: string | undefined): Promise<void> {
  const userId = resolveUserId(auth, userIdParam);
  if (sessionId === auth.user?.refresh_token_id) throw new KnownErrors.CannotDeleteCurrentSession();
  if (!(await q.deleteSession(deps.db, auth.tenancy.id, sessionId, userId))) throw new KnownErrors.SessionNotFound();
}
