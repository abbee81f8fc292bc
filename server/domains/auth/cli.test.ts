import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../crypto/tokens.js';
import { CLI_LOGIN_DEFAULT_EXPIRY_MILLIS } from '../../../contract/schemas/cli.js';
import { deleteOldCliAttempts } from './queries.js';
import { type Harness, type Headers_, type ProjectFixture, type UserSession, startHarness } from '../../test/harness.js';
import { expectKnownError, expectStatus, tenancyOf } from '../../test/team-fixtures.js';

/**
 * CLI login (auth/cli.ts; README "CLI login"), through real HTTP on PGlite or PostgreSQL: the
 * state machine waiting → approved | denied → used, expiry, reuse, the per-code poll interval,
 * the CLI's own session, and tenant isolation. Time is moved by rewriting the request's
 * timestamps in the database (the server judges every time by the database's now()), so no test
 * waits for a clock.
 */

let h: Harness;
let project: ProjectFixture;
let user: UserSession;
beforeAll(async () => {
  h = await startHarness();
  project = await h.createProject({ displayName: 'Acme CLI' });
  user = await h.signUpUser(project);
}, 60_000);
afterAll(async () => h?.close());

const db = () => h.latch.deps.db;

async function start(on: ProjectFixture = project, body: Record<string, unknown> = {}) {
  const res = await h.post('/auth/cli', body, on.client());
  expectStatus(res, 200);
  return res.body as { polling_code: string; login_code: string; expires_at: number };
}

const poll = (pollingCode: string, on: ProjectFixture = project) => h.post('/auth/cli/poll', { polling_code: pollingCode }, on.client());
const complete = (
  loginCode: string,
  mode?: 'check' | 'complete' | 'deny',
  headers: Headers_ = project.client(user.accessToken),
  extra: Record<string, unknown> = {},
) => h.post('/auth/cli/complete', { login_code: loginCode, ...(mode ? { mode } : {}), ...extra }, headers);

/** As if the last poll was `seconds` ago: the next poll is not too fast. */
async function pollLater(pollingCode: string, seconds = 5): Promise<void> {
  await db()
    .updateTable('cli_auth_attempts')
    .set({ last_polled_at: new Date(Date.now() - seconds * 1000) })
    .where('polling_code_hash', '=', hashSecret(pollingCode))
    .execute();
}

async function expire(pollingCode: string): Promise<void> {
  await db()
    .updateTable('cli_auth_attempts')
    .set({ expires_at: new Date(Date.now() - 1000) })
    .where('polling_code_hash', '=', hashSecret(pollingCode))
    .execute();
}

