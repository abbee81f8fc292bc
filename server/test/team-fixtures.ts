import { expect } from 'vitest';
import type { Tenancy } from '../access/context.js';
import { openOutboxRow } from './outbox.js';
import type { ApiResponse, Harness, Headers_, ProjectFixture } from './harness.js';

/**
 * Helpers shared by the teams, invitations, permissions and user/team API key tests. Users are
 * created by the server and given a session directly (no password hashing), so each test stays fast.
 */

/** A catalogued error: status, body code and the x-latch-known-error header all agree. */
export function expectKnownError(res: ApiResponse, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.code }, JSON.stringify(res.body)).toEqual({ status, code });
  expect(res.headers.get('x-latch-known-error')).toBe(code);
  expect(typeof res.body.error).toBe('string');
}

export function expectStatus(res: ApiResponse, status: number): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
}

export interface TestUser {
  id: string;
  email: string;
  accessToken: string;
  /** Client headers (publishable key + this user's access token). */
  client: Headers_;
}

/** A user made by the server, signed in through a server-created session. */
export async function newUser(h: Harness, project: ProjectFixture, body: Record<string, unknown> = {}): Promise<TestUser> {
  const email = h.uniqueEmail('member');
  const created = await h.post('/users', { primary_email: email, ...body }, project.server());
  expectStatus(created, 201);
  const session = await h.post('/auth/sessions', { user_id: created.body.id }, project.server());
  expectStatus(session, 201);
  return { id: created.body.id, email, accessToken: session.body.access_token, client: project.client(session.body.access_token) };
}

/** A team made by the server, optionally with a creator (who joins it). */
export async function newTeam(
  h: Harness,
  project: ProjectFixture,
  creator?: TestUser,
  body: Record<string, unknown> = {},
): Promise<{ id: string; display_name: string }> {
  const res = await h.post('/teams', { display_name: 'Team', ...(creator ? { creator_user_id: creator.id } : {}), ...body }, project.server());
  expectStatus(res, 201);
  return res.body;
}

export async function addMember(h: Harness, project: ProjectFixture, teamId: string, user: TestUser): Promise<void> {
  expectStatus(await h.post(`/team-memberships/${teamId}/${user.id}`, {}, project.server()), 201);
}

export async function grantTeamPermission(h: Harness, project: ProjectFixture, teamId: string, userId: string, permissionId: string): Promise<void> {
  expectStatus(await h.post(`/team-permissions/${teamId}/${userId}/${permissionId}`, {}, project.server()), 201);
}

export async function defineTeamPermission(h: Harness, project: ProjectFixture, id: string, contained: string[] = []): Promise<void> {
  expectStatus(await h.post('/team-permission-definitions', { id, contained_permission_ids: contained }, project.admin()), 201);
}

/** The tenancy (main branch) of a project, for tests that reach below the API. */
export async function tenancyOf(h: Harness, projectId: string): Promise<Tenancy> {
  const row = await h.latch.deps.db
    .selectFrom('tenancies')
    .select('id')
    .where('project_id', '=', projectId)
    .where('branch_id', '=', 'main')
    .executeTakeFirstOrThrow();
  return { id: row.id, projectId, branchId: 'main' };
}

/** The newest outbox email to an address, with the code of its link. */
export async function lastEmailTo(h: Harness, to: string): Promise<{ subject: string; html: string; text: string; state: string; code: string | null }> {
  const row = await h.latch.deps.db.selectFrom('email_outbox').selectAll().where('to_email', '=', to).orderBy('created_at', 'desc').executeTakeFirstOrThrow();
  const { html, text } = openOutboxRow(h, row);
  const link = /https?:\/\/\S+/.exec(text)?.[0];
  return { subject: row.subject, html, text, state: row.state, code: link ? new URL(link).searchParams.get('code') : null };
}

export const CALLBACK_URL = 'http://localhost:3000/handler/team-invitation';

/** Invites a fresh address to a team with the project's server key; the response is the caller's to check. */
export function inviteFreshAddress(h: Harness, project: ProjectFixture, teamId: string, callbackUrl: string = CALLBACK_URL): Promise<ApiResponse> {
  return h.post('/team-invitations/send-code', { email: h.uniqueEmail('invitee'), team_id: teamId, callback_url: callbackUrl }, project.server());
}

/**
 * A client attaches an unproven email address to itself: refused as a sign-in address
 * (EMAIL_NOT_VERIFIED), accepted as a plain contact. The created channel's response.
 */
export async function attachUnprovenEmail(h: Harness, headers: Headers_, email: string): Promise<ApiResponse> {
  expectKnownError(await h.post('/contact-channels', { user_id: 'me', type: 'email', value: email, used_for_auth: true }, headers), 400, 'EMAIL_NOT_VERIFIED');
  const created = await h.post('/contact-channels', { user_id: 'me', type: 'email', value: email, used_for_auth: false }, headers);
  expectStatus(created, 201);
  return created;
}
