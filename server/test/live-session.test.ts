import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, type Harness, type Headers_, type OwnerSession, type ProjectFixture, type UserSession, startHarness } from './harness.js';
import { expectKnownError } from './team-fixtures.js';

/**
 * Issue 13 item 5: revocation is immediate on every route that acts for a user. An access token is
 * a JWT that verifies for 10 minutes without the database; the access layer (server/access/policy.ts,
 * run by trpc/procedures.ts) refuses it as soon as its session is gone. This file walks openapi.json,
 * so a route added later without the check fails here.
 */

let h: Harness;
let owner: OwnerSession;
let project: ProjectFixture;
/** A project user whose access token is still unexpired but whose session was signed out. */
let deadUserToken: string;
/** An owner's internal token whose session was signed out (the owner still owns the project). */
let deadOwnerToken: string;

const OWNER_PASSWORD = 'owner-password-1';

const doc = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')) as { paths: Record<string, Record<string, unknown>> };
const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => ({ path, method: method.toUpperCase() })));

/**
 * The ways in and the public routes: they act for a caller who is not signed in (yet), so an
 * access token sent along is not theirs to check (trpc/procedures.ts signInProcedure,
 * projectAccessProcedure, publicProcedure). Nothing else may be listed here.
 */
const NOT_ACTING_FOR_A_USER = new Set([
  'POST /auth/password/sign-up', // upgrades an anonymous caller in place only while its session lives (under a lock)
  'POST /auth/password/sign-in',
  'POST /auth/password/send-reset-code',
  'POST /auth/password/reset/check-code',
  'POST /auth/password/reset',
  'POST /auth/otp/send-sign-in-code',
  'POST /auth/otp/sign-in',
  'POST /auth/anonymous/sign-up',
  'POST /auth/cli', // a CLI that is not signed in asks for its codes
  'POST /auth/cli/poll', // authenticates by the polling code
  'POST /auth/impersonation/sign-in', // authenticates by the impersonation code
  'POST /auth/mfa/sign-in', // the second step of a way in: the attempt code says who, not a session
  'POST /auth/passkey/initiate-passkey-authentication', // a passkey sign-in starts signed out
  'POST /auth/passkey/sign-in', // the passkey says who
  'POST /auth/sessions/current/refresh', // authenticates by the refresh token, never reads the access token
  'POST /auth/oauth/token', // the same, in the OAuth form
  'GET /projects/{project_id}/.well-known/jwks.json', // public
]);

async function signIn(email: string, password: string, headers: Headers_): Promise<{ access_token: string; refresh_token: string }> {
  const res = await h.post('/auth/password/sign-in', { email, password }, headers);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** Signs `token`'s session out and checks the token itself would still verify (it is not expired). */
async function killSession(token: string, headers: (token: string) => Headers_): Promise<void> {
  expect((await h.get('/users/me', headers(token))).status).toBe(200);
  expect((await h.del('/auth/sessions/current', headers(token))).status).toBe(200);
}

function call(op: { path: string; method: string }, headers: Headers_): Promise<ApiResponse> {
  const url = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'project_id' ? project.id : randomUUID()));
  return h.call(url, { method: op.method, headers, ...(op.method === 'GET' ? {} : { body: {} }) });
}

beforeAll(async () => {
  h = await startHarness();
  owner = await h.signUpOwner();
  project = await h.createProject({ owner });
  const user: UserSession = await h.signUpUser(project);
  deadUserToken = user.accessToken;
  await killSession(deadUserToken, (t) => project.client(t));
  // The owner keeps a second, live session; only the first one's token is dead.
  await signIn(owner.email, OWNER_PASSWORD, h.internalClient());
  deadOwnerToken = owner.accessToken;
  await killSession(deadOwnerToken, (t) => h.internalClient(t));
});
afterAll(async () => h?.close());

