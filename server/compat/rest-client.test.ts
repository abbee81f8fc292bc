import createClient from 'openapi-fetch';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { useHarness } from '../test/harness.js';
import type { paths } from './openapi-types.js';

/**
 * A REST client no one here wrote by hand: openapi-fetch typed by the types openapi-typescript
 * generates from openapi.json (openapi-types.d.ts, not committed: written by scripts/build.ts at install
 * and before every `npm run typecheck`, so it cannot lag openapi.json), walking
 * the README's curl walk-through against the real server. Every path, body and response field below
 * is checked by the compiler against the contract; a renamed field or route fails `tsc`, a server
 * that answers otherwise fails here.
 */

const h = useHarness();
type Client = ReturnType<typeof createClient<paths>>;
let api: Client;
beforeAll(() => {
  api = createClient<paths>({ baseUrl: `${h.url}/api/v1` });
});

const internalClient = (accessToken?: string) => ({
  'x-latch-project-id': 'internal',
  'x-latch-access-type': 'client',
  ...(accessToken ? { 'x-latch-access-token': accessToken } : {}),
});

describe('the README walk-through through openapi-fetch', () => {
  it('owner, project, keys, end-user sign-up and sign-in, /users/me, update, teams, refresh, server listing, sign-out, known errors', async () => {
    // 1. A project owner signs up on the internal project (no key needed).
    const ownerEmail = h.uniqueEmail('rest-owner');
    const owner = await api.POST('/auth/password/sign-up', { headers: internalClient(), body: { email: ownerEmail, password: 'a long password' } });
    expect(owner.response.status).toBe(200);
    const ownerToken = owner.data!.access_token;

    // 2. A project, owned by the owner's team.
    const project = await api.POST('/internal/projects', { headers: internalClient(ownerToken), body: { display_name: 'My app' } });
    expect(project.response.status).toBe(201);
    const projectId = project.data!.id;
    expect(project.data!.display_name).toBe('My app');

    // 3. Its keys, with the owner's access token as the admin access token.
    const keys = await api.POST('/internal/api-keys', {
      headers: { 'x-latch-project-id': projectId, 'x-latch-access-type': 'admin', 'x-latch-admin-access-token': ownerToken },
      body: { description: 'dev', has_publishable_client_key: true, has_secret_server_key: true, has_super_secret_admin_key: false },
    });
    expect(keys.response.status).toBe(201);
    const pck = keys.data!.publishable_client_key!;
    const ssk = keys.data!.secret_server_key!;
    expect(typeof pck).toBe('string');
    expect(typeof ssk).toBe('string');
    const client = (accessToken?: string) => ({
      'x-latch-project-id': projectId,
      'x-latch-access-type': 'client',
      'x-latch-publishable-client-key': pck,
      ...(accessToken ? { 'x-latch-access-token': accessToken } : {}),
    });
    const server = { 'x-latch-project-id': projectId, 'x-latch-access-type': 'server', 'x-latch-secret-server-key': ssk };

    // 4. An end user signs up and signs in with the publishable key.
    const email = h.uniqueEmail('ann');
    const signUp = await api.POST('/auth/password/sign-up', { headers: client(), body: { email, password: 'hunter2hunter2' } });
    expect(signUp.data).toMatchObject({ is_new_user: true, user_id: expect.any(String) });
    const signIn = await api.POST('/auth/password/sign-in', { headers: client(), body: { email, password: 'hunter2hunter2' } });
    expect(signIn.response.status).toBe(200);
    const { access_token: accessToken, refresh_token: refreshToken, user_id: userId } = signIn.data!;
    expect(userId).toBe(signUp.data!.user_id);

    // 5. Read the user, update it, refresh the access token.
    const me = await api.GET('/users/me', { headers: client(accessToken) });
    expect(me.data).toMatchObject({ id: userId, primary_email: email, has_password: true, primary_email_verified: false });
    const updated = await api.PATCH('/users/me', { headers: client(accessToken), body: { display_name: 'Ann', client_metadata: { theme: 'dark' } } });
    expect(updated.data).toMatchObject({ id: userId, display_name: 'Ann', client_metadata: { theme: 'dark' } });
    const refreshed = await api.POST('/auth/sessions/current/refresh', { headers: { ...client(), 'x-latch-refresh-token': refreshToken } });
    expect(refreshed.response.status).toBe(200);
    expect(decodeJwt(refreshed.data!.access_token).sub).toBe(userId);

    // Teams: the server creates one with the user as its creator (client-side creation is off by
    // default: client_team_creation_enabled), the user lists and reads it.
    const team = await api.POST('/teams', { headers: server, body: { display_name: 'Ann & co', creator_user_id: userId } });
    expect(team.error).toBeUndefined();
    expect(team.response.status).toBe(201);
    const teamId = team.data!.id;
    const teams = await api.GET('/teams', { headers: client(accessToken), params: { query: { user_id: 'me' } } });
    expect(teams.data!.items.map((t) => t.id)).toContain(teamId);
    const read = await api.GET('/teams/{team_id}', { headers: client(accessToken), params: { path: { team_id: teamId } } });
    expect(read.data!.display_name).toBe('Ann & co');

    // 6. Server side: list and read users with the secret server key.
    const listed = await api.GET('/users', { headers: server, params: { query: { query: 'ann' } } });
    expect(listed.data!.items.map((u) => u.id)).toEqual([userId]);
    const serverRead = await api.GET('/users/{user_id}', { headers: server, params: { path: { user_id: userId } } });
    expect(serverRead.data).toMatchObject({ id: userId, display_name: 'Ann', server_metadata: null });

    // Sign out: the refresh token stops working.
    const signOut = await api.DELETE('/auth/sessions/current', { headers: client(accessToken) });
    expect(signOut.data).toEqual({ success: true });
    const afterSignOut = await api.POST('/auth/sessions/current/refresh', { headers: { ...client(), 'x-latch-refresh-token': refreshToken } });
    expect(afterSignOut.error?.code).toBe('REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED');

    // 7. Catalogued errors: the typed error body, its status and both known-error headers.
    const wrong = await api.POST('/auth/password/sign-in', { headers: client(), body: { email, password: 'wrong password' } });
    expect(wrong.response.status).toBe(400);
    expect(wrong.error).toMatchObject({ code: 'EMAIL_PASSWORD_MISMATCH', error: expect.any(String) });
    expect(wrong.response.headers.get('x-latch-known-error')).toBe('EMAIL_PASSWORD_MISMATCH');
    expect(wrong.response.headers.get('x-stack-known-error')).toBe('EMAIL_PASSWORD_MISMATCH');
    const noKey = await api.GET('/users/me', { headers: { 'x-latch-project-id': projectId, 'x-latch-access-type': 'client' } });
    expect({ status: noKey.response.status, code: noKey.error?.code }).toEqual({ status: 401, code: 'PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT' });
    const otherProject = await api.GET('/users/me', { headers: internalClient(accessToken) });
    expect({ status: otherProject.response.status, code: otherProject.error?.code }).toEqual({ status: 401, code: 'INVALID_PROJECT_FOR_ACCESS_TOKEN' });
  });
});
