import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, type ProjectFixture, type UserSession, startHarness } from '../test/harness.js';

/**
 * users.last_active_at moves when a user acts (access/policy.ts noteUserActive): on every request
 * with a live session and on token refresh, at most once a minute per user per instance, written
 * beside the response (so the tests poll for it).
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

const HOUR = 3_600_000;

async function setLastActiveAnHourAgo(user: UserSession): Promise<void> {
  await sql`update users set last_active_at = now() - interval '1 hour' where id = ${user.userId}`.execute(h.latch.deps.db);
}

/** last_active_at_millis as the user DTO shows it (server view: clients never see it). */
async function lastActiveMillis(project: ProjectFixture, user: UserSession): Promise<number> {
  const res = await h.get(`/users/${user.userId}`, project.server());
  expect(res.status).toBe(200);
  return res.body.last_active_at_millis as number;
}

describe('last_active_at', () => {
  it('moves when the user calls GET /users/me, and not again within the minute', async () => {
    const project = await h.createProject();
    const user = await h.signUpUser(project);
    await setLastActiveAnHourAgo(user);
    expect(Date.now() - (await lastActiveMillis(project, user))).toBeGreaterThan(HOUR - 60_000);

    expect((await h.get('/users/me', project.client(user.accessToken))).status).toBe(200);
    await expect.poll(async () => Date.now() - (await lastActiveMillis(project, user))).toBeLessThan(60_000);

    // A second call within the minute writes nothing: the column set back stays back.
    await setLastActiveAnHourAgo(user);
    expect((await h.get('/users/me', project.client(user.accessToken))).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(Date.now() - (await lastActiveMillis(project, user))).toBeGreaterThan(HOUR - 60_000);
  });

  it('moves on token refresh', async () => {
    const project = await h.createProject();
    const user = await h.signUpUser(project);
    await setLastActiveAnHourAgo(user);
    const refresh = await h.post('/auth/sessions/current/refresh', {}, { ...project.client(), 'x-latch-refresh-token': user.refreshToken });
    expect(refresh.status).toBe(200);
    await expect.poll(async () => Date.now() - (await lastActiveMillis(project, user))).toBeLessThan(60_000);
  });

  it('does not move for a server call about the user (the server acts, not the user)', async () => {
    const project = await h.createProject();
    const user = await h.signUpUser(project);
    await setLastActiveAnHourAgo(user);
    await lastActiveMillis(project, user);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(Date.now() - (await lastActiveMillis(project, user))).toBeGreaterThan(HOUR - 60_000);
  });
});
