import { sql } from 'kysely';
import type { NewUser, UserRow, UserUpdate } from '../../db/schema.js';
import type { Executor } from '../../db/executor.js';
import { precompiled } from '../../db/precompiled.js';
import { USER_COLUMNS, qualified } from '../../db/columns.js';

export async function findUser(db: Executor, tenancyId: string, userId: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').select(USER_COLUMNS).where('tenancy_id', '=', tenancyId).where('id', '=', userId).executeTakeFirst();
}

/**
 * The signed-in user, only while the session behind the access token still exists: a deleted user
 * or a revoked session stops working at once, not when the access token expires. One indexed join.
 */
export async function findSessionUser(
  db: Executor,
  tenancyId: string,
  userId: string,
  sessionId: string,
  options: { forUpdate?: boolean } = {},
): Promise<UserRow | undefined> {
  // Every GET /users/me: the precompiled form.
  if (!options.forUpdate) return (await sessionUserQuery(db, tenancyId, userId, sessionId))[0];
  let query = db
    .selectFrom('users as u')
    .innerJoin('sessions as s', (join) => join.onRef('s.tenancy_id', '=', 'u.tenancy_id').onRef('s.user_id', '=', 'u.id'))
    .select(qualified('u', USER_COLUMNS))
    .where((eb) => eb.and({ 'u.tenancy_id': tenancyId, 'u.id': userId }))
    .where('s.id', '=', sessionId);
  // Inside a transaction: holds the user and session rows until it ends (serializes concurrent upgrades).
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

const sessionUserQuery = precompiled((db, tenancyId: string, userId: string, sessionId: string) =>
  db
    .selectFrom('users as u')
    .innerJoin('sessions as s', (join) => join.onRef('s.tenancy_id', '=', 'u.tenancy_id').onRef('s.user_id', '=', 'u.id'))
    .select(qualified('u', USER_COLUMNS))
    .where('u.tenancy_id', '=', tenancyId)
    .where('u.id', '=', userId)
    .where('s.id', '=', sessionId),
);

/**
 * The user who signs in with this email (case-insensitive): the holder of the verified sign-in
 * address, else the newest unverified claim (contact-channels/queries.ts, findAuthChannel).
 */
export async function findUserByAuthEmail(db: Executor, tenancyId: string, email: string): Promise<UserRow | undefined> {
  return (await userByAuthEmailQuery(db, tenancyId, email.toLowerCase()))[0];
}

// Every password sign-in: the precompiled form.
const userByAuthEmailQuery = precompiled((db, tenancyId: string, lowerEmail: string) =>
  db
    .selectFrom('contact_channels as c')
    .innerJoin('users as u', (join) => join.onRef('u.tenancy_id', '=', 'c.tenancy_id').onRef('u.id', '=', 'c.user_id'))
    .select(qualified('u', USER_COLUMNS))
    .where('c.tenancy_id', '=', tenancyId)
    .where('c.type', '=', sql.lit('email'))
    .where(sql`lower(c.value)`, '=', lowerEmail)
    .where('c.used_for_auth', '=', sql.lit(true))
    .orderBy('c.is_verified', 'desc')
    .orderBy('c.created_at', 'desc')
    .orderBy('c.id', 'desc')
    .limit(sql.lit(1)),
);

export async function insertUser(db: Executor, user: NewUser): Promise<UserRow> {
  return db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
}

export async function updateUser(db: Executor, tenancyId: string, userId: string, patch: UserUpdate): Promise<UserRow | undefined> {
  if (Object.keys(patch).length === 0) return findUser(db, tenancyId, userId);
  return db.updateTable('users').set(patch).where('tenancy_id', '=', tenancyId).where('id', '=', userId).returningAll().executeTakeFirst();
}

export async function deleteUser(db: Executor, tenancyId: string, userId: string): Promise<boolean> {
  const result = await db.deleteFrom('users').where('tenancy_id', '=', tenancyId).where('id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function setSelectedTeam(db: Executor, tenancyId: string, userId: string, teamId: string | null): Promise<void> {
  await db.updateTable('users').set({ selected_team_id: teamId }).where('tenancy_id', '=', tenancyId).where('id', '=', userId).execute();
}

/**
 * Marks the user active now, unless that was done in the last minute (another instance may just
 * have), and records today (UTC) in user_daily_activity, the daily-active-users history (ON
 * CONFLICT DO NOTHING: one row per user and day). access/policy.ts noteUserActive calls it,
 * throttled to once a minute per user, beside the response: one statement, one round trip.
 * Precompiled: it runs on the hot routes (a prepared statement on PostgreSQL).
 */
export async function touchLastActive(db: Executor, tenancyId: string, userId: string): Promise<void> {
  await touchLastActiveQuery(db, tenancyId, userId, tenancyId, userId);
}

// A data-modifying WITH runs whether or not the statement reads it (PostgreSQL and PGlite alike).
const touchLastActiveQuery = precompiled((db, tenancyId: string, userId: string, activityTenancyId: string, activityUserId: string) =>
  db
    .with('touched', (w) =>
      w
        .updateTable('users')
        .set({ last_active_at: sql<Date>`now()` })
        .where('tenancy_id', '=', tenancyId)
        .where('id', '=', userId)
        .where('last_active_at', '<', sql<Date>`now() - interval '60 seconds'`)
        .returning('id'),
    )
    .insertInto('user_daily_activity')
    .values({ tenancy_id: activityTenancyId, day: sql<string>`(now() at time zone 'UTC')::date`, user_id: activityUserId })
    .onConflict((oc) => oc.doNothing()),
);

/** Replaces the user's primary email channel (the unique index refuses an auth email in use). */
export async function replacePrimaryEmail(db: Executor, tenancyId: string, userId: string, channel: PrimaryEmail | null): Promise<void> {
  await db.deleteFrom('contact_channels').where('tenancy_id', '=', tenancyId).where('user_id', '=', userId).where('is_primary', '=', true).execute();
  if (channel) await insertPrimaryEmail(db, tenancyId, userId, channel);
}

type PrimaryEmail = { id: string; value: string; is_verified: boolean; used_for_auth: boolean };

/**
 * The user's primary email channel; replacePrimaryEmail's second half, alone for a user made in the
 * same transaction, who has no channel to remove yet.
 */
export async function insertPrimaryEmail(db: Executor, tenancyId: string, userId: string, channel: PrimaryEmail): Promise<void> {
  await db
    .insertInto('contact_channels')
    .values({ tenancy_id: tenancyId, user_id: userId, type: 'email', is_primary: true, ...channel })
    .onConflict((oc) =>
      oc
        .expression(sql`tenancy_id, user_id, type, lower(value)`)
        .doUpdateSet({ is_primary: true, is_verified: channel.is_verified, used_for_auth: channel.used_for_auth }),
    )
    .execute();
}

export async function updatePrimaryChannelFlags(
  db: Executor,
  tenancyId: string,
  userId: string,
  flags: { is_verified?: boolean; used_for_auth?: boolean },
): Promise<void> {
  if (Object.keys(flags).length === 0) return;
  await db
    .updateTable('contact_channels')
    .set(flags)
    .where((eb) => eb.and({ tenancy_id: tenancyId, user_id: userId, is_primary: true }))
    .execute();
}

export interface UserListOptions {
  limit: number;
  desc: boolean;
  after: { signedUpAt: Date; id: string } | null;
  query: string | null;
  includeAnonymous: boolean;
  teamId: string | null;
}

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Keyset page over (signed_up_at, id): stable under concurrent inserts, no OFFSET. */
export async function listUsers(db: Executor, tenancyId: string, o: UserListOptions): Promise<UserRow[]> {
  let query = db.selectFrom('users as u').select(qualified('u', USER_COLUMNS)).where('u.tenancy_id', '=', tenancyId);
  if (!o.includeAnonymous) query = query.where('u.is_anonymous', '=', false);
  if (o.teamId) {
    const teamId = o.teamId;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('team_members as m')
          .select('m.user_id')
          .whereRef('m.tenancy_id', '=', 'u.tenancy_id')
          .whereRef('m.user_id', '=', 'u.id')
          .where('m.team_id', '=', teamId),
      ),
    );
  }
  if (o.query) {
    const pattern = `%${escapeLike(o.query.toLowerCase())}%`;
    const exactId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(o.query) ? o.query.toLowerCase() : null;
    query = query.where((eb) =>
      eb.or([
        eb(sql`lower(u.primary_email)`, 'like', pattern),
        eb(sql`lower(u.display_name)`, 'like', pattern),
        ...(exactId ? [eb('u.id', '=', exactId)] : []),
      ]),
    );
  }
  if (o.after) {
    const { signedUpAt, id } = o.after;
    query = o.desc
      ? query.where(sql<boolean>`(u.signed_up_at, u.id) < (${signedUpAt}, ${id})`)
      : query.where(sql<boolean>`(u.signed_up_at, u.id) > (${signedUpAt}, ${id})`);
  }
  const direction = o.desc ? 'desc' : 'asc';
  return query.orderBy('u.signed_up_at', direction).orderBy('u.id', direction).limit(o.limit).execute();
}
