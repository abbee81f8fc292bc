import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../crypto/tokens.js';
import { type Harness, type ProjectFixture, type UserSession, startHarness } from '../../test/harness.js';
import { expectKnownError, expectStatus } from '../../test/team-fixtures.js';

/**
 * Impersonation by link (auth/impersonation.ts; README "Impersonation"), through real HTTP on
 * PGlite or PostgreSQL: a code from the admin (or server) key starts one impersonation session,
 * once, for the user it names, in its own project only; the code is stored hashed. Expiry is
 * moved in the database (the server judges time by its rows), so no test waits for a clock.
 */

let h: Harness;
let project: ProjectFixture;
let other: ProjectFixture;
let user: UserSession;
beforeAll(async () => {
  h = await startHarness();
  [project, other] = await Promise.all([h.createProject({ displayName: 'Acme' }), h.createProject({ displayName: 'Other' })]);
  user = await h.signUpUser(project);
}, 60_000);
afterAll(async () => h?.close());

async function newCode(on: ProjectFixture = project, userId = user.userId): Promise<{ code: string; user_id: string; expires_at_millis: number }> {
  const res = await h.post('/auth/impersonation/codes', { user_id: userId }, on.admin());
  expectStatus(res, 201);
  return res.body;
}

describe('impersonation codes', () => {
  it('start one impersonation session of the user, marked in their session list, and work once', async () => {
    const before = Date.now();
    const issued = await newCode();
    expect(issued.user_id).toBe(user.userId);
    expect(issued.expires_at_millis).toBeGreaterThanOrEqual(before + 59_000);
    expect(issued.expires_at_millis).toBeLessThanOrEqual(Date.now() + 61_000);
    // Stored as its hash only.
    const rows = await h.latch.deps.db
      .selectFrom('verification_codes')
      .select(['code_hash', 'purpose'])
      .where('code_hash', '=', hashSecret(issued.code))
      .execute();
    expect(rows).toEqual([{ code_hash: hashSecret(issued.code), purpose: 'impersonation' }]);

    const signIn = await h.post('/auth/impersonation/sign-in', { code: issued.code }, project.client());
    expectStatus(signIn, 200);
    expect(signIn.body).toMatchObject({ user_id: user.userId, is_new_user: false, access_token: expect.any(String), refresh_token: expect.any(String) });
    const me = await h.get('/users/me', project.client(signIn.body.access_token));
    expectStatus(me, 200);
    expect(me.body.id).toBe(user.userId);
    const sessions = await h.get('/auth/sessions', project.client(signIn.body.access_token));
    const current = sessions.body.items.find((session: { is_current_session: boolean }) => session.is_current_session);
    expect(current.is_impersonation).toBe(true);
    // The session lasts an hour by default.
    const row = await h.latch.deps.db.selectFrom('sessions').select('expires_at').where('id', '=', current.id).executeTakeFirstOrThrow();
    expect(row.expires_at!.getTime() - Date.now()).toBeGreaterThan(59 * 60_000);
    expect(row.expires_at!.getTime() - Date.now()).toBeLessThanOrEqual(60 * 60_000);

    expectKnownError(await h.post('/auth/impersonation/sign-in', { code: issued.code }, project.client()), 409, 'ALREADY_USED');
  });

  it('expire after 60 seconds and refuse made-up codes', async () => {
    const issued = await newCode();
    await h.latch.deps.db
      .updateTable('verification_codes')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('code_hash', '=', hashSecret(issued.code))
      .execute();
    expectKnownError(await h.post('/auth/impersonation/sign-in', { code: issued.code }, project.client()), 400, 'EXPIRED');
    expectKnownError(await h.post('/auth/impersonation/sign-in', { code: 'not-a-code' }, project.client()), 404, 'CODE_NOT_FOUND');
  });

  it('are made with a server or admin key only, for a user of the same project', async () => {
    expectStatus(await h.post('/auth/impersonation/codes', { user_id: user.userId }, project.server()), 201);
    const asClient = await h.post('/auth/impersonation/codes', { user_id: user.userId }, project.client(user.accessToken));
    expect(asClient.status).toBe(401);
    expectKnownError(await h.post('/auth/impersonation/codes', { user_id: user.userId }, other.admin()), 400, 'USER_ID_DOES_NOT_EXIST');
  });

  it("of one project do nothing in another (and another project's codes do nothing here)", async () => {
    const issued = await newCode();
    expectKnownError(await h.post('/auth/impersonation/sign-in', { code: issued.code }, other.client()), 404, 'CODE_NOT_FOUND');
    // Still unused in its own project.
    expectStatus(await h.post('/auth/impersonation/sign-in', { code: issued.code }, project.client()), 200);
  });

  it('are not other codes: a password reset code is not an impersonation code', async () => {
    // A code of another purpose is not found here, whatever it is.
    const outsider = await h.signUpUser(project);
    const issued = await newCode(project, outsider.userId);
    await h.latch.deps.db.updateTable('verification_codes').set({ purpose: 'password_reset' }).where('code_hash', '=', hashSecret(issued.code)).execute();
    expectKnownError(await h.post('/auth/impersonation/sign-in', { code: issued.code }, project.client()), 404, 'CODE_NOT_FOUND');
  });
});
