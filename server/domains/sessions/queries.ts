import { sql } from 'kysely';
import type { SessionRow, UserRow } from '../../db/schema.js';
import type { Executor } from '../../db/executor.js';
import { precompiled } from '../../db/precompiled.js';
import { SESSION_COLUMNS } from '../../db/columns.js';

export interface NewSession {
  tenancy_id: string;
  id: string;
  user_id: string;
  refresh_token_hash: string;
  is_impersonation: boolean;
  expires_at: Date | null;
  last_used_ip: string | null;
}

/** The session of a refresh token hash, with its user, when it is live and of this tenancy. */
export async function findLiveSessionByTokenHash(db: Executor, tenancyId: string, tokenHash: string): Promise<LiveSessionUser | undefined> {
  // Every refresh: the precompiled form.
  return (await liveSessionQuery(db, tokenHash, tenancyId))[0];
}

/** The user fields an access token carries (its claims), nothing more. */
export type TokenUser = Pick<
  UserRow,
  'id' | 'display_name' | 'primary_email' | 'primary_email_verified' | 'selected_team_id' | 'is_anonymous' | 'signed_up_at' | 'requires_totp_mfa'
>;
type LiveSessionUser = TokenUser & { session_id: string; session_last_used_at: Date; session_expires_at: Date | null };

// Only the token's claims: every column fetched is also described, parsed and converted per call
// (the whole user row was 22 columns, its dates and JSON metadata included).
const liveSessionQuery = precompiled((db, tokenHash: string, tenancyId: string) =>
  db
    .selectFrom('sessions as s')
    .innerJoin('users as u', (join) => join.onRef('u.tenancy_id', '=', 's.tenancy_id').onRef('u.id', '=', 's.user_id'))
    .select([
      'u.id',
      'u.display_name',
      'u.primary_email',
      'u.primary_email_verified',
      'u.selected_team_id',
      'u.is_anonymous',
      'u.signed_up_at',
      'u.requires_totp_mfa',
    ])
    .select(['s.id as session_id', 's.last_used_at as session_last_used_at', 's.expires_at as session_expires_at'])
    .where('s.refresh_token_hash', '=', tokenHash)
    .where('s.tenancy_id', '=', tenancyId)
    .where((eb) => eb.or([eb('s.expires_at', 'is', null), eb('s.expires_at', '>', sql<Date>`now()`)])),
);

/** When the session was created, i.e. when its user signed in (refreshes do not move it); undefined when gone. */
export async function findSessionSignedInAt(db: Executor, tenancyId: string, sessionId: string, userId: string): Promise<Date | undefined> {
  const row = await db
    .selectFrom('sessions')
    .select('created_at')
    .where((eb) => eb.and({ tenancy_id: tenancyId, id: sessionId, user_id: userId }))
    .executeTakeFirst();
  return row?.created_at;
}

/** Records use at most once a minute, so a refresh storm does not turn into a write storm. */
export async function touchSession(db: Executor, tenancyId: string, sessionId: string, ip: string | null): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ last_used_at: sql<Date>`now()`, last_used_ip: ip })
    .where((eb) => eb.and({ tenancy_id: tenancyId, id: sessionId }))
    .where('last_used_at', '<', sql<Date>`now() - interval '60 seconds'`)
    .execute();
}

export async function listSessions(db: Executor, tenancyId: string, userId: string): Promise<SessionRow[]> {
  return db
    .selectFrom('sessions')
    .select(SESSION_COLUMNS)
    .where((eb) => eb.and({ tenancy_id: tenancyId, user_id: userId }))
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
    .orderBy('created_at', 'desc')
    .limit(1000)
    .execute();
}

export async function deleteSession(db: Executor, tenancyId: string, sessionId: string, userId?: string): Promise<boolean> {
  let query = db.deleteFrom('sessions').where('tenancy_id', '=', tenancyId).where('id', '=', sessionId);
  if (userId) query = query.where('user_id', '=', userId);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * Signs a user out of all but their `keep` newest sessions, never `newSessionId` (just created:
 * inside a transaction its created_at is the transaction's start, so it may not sort newest).
 */
/**
 * Creates a session and, in the same statement, signs out the user's sessions beyond the newest
 * `keep` (the new one counted): a client that signs in in a loop cannot grow the table without
 * bound. The DELETE does not see the row its WITH inserts (one snapshot), and leaves it alone by id.
 * Precompiled: every sign-in runs it.
 */
export async function insertSessionKeepingNewest(db: Executor, session: NewSession, keep: number): Promise<void> {
  const { tenancy_id, id, user_id } = session;
  await insertSessionQuery(
    db,
    tenancy_id,
    id,
    user_id,
    session.refresh_token_hash,
    session.is_impersonation,
    session.expires_at,
    session.last_used_ip,
    tenancy_id,
    user_id,
    id,
    tenancy_id,
    user_id,
    id,
    Math.max(0, keep - 1),
  );
}

const insertSessionQuery = precompiled(
  (
    db,
    tenancyId: string,
    id: string,
    userId: string,
    refreshTokenHash: string,
    isImpersonation: boolean,
    expiresAt: Date | null,
    lastUsedIp: string | null,
    oldTenancyId: string,
    oldUserId: string,
    newId: string,
    newestTenancyId: string,
    newestUserId: string,
    newestNewId: string,
    othersKept: number,
  ) =>
    db
      .with('inserted', (w) =>
        w.insertInto('sessions').values({
          tenancy_id: tenancyId,
          id,
          user_id: userId,
          refresh_token_hash: refreshTokenHash,
          is_impersonation: isImpersonation,
          expires_at: expiresAt,
          last_used_ip: lastUsedIp,
        }),
      )
      .deleteFrom('sessions')
      .where((eb) => eb.and({ tenancy_id: oldTenancyId, user_id: oldUserId }))
      .where('id', '!=', newId)
      .where('id', 'not in', (eb) =>
        eb
          .selectFrom('sessions as newest')
          .select('newest.id')
          .where((eb) => eb.and({ 'newest.tenancy_id': newestTenancyId, 'newest.user_id': newestUserId }))
          .where('newest.id', '!=', newestNewId)
          .orderBy('newest.created_at', 'desc')
          .orderBy('newest.id', 'desc')
          .limit(othersKept),
      ),
);

export async function deleteSessionsOfUser(db: Executor, tenancyId: string, userId: string, exceptSessionId: string | null): Promise<void> {
  let query = db.deleteFrom('sessions').where('tenancy_id', '=', tenancyId).where('user_id', '=', userId);
  if (exceptSessionId) query = query.where('id', '!=', exceptSessionId);
  await query.execute();
}
