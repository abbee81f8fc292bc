import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type OwnerSession, useHarness } from '../../test/harness.js';
import { expectKnownError, expectStatus, lastEmailTo } from '../../test/team-fixtures.js';

/**
 * Co-owners (issue 20 item 5): GET/DELETE /internal/projects/{id}/owners…, the invitation emailed
 * through the internal project whose link opens this server's console, the last owner who cannot
 * be removed, and no owner of one project reaching another's owners.
 */
const h = useHarness();

const internal = (owner: OwnerSession) => h.internalClient(owner.accessToken);
const ownersOf = (owner: OwnerSession, projectId: string) => h.get(`/internal/projects/${projectId}/owners`, internal(owner));
const invite = (owner: OwnerSession, projectId: string, email: string) =>
  h.post(`/internal/projects/${projectId}/owners/invitations`, { email }, internal(owner));
const removeOwner = (owner: OwnerSession, projectId: string, userId: string) => h.del(`/internal/projects/${projectId}/owners/${userId}`, internal(owner));
const adminToken = (projectId: string, owner: OwnerSession) => ({
  'x-latch-project-id': projectId,
  'x-latch-access-type': 'admin',
  'x-latch-admin-access-token': owner.accessToken,
});

describe('co-owners of a project', () => {
  it('invites by email (the link opens the console), the invitee accepts and co-owns, and the last owner cannot be removed', async () => {
    const alice = await h.signUpOwner();
    const project = await h.createProject({ owner: alice, displayName: 'Shared app' });

    const listed = await ownersOf(alice, project.id);
    expectStatus(listed, 200);
    expect(listed.body).toEqual({
      items: [{ user_id: alice.userId, display_name: null, primary_email: alice.email, is_current_user: true, joined_at_millis: expect.any(Number) }],
      is_paginated: false,
      owner_team: { id: expect.any(String), display_name: expect.any(String), owned_project_count: 1 },
    });
    // Alone: she cannot remove herself.
    expectKnownError(await removeOwner(alice, project.id, alice.userId), 400, 'LAST_PROJECT_OWNER');

    const bobEmail = h.uniqueEmail('bob');
    const sent = await invite(alice, project.id, bobEmail);
    expectStatus(sent, 201);
    expect(sent.body).toEqual({ id: expect.any(String) });
    const pending = await h.get(`/internal/projects/${project.id}/owners/invitations`, internal(alice));
    expect(pending.body.items).toEqual([{ id: sent.body.id, recipient_email: bobEmail, expires_at_millis: expect.any(Number) }]);

    // The email is in the internal project's outbox; its link is this server's console page.
    const mail = await lastEmailTo(h, bobEmail);
    expect(mail.text).toContain(`${h.url}/owner-invitation?code=`);
    expect(mail.code).toEqual(expect.any(String));

    // Bob signs up on the internal project and accepts: he owns the project now.
    const bob = await h.signUpOwner(bobEmail);
    expectKnownError(await h.get('/internal/projects/current', adminToken(project.id, bob)), 401, 'ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN');
    expectStatus(await h.post('/team-invitations/accept', { code: mail.code }, internal(bob)), 200);
    expectStatus(await h.get('/internal/projects/current', adminToken(project.id, bob)), 200);
    const both = await ownersOf(bob, project.id);
    expect(both.body.items.map((o: { user_id: string; is_current_user: boolean }) => [o.user_id, o.is_current_user])).toEqual([
      [alice.userId, false],
      [bob.userId, true],
    ]);
    expect((await h.get(`/internal/projects/${project.id}/owners/invitations`, internal(alice))).body.items).toEqual([]);

    // Bob removes Alice; then he is the last one and cannot leave.
    expectStatus(await removeOwner(bob, project.id, alice.userId), 200);
    expectKnownError(await h.get('/internal/projects/current', adminToken(project.id, alice)), 401, 'ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN');
    expectKnownError(await removeOwner(bob, project.id, bob.userId), 400, 'LAST_PROJECT_OWNER');
    // Nor through the plain team route of the internal project (leaving the owner team).
    const teamId = both.body.owner_team.id as string;
    expectKnownError(await h.del(`/team-memberships/${teamId}/me`, internal(bob)), 400, 'LAST_PROJECT_OWNER');
    expect((await ownersOf(bob, project.id)).body.items.map((o: { user_id: string }) => o.user_id)).toEqual([bob.userId]);
    // Removing someone who is not an owner.
    expectKnownError(await removeOwner(bob, project.id, alice.userId), 404, 'TEAM_MEMBERSHIP_NOT_FOUND');
  });

  it('withdraws an invitation: its code stops working', async () => {
    const alice = await h.signUpOwner();
    const project = await h.createProject({ owner: alice });
    const email = h.uniqueEmail('carol');
    const sent = await invite(alice, project.id, email);
    const code = (await lastEmailTo(h, email)).code;
    expectStatus(await h.del(`/internal/projects/${project.id}/owners/invitations/${sent.body.id}`, internal(alice)), 200);
    expectKnownError(await h.del(`/internal/projects/${project.id}/owners/invitations/${sent.body.id}`, internal(alice)), 404, 'CODE_NOT_FOUND');
    const carol = await h.signUpOwner(email);
    expectKnownError(await h.post('/team-invitations/accept', { code }, internal(carol)), 404, 'CODE_NOT_FOUND');
    expectKnownError(await h.get('/internal/projects/current', adminToken(project.id, carol)), 401, 'ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN');
  });

  it('an owner of project A cannot list, invite, remove or withdraw for project B', async () => {
    const [alice, mallory] = await Promise.all([h.signUpOwner(), h.signUpOwner()]);
    const projectB = await h.createProject({ owner: alice });
    await h.createProject({ owner: mallory }); // Mallory owns a project of her own (A).
    const sent = await invite(alice, projectB.id, h.uniqueEmail('dave'));
    expectStatus(sent, 201);

    expectKnownError(await ownersOf(mallory, projectB.id), 404, 'PROJECT_NOT_FOUND');
    expectKnownError(await h.get(`/internal/projects/${projectB.id}/owners/invitations`, internal(mallory)), 404, 'PROJECT_NOT_FOUND');
    const malloryInvite = await invite(mallory, projectB.id, h.uniqueEmail('mallory-friend'));
    expectKnownError(malloryInvite, 404, 'PROJECT_NOT_FOUND');
    expectKnownError(await removeOwner(mallory, projectB.id, alice.userId), 404, 'PROJECT_NOT_FOUND');
    expectKnownError(await h.del(`/internal/projects/${projectB.id}/owners/invitations/${sent.body.id}`, internal(mallory)), 404, 'PROJECT_NOT_FOUND');
    // Unknown projects and the internal project itself read the same.
    expectKnownError(await ownersOf(mallory, 'no-such-project'), 404, 'PROJECT_NOT_FOUND');
    expectKnownError(await ownersOf(mallory, 'internal'), 404, 'PROJECT_NOT_FOUND');
    // Nothing changed for B.
    expect((await ownersOf(alice, projectB.id)).body.items.map((o: { user_id: string }) => o.user_id)).toEqual([alice.userId]);
    expect((await h.get(`/internal/projects/${projectB.id}/owners/invitations`, internal(alice))).body.items).toHaveLength(1);

    // Only internal-project owner sessions: another project's user, or no session, is refused.
    const user = await h.signUpUser(projectB);
    expectKnownError(await h.get(`/internal/projects/${projectB.id}/owners`, projectB.client(user.accessToken)), 401, 'EXPECTED_INTERNAL_PROJECT');
    expect((await h.get(`/internal/projects/${projectB.id}/owners`, h.internalClient())).status).toBe(401);
    // Malformed ids are schema errors.
    expectKnownError(await removeOwner(alice, projectB.id, 'not-a-uuid'), 400, 'SCHEMA_ERROR');
    expectKnownError(await invite(alice, projectB.id, 'not-an-email'), 400, 'SCHEMA_ERROR');
    expectKnownError(await removeOwner(alice, projectB.id, randomUUID()), 404, 'TEAM_MEMBERSHIP_NOT_FOUND');
  });
});

