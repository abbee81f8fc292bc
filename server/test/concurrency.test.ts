import { beforeAll, describe, expect, it } from 'vitest';
import { linkCodes, outboxTexts } from './outbox.js';
import { inviteFreshAddress, tenancyOf } from './team-fixtures.js';
import { type ApiResponse, type OwnerSession, type ProjectFixture, useHarness } from './harness.js';

/**
 * Races through real HTTP: many identical requests at once must leave the data as one request
 * would. Covered elsewhere, not repeated here:
 * - 100 concurrent refreshes of one refresh token all succeed: server/domains/sessions/sessions.test.ts
 *   ("serves 100 concurrent refreshes of one token").
 * - 50 concurrent sign-ups with one unproven email all get in (claims never block a sign-up) and
 *   the address answers to the newest: server/domains/auth/auth.test.ts ("concurrent sign-ups"),
 *   and concurrent anonymous upgrades in the same file; concurrent server creations with one
 *   verified email make exactly one user: server/domains/users/users.test.ts.
 * - a burst of concurrent sign-in guesses stays within the brute-force limit:
 *   server/domains/rate-limits/rate-limits.test.ts.
 */

const PARALLEL = 20;

const h = useHarness();
let owner: OwnerSession;
beforeAll(async () => {
  owner = await h.signUpOwner();
});

const newProject = (config?: Record<string, unknown>): Promise<ProjectFixture> => h.createProject({ owner, ...(config ? { config } : {}) });

async function tenancyId(projectId: string): Promise<string> {
  return (await tenancyOf(h, projectId)).id;
}

/** A team's member rows as stored, read below the API. */
async function teamMemberRows(project: ProjectFixture, teamId: string): Promise<{ user_id: string }[]> {
  return h.latch.deps.db
    .selectFrom('team_members')
    .select(['user_id'])
    .where('tenancy_id', '=', await tenancyId(project.id))
    .where('team_id', '=', teamId)
    .execute();
}

function tally(results: ApiResponse[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of results) {
    const key = r.status < 300 ? String(r.status) : `${r.status} ${r.body?.code}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

describe('concurrent team joins', () => {
  it(`${PARALLEL} parallel POST /team-memberships/{team}/{user}: exactly one membership, the rest TEAM_MEMBERSHIP_ALREADY_EXISTS`, async () => {
    const project = await newProject();
    const user = await h.signUpUser(project);
    const team = (await h.post('/teams', { display_name: 'Race team' }, project.server())).body as { id: string };
    const results = await Promise.all(Array.from({ length: PARALLEL }, () => h.post(`/team-memberships/${team.id}/${user.userId}`, {}, project.server())));
    expect(tally(results)).toEqual({ '201': 1, '409 TEAM_MEMBERSHIP_ALREADY_EXISTS': PARALLEL - 1 });
    for (const r of results.filter((x) => x.status === 409)) expect(r.headers.get('x-latch-known-error')).toBe('TEAM_MEMBERSHIP_ALREADY_EXISTS');

    const rows = await teamMemberRows(project, team.id);
    expect(rows).toEqual([{ user_id: user.userId }]);
    const members = await h.get(`/team-member-profiles?team_id=${team.id}`, project.server());
    expect(members.body.items.map((m: { user_id: string }) => m.user_id)).toEqual([user.userId]);
  });

  it(`${PARALLEL} users accepting one invitation code at once: exactly one joins (a code is single-use under races too)`, async () => {
    const project = await newProject();
    const team = (await h.post('/teams', { display_name: 'Invite race' }, project.server())).body as { id: string };
    const invited = await inviteFreshAddress(h, project, team.id, 'http://localhost:3000/accept');
    expect(invited.status).toBe(200);
    const code = linkCodes(await outboxTexts(h, await tenancyId(project.id)), /[?&]code=([A-Za-z0-9_-]+)/)[0];
    expect(code).toBeDefined();
    const users = await Promise.all(Array.from({ length: PARALLEL }, () => h.signUpUser(project)));
    const results = await Promise.all(users.map((u) => h.post('/team-invitations/accept', { code }, project.client(u.accessToken))));
    expect(tally(results)).toEqual({ '200': 1, '409 ALREADY_USED': PARALLEL - 1 });
    const winner = users[results.findIndex((r) => r.status === 200)]!;
    const rows = await teamMemberRows(project, team.id);
    expect(rows).toEqual([{ user_id: winner.userId }]);
  });
});
