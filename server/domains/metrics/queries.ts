import { sql } from 'kysely';
import type { Executor } from '../../db/executor.js';

/**
 * The overview's numbers, in three statements over one tenancy's users; counts are cast in SQL
 * because PGlite and pg return bigint differently. Sign-ups per day is a range scan of the
 * (tenancy_id, signed_up_at, id) index. The totals and the last-active series read every row of
 * the tenancy: measured on PostgreSQL 15 with 1 M users in one project, ≈150 ms each (sign-ups
 * per day ≈50 ms), run side by side. That is the console's overview, not a hot path, so
 * last_active_at gets no index: it is bumped on authenticated calls, and an index on it would cost
 * those writes their HOT updates.
 */
export interface UserTotalsRow {
  total: number;
  anonymous: number;
  active_day: number;
  active_week: number;
  active_month: number;
  password: number;
  email_code: number;
  passkey: number;
  none: number;
}

export async function userTotals(db: Executor, tenancyId: string, includeAnonymous: boolean): Promise<UserTotalsRow> {
  const counted = includeAnonymous ? sql`true` : sql`not is_anonymous`;
  const row = await db
    .selectFrom('users')
    .select([
      sql<number>`count(*) filter (where ${counted})::int`.as('total'),
      sql<number>`count(*) filter (where is_anonymous)::int`.as('anonymous'),
      sql<number>`count(*) filter (where ${counted} and last_active_at > now() - interval '1 day')::int`.as('active_day'),
      sql<number>`count(*) filter (where ${counted} and last_active_at > now() - interval '7 days')::int`.as('active_week'),
      sql<number>`count(*) filter (where ${counted} and last_active_at > now() - interval '30 days')::int`.as('active_month'),
      sql<number>`count(*) filter (where ${counted} and password_hash is not null)::int`.as('password'),
      sql<number>`count(*) filter (where ${counted} and auth_with_email)::int`.as('email_code'),
      sql<number>`count(*) filter (where ${counted} and passkey_auth_enabled)::int`.as('passkey'),
      sql<number>`count(*) filter (where ${counted} and password_hash is null and not auth_with_email and not passkey_auth_enabled)::int`.as('none'),
    ])
    .where('tenancy_id', '=', tenancyId)
    .executeTakeFirstOrThrow();
  return {
    total: Number(row.total),
    anonymous: Number(row.anonymous),
    active_day: Number(row.active_day),
    active_week: Number(row.active_week),
    active_month: Number(row.active_month),
    password: Number(row.password),
    email_code: Number(row.email_code),
    passkey: Number(row.passkey),
    none: Number(row.none),
  };
}

/** Per UTC day since `since`: sign-ups (range scan on the list index) and users last active that day. */
export async function dailyCounts(
  db: Executor,
  tenancyId: string,
  since: Date,
  includeAnonymous: boolean,
): Promise<{ signUps: Map<string, number>; lastActive: Map<string, number> }> {
  // Users per UTC day of one timestamp column, from `since` on.
  const usersPerDay = (column: 'signed_up_at' | 'last_active_at') =>
    db
      .selectFrom('users')
      .select([sql<string>`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD')`.as('day'), sql<number>`count(*)::int`.as('count')])
      .where('tenancy_id', '=', tenancyId)
      .where(column, '>=', since)
      .$if(!includeAnonymous, (qb) => qb.where('is_anonymous', '=', false))
      .groupBy(sql`1`)
      .execute();
  const [signUps, lastActive] = await Promise.all([usersPerDay('signed_up_at'), usersPerDay('last_active_at')]);
  return {
    signUps: new Map(signUps.map((row) => [row.day, Number(row.count)])),
    lastActive: new Map(lastActive.map((row) => [row.day, Number(row.count)])),
  };
}

/**
 * Daily active users per UTC day since `since`: the users with a user_daily_activity row that day
 * (written by the throttled last-active update) or who signed up that day (a sign-up is activity,
 * and its last_active_at starts at now, so the first minute's touch writes nothing). A range scan
 * of the (tenancy_id, day, user_id) key plus the sign-up index.
 */
export async function dailyActiveUsers(db: Executor, tenancyId: string, since: Date, includeAnonymous: boolean): Promise<Map<string, number>> {
  const activity = db
    .selectFrom('user_daily_activity')
    .select([sql<string>`to_char(day, 'YYYY-MM-DD')`.as('day'), 'user_id'])
    .where('tenancy_id', '=', tenancyId)
    .where('day', '>=', sql<string>`(${since}::timestamptz at time zone 'UTC')::date`)
    .union(
      db
        .selectFrom('users')
        .select([sql<string>`to_char(signed_up_at at time zone 'UTC', 'YYYY-MM-DD')`.as('day'), 'id as user_id'])
        .where('tenancy_id', '=', tenancyId)
        .where('signed_up_at', '>=', since),
    );
  const rows = await db
    .selectFrom(activity.as('a'))
    .select(['a.day', sql<number>`count(*)::int`.as('count')])
    // Anonymous users are left out unless asked for; a deleted user's days still count.
    .$if(!includeAnonymous, (qb) =>
      qb.where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('users')
              .select('users.id')
              .where('users.tenancy_id', '=', tenancyId)
              .whereRef('users.id', '=', 'a.user_id')
              .where('users.is_anonymous', '=', true),
          ),
        ),
      ),
    )
    .groupBy('a.day')
    .execute();
  return new Map(rows.map((row) => [row.day, Number(row.count)]));
}