describe('every operation of openapi.json with a signed-out session', () => {
  const variants: { name: string; expired: string; headers: () => Headers_ }[] = [
    { name: "a project client with a signed-out user's token", expired: 'ACCESS_TOKEN_EXPIRED', headers: () => project.client(deadUserToken) },
    { name: "the server key with a signed-out user's token", expired: 'ACCESS_TOKEN_EXPIRED', headers: () => project.server(deadUserToken) },
    { name: "the internal (console) client with a signed-out owner's token", expired: 'ACCESS_TOKEN_EXPIRED', headers: () => h.internalClient(deadOwnerToken) },
    {
      name: "a signed-out owner's admin access token",
      expired: 'ADMIN_ACCESS_TOKEN_EXPIRED',
      headers: () => ({ 'x-latch-project-id': project.id, 'x-latch-access-type': 'admin', 'x-latch-admin-access-token': deadOwnerToken }),
    },
  ];

  it('lists only operations that exist as exempt (the list cannot go stale)', () => {
    const documented = new Set(operations.map((op) => `${op.method} ${op.path}`));
    for (const exempt of NOT_ACTING_FOR_A_USER) expect(documented, exempt).toContain(exempt);
  });

  it('answers ACCESS_TOKEN_EXPIRED (or ADMIN_ACCESS_TOKEN_EXPIRED) on every operation that acts for a user, with every access type it takes', async () => {
    const failures: string[] = [];
    for (const op of operations) {
      const label = `${op.method} ${op.path}`;
      if (NOT_ACTING_FOR_A_USER.has(label)) continue;
      let expiredSomewhere = false;
      for (const variant of variants) {
        const res = await call(op, variant.headers());
        const code = res.body?.code as string | undefined;
        if (res.status === 401 && code === variant.expired && res.headers.get('x-latch-known-error') === code) expiredSomewhere = true;
        // The only other acceptable answer: the operation does not take this access type at all.
        else if (!(res.status === 401 && code === 'INSUFFICIENT_ACCESS_TYPE'))
          failures.push(`${label} with ${variant.name}: ${res.status} ${code ?? JSON.stringify(res.body)}`);
      }
      if (!expiredSomewhere) failures.push(`${label}: no access type answered the expired code`);
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it('keeps the exempt ways in exempt: they do not check the session, and answer catalogued errors, never a 5xx', async () => {
    for (const label of NOT_ACTING_FOR_A_USER) {
      const [method, path] = label.split(' ') as [string, string];
      if (path === '/auth/oauth/token') continue; // form-encoded; covered in sessions.test.ts
      const res = await call({ method, path }, project.client(deadUserToken));
      expect(res.status, label).toBeLessThan(500);
      expect(res.body?.code, label).not.toBe('ACCESS_TOKEN_EXPIRED');
      if (res.status >= 400) expect(res.headers.get('x-latch-known-error'), label).toBe(res.body.code);
    }
  });
});

describe('routes that accepted a dead session before', () => {
  it('refuses GET/POST /internal/projects and POST /internal/projects/transfer after the owner signs out, and lists nothing', async () => {
    const o = await h.signUpOwner();
    await h.createProject({ owner: o });
    expect((await h.get('/internal/projects', h.internalClient(o.accessToken))).body.items).toHaveLength(1);
    expect((await h.del('/auth/sessions/current', h.internalClient(o.accessToken))).status).toBe(200);
    expectKnownError(await h.get('/internal/projects', h.internalClient(o.accessToken)), 401, 'ACCESS_TOKEN_EXPIRED');
    expectKnownError(await h.post('/internal/projects', { display_name: 'After sign-out' }, h.internalClient(o.accessToken)), 401, 'ACCESS_TOKEN_EXPIRED');
    expectKnownError(
      await h.post('/internal/projects/transfer', { project_id: randomUUID(), new_team_id: randomUUID() }, h.internalClient(o.accessToken)),
      401,
      'ACCESS_TOKEN_EXPIRED',
    );
  });

  it('refuses GET /auth/sessions and DELETE /auth/sessions/{id} once a password change signed the session out', async () => {
    const p = await h.createProject();
    const user = await h.signUpUser(p);
    const other = await signIn(user.email, user.password, p.client());
    // The password is changed from the other session: every session but that one ends.
    const changed = await h.post('/auth/password/update', { old_password: user.password, new_password: 'a-brand-new-password' }, p.client(other.access_token));
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expectKnownError(await h.get('/auth/sessions', p.client(user.accessToken)), 401, 'ACCESS_TOKEN_EXPIRED');
    const sessions = await h.get('/auth/sessions', p.client(other.access_token));
    const otherId = sessions.body.items[0].id as string;
    expectKnownError(await h.del(`/auth/sessions/${otherId}`, p.client(user.accessToken)), 401, 'ACCESS_TOKEN_EXPIRED');
    // The surviving session is untouched.
    expect((await h.get('/auth/sessions', p.client(other.access_token))).body.items.map((s: { id: string }) => s.id)).toEqual([otherId]);
  });
});

describe('a deleted owner', () => {
  it("answers catalogued errors for the deleted owner's tokens, never a 500", async () => {
    const o = await h.signUpOwner();
    const p = await h.createProject({ owner: o });
    const internalTenancy = (
      await h.latch.deps.db.selectFrom('tenancies').select('id').where('project_id', '=', 'internal').where('branch_id', '=', 'main').executeTakeFirstOrThrow()
    ).id;
    await h.latch.deps.db.deleteFrom('users').where('tenancy_id', '=', internalTenancy).where('id', '=', o.userId).execute();
    const client = h.internalClient(o.accessToken);
    expectKnownError(await h.post('/internal/projects', { display_name: 'Orphan' }, client), 401, 'ACCESS_TOKEN_EXPIRED');
    expectKnownError(await h.get('/internal/projects', client), 401, 'ACCESS_TOKEN_EXPIRED');
    expectKnownError(await h.get('/users/me', client), 401, 'ACCESS_TOKEN_EXPIRED');
    expectKnownError(await h.post('/teams', { display_name: 'Orphan team' }, client), 401, 'ACCESS_TOKEN_EXPIRED');
    expectKnownError(await h.get('/internal/projects/current', p.ownerAdmin()), 401, 'ADMIN_ACCESS_TOKEN_EXPIRED');
    expectKnownError(await h.patch('/internal/projects/current', { display_name: 'x' }, p.ownerAdmin()), 401, 'ADMIN_ACCESS_TOKEN_EXPIRED');
  });
});
