import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../test/harness.js';
import { expectKnownError, expectStatus } from '../../test/team-fixtures.js';

/** GET /internal/metrics through real HTTP: the admin console's overview numbers. */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const today = () => new Date().toISOString().slice(0, 10);

describe('GET /internal/metrics', () => {
  it('counts users, sign-ups per day and activity, with anonymous users only when asked', async () => {
    const project = await h.createProject();
    const other = await h.createProject();
    await h.signUpUser(project);
    await h.signUpUser(project);
    await h.signUpUser(other);
    const anonymous = await h.post('/auth/anonymous/sign-up', {}, { ...project.client(), 'x-latch-allow-anonymous-user': 'true' });
    expectStatus(anonymous, 200);
    // A user who signed up 3 days ago and was last active 2 days ago.
    const old = await h.signUpUser(project);
    await sql`update users set signed_up_at = now() - interval '3 days', last_active_at = now() - interval '2 days' where id = ${old.userId}`.execute(
      h.latch.deps.db,
    );

    const res = await h.get('/internal/metrics', project.ownerAdmin());
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ total_users: 3 + 0, anonymous_users: 1, users_by_auth_method: { password: 3, passkey: 0 } });
    expect(res.body.active_users).toEqual({ last_day: 2, last_7_days: 3, last_30_days: 3 });
    expect(res.body.sign_ups_per_day).toHaveLength(30);
    expect(res.body.sign_ups_per_day.at(-1)).toEqual({ date: today(), count: 2 });
    const threeDaysAgo = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
    expect(res.body.sign_ups_per_day.find((d: { date: string }) => d.date === threeDaysAgo)?.count).toBe(1);
    expect(res.body.last_active_per_day.at(-1)).toEqual({ date: today(), count: 2 });
    // Signing up is activity: today's two sign-ups are today's daily active users (anonymous left out).
    expect(res.body.daily_active_users.at(-1)).toEqual({ date: today(), count: 2 });

    const withAnonymous = await h.get('/internal/metrics?include_anonymous=true', project.admin());
    expectStatus(withAnonymous, 200);
    expect(withAnonymous.body.total_users).toBe(4);
    expect(withAnonymous.body.sign_ups_per_day.at(-1).count).toBe(3);
    const withoutAnonymous = await h.get('/internal/metrics?include_anonymous=false', project.admin());
    expect(withoutAnonymous.body.total_users).toBe(3);

    // Tenant isolation: the other project sees only its own user.
    const otherMetrics = await h.get('/internal/metrics', other.ownerAdmin());
    expect(otherMetrics.body.total_users).toBe(1);
  });

  it('counts a user as active when they act, not only on the day they signed up', async () => {
    const project = await h.createProject();
    const user = await h.signUpUser(project);
    await sql`update users set signed_up_at = now() - interval '10 days', last_active_at = now() - interval '10 days' where id = ${user.userId}`.execute(
      h.latch.deps.db,
    );
    const before = await h.get('/internal/metrics', project.admin());
    expectStatus(before, 200);
    expect(before.body.active_users).toEqual({ last_day: 0, last_7_days: 0, last_30_days: 1 });

    // The user acts (GET /users/me): last_active_at moves, written beside the response.
    expectStatus(await h.get('/users/me', project.client(user.accessToken)), 200);
    await expect
      .poll(async () => (await h.get('/internal/metrics', project.admin())).body.active_users)
      .toEqual({ last_day: 1, last_7_days: 1, last_30_days: 1 });
    const after = await h.get('/internal/metrics', project.admin());
    expect(after.body.last_active_per_day.at(-1)).toEqual({ date: today(), count: 1 });
    expect(after.body.sign_ups_per_day.at(-1)).toEqual({ date: today(), count: 0 });
  });

  it('keeps daily active users as a history: a user active on two days counts on both', async () => {
    const project = await h.createProject();
    const other = await h.createProject();
    const user = await h.signUpUser(project);
    const stranger = await h.signUpUser(other);
    await sql`update users set signed_up_at = now() - interval '10 days', last_active_at = now() - interval '1 hour' where id = ${user.userId}`.execute(
      h.latch.deps.db,
    );
    // A day five days back from the history (as an earlier touch wrote it), then the user acts today.
    const fiveDaysAgo = new Date(Date.now() - 5 * 86_400_000).toISOString().slice(0, 10);
    await sql`insert into user_daily_activity (tenancy_id, day, user_id) select tenancy_id, ${fiveDaysAgo}::date, id from users where id = ${user.userId}`.execute(
      h.latch.deps.db,
    );
    expectStatus(await h.get('/users/me', project.client(user.accessToken)), 200);
    expectStatus(await h.get('/users/me', other.client(stranger.accessToken)), 200);
    const series = async () => (await h.get('/internal/metrics', project.admin())).body.daily_active_users as { date: string; count: number }[];
    await expect.poll(async () => (await series()).at(-1)).toEqual({ date: today(), count: 1 });
    const days = await series();
    expect(days).toHaveLength(30);
    expect(days.find((d) => d.date === fiveDaysAgo)?.count).toBe(1);
    // Last seen is today only; the history keeps the earlier days (and the sign-up day, ten days back).
    // The other project's user is not here.
    const tenDaysAgo = new Date(Date.now() - 10 * 86_400_000).toISOString().slice(0, 10);
    expect(days.find((d) => d.date === tenDaysAgo)?.count).toBe(1);
    expect(days.reduce((sum, d) => sum + d.count, 0)).toBe(3);
    // One row per user and day however often they act (ON CONFLICT DO NOTHING).
    await sql`update users set last_active_at = now() - interval '1 hour' where id = ${user.userId}`.execute(h.latch.deps.db);
    const rows = await sql<{ n: number }>`select count(*)::int as n from user_daily_activity where user_id = ${user.userId}`.execute(h.latch.deps.db);
    expect(Number(rows.rows[0]!.n)).toBe(2);
  });

  it('needs admin access', async () => {
    const project = await h.createProject();
    expectKnownError(await h.get('/internal/metrics', project.server()), 401, 'INSUFFICIENT_ACCESS_TYPE');
    expectKnownError(await h.get('/internal/metrics', project.client()), 401, 'INSUFFICIENT_ACCESS_TYPE');
    // Another project's admin key, sent for this project: refused, nothing of this project comes back.
    const other = await h.createProject();
    const foreign = await h.get('/internal/metrics', { ...project.admin(), 'x-latch-super-secret-admin-key': other.superSecretAdminKey });
    expect(foreign.status).toBe(401);
    expect(foreign.body.total_users).toBeUndefined();
    expect(foreign.headers.get('x-latch-known-error')).toBe(foreign.body.code);
  });

  it('refuses a malformed include_anonymous', async () => {
    const project = await h.createProject();
    expectKnownError(await h.get('/internal/metrics?include_anonymous=maybe', project.admin()), 400, 'SCHEMA_ERROR');
  });
});