describe('CLI login', () => {
  it('waits, shows the confirm page who asks, and after approval hands the CLI a new session of its own, once', async () => {
    const before = Date.now();
    const request = await start();
    expect(request.polling_code).toMatch(/^[A-Za-z0-9_-]{38}$/);
    expect(request.login_code).toMatch(/^[A-Za-z0-9_-]{38}$/);
    expect(request.login_code).not.toBe(request.polling_code);
    // The short default expiry (10 minutes, not Stack Auth's 2 hours).
    expect(request.expires_at).toBeGreaterThanOrEqual(before + CLI_LOGIN_DEFAULT_EXPIRY_MILLIS - 1000);
    expect(request.expires_at).toBeLessThanOrEqual(Date.now() + CLI_LOGIN_DEFAULT_EXPIRY_MILLIS + 1000);

    // Only hashes are stored: no column of the row holds either code.
    const row = await db()
      .selectFrom('cli_auth_attempts')
      .select(['polling_code_hash', 'login_code_hash', 'state', 'requester_ip', 'approved_user_id'])
      .where('polling_code_hash', '=', hashSecret(request.polling_code))
      .executeTakeFirstOrThrow();
    expect(row.login_code_hash).toBe(hashSecret(request.login_code));
    expect(JSON.stringify(row)).not.toContain(request.polling_code);
    expect(JSON.stringify(row)).not.toContain(request.login_code);
    expect(row.state).toBe('waiting');

    const waiting = await poll(request.polling_code);
    expectStatus(waiting, 200);
    expect(waiting.body).toEqual({ status: 'waiting' });

    const check = await complete(request.login_code, 'check');
    expectStatus(check, 200);
    expect(check.body).toMatchObject({ status: 'waiting', project_display_name: 'Acme CLI', requester_ip: '127.0.0.1', expires_at: request.expires_at });
    // A check decides nothing.
    await pollLater(request.polling_code);
    expect((await poll(request.polling_code)).body).toEqual({ status: 'waiting' });

    const approved = await complete(request.login_code);
    expectStatus(approved, 200);
    expect(approved.body.status).toBe('approved');

    await pollLater(request.polling_code);
    const success = await poll(request.polling_code);
    expectStatus(success, 201);
    expect(success.body.status).toBe('success');
    const cliToken = success.body.refresh_token as string;
    expect(cliToken).toMatch(/^[A-Za-z0-9_-]{38}$/);
    expect(cliToken).not.toBe(user.refreshToken);

    // The CLI's token is a session of the approving user, separate from the browser's.
    const refreshed = await h.post('/auth/sessions/current/refresh', {}, { ...project.client(), 'x-latch-refresh-token': cliToken });
    expectStatus(refreshed, 200);
    const me = await h.get('/users/me', project.client(refreshed.body.access_token));
    expect(me.body.id).toBe(user.userId);
    const sessions = (await h.get(`/auth/sessions?user_id=${user.userId}`, project.server())).body.items as { id: string }[];
    expect(sessions).toHaveLength(2);
    // Signing the CLI out leaves the browser signed in.
    expectStatus(await h.del('/auth/sessions/current', project.client(refreshed.body.access_token)), 200);
    expectStatus(await h.get('/users/me', project.client(user.accessToken)), 200);

    // Once: the next poll, and another decision, hear "used".
    await pollLater(request.polling_code);
    const again = await poll(request.polling_code);
    expectKnownError(again, 400, 'CLI_AUTH_USED_ERROR');
    expect(again.body.error).toBe('This authentication token has already been used.');
    expectKnownError(await complete(request.login_code), 400, 'CLI_AUTH_USED_ERROR');
    expectKnownError(await complete(request.login_code, 'check'), 400, 'CLI_AUTH_USED_ERROR');
  });

  it('expires: an expired request can be neither approved nor picked up, even after an approval', async () => {
    const request = await start(project, { expires_in_millis: 5000 });
    expect(request.expires_at - Date.now()).toBeLessThanOrEqual(5000);
    await expire(request.polling_code);
    const expired = await poll(request.polling_code);
    expectKnownError(expired, 400, 'CLI_AUTH_EXPIRED_ERROR');
    expect(expired.body.error).toBe('CLI authentication request expired. Please try again.');
    expectKnownError(await complete(request.login_code), 400, 'CLI_AUTH_EXPIRED_ERROR');

    const late = await start();
    expectStatus(await complete(late.login_code), 200);
    await expire(late.polling_code);
    expectKnownError(await poll(late.polling_code), 400, 'CLI_AUTH_EXPIRED_ERROR');

    // Old requests are cleaned up (by chance, on new requests) a day after they expire, not before.
    const old = await start();
    await db()
      .updateTable('cli_auth_attempts')
      .set({ expires_at: new Date(Date.now() - 2 * 24 * 60 * 60 * 1000) })
      .where('polling_code_hash', '=', hashSecret(old.polling_code))
      .execute();
    await deleteOldCliAttempts(db(), 24 * 60 * 60, 500);
    expectKnownError(await poll(old.polling_code), 400, 'INVALID_POLLING_CODE');
    expectKnownError(await poll(request.polling_code), 400, 'CLI_AUTH_EXPIRED_ERROR');

    // Expiry is bounded: at most an hour, at least a second.
    expectKnownError(await h.post('/auth/cli', { expires_in_millis: 2 * 60 * 60 * 1000 }, project.client()), 400, 'SCHEMA_ERROR');
    expectKnownError(await h.post('/auth/cli', { expires_in_millis: 10 }, project.client()), 400, 'SCHEMA_ERROR');
  });

  it('deny: the CLI hears CLI_AUTH_ERROR, and the request cannot be approved afterwards', async () => {
    const request = await start();
    const denied = await complete(request.login_code, 'deny');
    expectStatus(denied, 200);
    expect(denied.body.status).toBe('denied');
    expectKnownError(await poll(request.polling_code), 400, 'CLI_AUTH_ERROR');
    expectKnownError(await complete(request.login_code), 400, 'CLI_AUTH_USED_ERROR');
    await pollLater(request.polling_code);
    expectKnownError(await poll(request.polling_code), 400, 'CLI_AUTH_ERROR');
    expect((await h.get(`/auth/sessions?user_id=${user.userId}`, project.server())).body.items).toHaveLength(1);
  });

  it('slows down a client that polls faster than once a second per code (RATE_LIMITED, Retry-After: 1)', async () => {
    const request = await start();
    expectStatus(await poll(request.polling_code), 200);
    const tooFast = await poll(request.polling_code);
    expectKnownError(tooFast, 429, 'RATE_LIMITED');
    expect(tooFast.headers.get('retry-after')).toBe('1');
    expect(tooFast.body.details).toEqual({ retry_after_seconds: 1 });
    // Another code is not slowed by this one.
    expectStatus(await poll((await start()).polling_code), 200);
    await pollLater(request.polling_code, 2);
    expectStatus(await poll(request.polling_code), 200);

    // After approval, a burst of polls yields exactly one session.
    expectStatus(await complete(request.login_code), 200);
    await pollLater(request.polling_code);
    const burst = await Promise.all(Array.from({ length: 5 }, () => poll(request.polling_code)));
    expect(burst.filter((res) => res.status === 201)).toHaveLength(1);
    for (const res of burst.filter((r) => r.status !== 201)) expect(['RATE_LIMITED', 'CLI_AUTH_USED_ERROR']).toContain(res.body.code);
  });

  it('refuses unknown codes, and needs a signed-in approver', async () => {
    expectKnownError(await poll('not-a-polling-code'), 400, 'INVALID_POLLING_CODE');
    expectKnownError(await complete('not-a-login-code'), 400, 'CLI_AUTH_ERROR');
    const request = await start();
    // The polling code is not a login code, nor the other way round.
    expectKnownError(await complete(request.polling_code), 400, 'CLI_AUTH_ERROR');
    expectKnownError(await poll(request.login_code), 400, 'INVALID_POLLING_CODE');
    expectKnownError(await complete(request.login_code, 'complete', project.client()), 401, 'USER_AUTHENTICATION_REQUIRED');
    expectKnownError(
      await complete(request.login_code, 'complete', project.client(), { refresh_token: 'not-a-token' }),
      401,
      'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED',
    );
    // A guest (anonymous user) counts as signed out, with either credential.
    const guest = await h.post('/auth/anonymous/sign-up', {}, project.client());
    const asGuest = { ...project.client(guest.body.access_token), 'x-latch-allow-anonymous-user': 'true' };
    expectKnownError(await complete(request.login_code, 'complete', asGuest), 401, 'USER_AUTHENTICATION_REQUIRED');
    expectKnownError(
      await complete(request.login_code, 'complete', project.client(), { refresh_token: guest.body.refresh_token }),
      401,
      'USER_AUTHENTICATION_REQUIRED',
    );
    expect((await poll(request.polling_code)).body).toEqual({ status: 'waiting' });
  });

  it("accepts the spec's request shape (login_code, refresh_token), but still gives the CLI a session of its own", async () => {
    const browser = await h.signUpUser(project);
    const request = await start();
    const approved = await complete(request.login_code, undefined, project.client(), { refresh_token: browser.refreshToken });
    expectStatus(approved, 200);
    expect(approved.body.status).toBe('approved');
    const success = await poll(request.polling_code);
    expectStatus(success, 201);
    expect(success.body.refresh_token).not.toBe(browser.refreshToken);
    const refreshed = await h.post('/auth/sessions/current/refresh', {}, { ...project.client(), 'x-latch-refresh-token': success.body.refresh_token });
    expect((await h.get('/users/me', project.client(refreshed.body.access_token))).body.id).toBe(browser.userId);
    // The browser's token was not consumed or shared: it still refreshes, and signing the browser
    // out leaves the CLI signed in.
    expectStatus(await h.del('/auth/sessions/current', project.client(browser.accessToken)), 200);
    expectStatus(await h.post('/auth/sessions/current/refresh', {}, { ...project.client(), 'x-latch-refresh-token': success.body.refresh_token }), 200);
  });

  it("keeps tenants apart: project A's codes are useless in project B", async () => {
    const other = await h.createProject({ displayName: 'Other app' });
    const otherUser = await h.signUpUser(other);
    const request = await start(project);
    expectKnownError(await poll(request.polling_code, other), 400, 'INVALID_POLLING_CODE');
    expectKnownError(await complete(request.login_code, 'check', other.client(otherUser.accessToken)), 400, 'CLI_AUTH_ERROR');
    expectKnownError(await complete(request.login_code, 'complete', other.client(otherUser.accessToken)), 400, 'CLI_AUTH_ERROR');
    expectKnownError(await complete(request.login_code, 'deny', other.client(otherUser.accessToken)), 400, 'CLI_AUTH_ERROR');
    // A's user's token does not work on B's project either.
    expect((await complete(request.login_code, 'complete', other.client(user.accessToken))).status).toBe(401);
    // A's request is untouched.
    const row = await db()
      .selectFrom('cli_auth_attempts')
      .select(['tenancy_id', 'state'])
      .where('polling_code_hash', '=', hashSecret(request.polling_code))
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ tenancy_id: (await tenancyOf(h, project.id)).id, state: 'waiting' });
    // And approving in A, then polling in B, still finds nothing.
    expectStatus(await complete(request.login_code), 200);
    expectKnownError(await poll(request.polling_code, other), 400, 'INVALID_POLLING_CODE');
    expectStatus(await poll(request.polling_code), 201);
  });
});