describe('production mode', () => {
  it('cannot be switched on while its problems stand; one PATCH may fix them and switch it on', async () => {
    const project = await h.createProject();
    const refused = await h.patch('/internal/projects/current', { is_production_mode: true }, project.admin());
    expectKnownError(refused, 400, 'PRODUCTION_MODE_HAS_PROBLEMS');
    expect(refused.body.details.problems).toEqual([
      { message: 'Localhost is not allowed in production mode', relative_fix_url: `/projects/${project.id}/domains` },
    ]);
    expect((await h.get('/internal/projects/current', project.admin())).body.is_production_mode).toBe(false);

    const fixed = await h.patch(
      '/internal/projects/current',
      { is_production_mode: true, config: { allow_localhost: false, domains: [{ domain: 'https://app.example.com', handler_path: '/handler' }] } },
      project.admin(),
    );
    expectStatus(fixed, 200);
    expect(fixed.body).toMatchObject({ is_production_mode: true, production_mode_problems: [] });
    // Creating a project in production mode with problems is refused too.
    const owner = await h.signUpOwner();
    expectKnownError(
      await h.post('/internal/projects', { display_name: 'Live at once', is_production_mode: true }, h.internalClient(owner.accessToken)),
      400,
      'PRODUCTION_MODE_HAS_PROBLEMS',
    );
  });
});
