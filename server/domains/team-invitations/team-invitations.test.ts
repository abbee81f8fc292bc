import { describe, expect, it } from 'vitest';
import { hashSecret } from '../../crypto/tokens.js';
import { type Harness, useHarness } from '../../test/harness.js';
import { CALLBACK_URL, addMember, expectKnownError, expectStatus, grantTeamPermission, lastEmailTo, newTeam, newUser } from '../../test/team-fixtures.js';
import { isTrustedCallbackUrl } from './service.js';
import { DEFAULT_PROJECT_CONFIG } from '../../../contract/config/project-config.js';

const h = useHarness();

async function invite(project: Parameters<Harness['signUpUser']>[0], headers: Record<string, string | undefined>, teamId: string, email: string) {
  const res = await h.post('/team-invitations/send-code', { email, team_id: teamId, callback_url: CALLBACK_URL }, headers);
  expectStatus(res, 200);
  const mail = await lastEmailTo(h, email);
  expect(mail.code).toEqual(expect.any(String));
  return { id: res.body.id as string, code: mail.code!, mail };
}

describe('the acceptance flow, over REST', () => {
  it('create a team, invite by email, accept, grant nested permissions, and use a team API key until it is revoked', async () => {
    const project = await h.createProject({
      config: {
        client_team_creation_enabled: true,
        allow_team_api_keys: true,
        team_creator_default_permissions: [{ id: '$invite_members' }, { id: '$manage_api_keys' }, { id: '$read_members' }],
      },
    });
    const alice = await h.signUpUser(project);
    const aliceHeaders = project.client(alice.accessToken);

    // 1. Alice creates a team from the client.
    const team = await h.post('/teams', { display_name: 'Rocket <Team>' }, aliceHeaders);
    expectStatus(team, 201);

    // 2. She invites Bob by email; the email sits in the outbox with a link carrying the code.
    const bobEmail = h.uniqueEmail('bob');
    const sent = await h.post('/team-invitations/send-code', { email: bobEmail, team_id: team.body.id, callback_url: CALLBACK_URL }, aliceHeaders);
    expectStatus(sent, 200);
    expect(sent.body).toEqual({ success: true, id: expect.any(String) });
    const mail = await lastEmailTo(h, bobEmail);
    // Pending until the outbox worker's next round; with no SMTP configured it then stays as not-delivered.
    expect(['pending', 'not-delivered']).toContain(mail.state);
    // The team's name is free text: in the body only (issue 13, item 8).
    expect(mail.subject).toBe('You are invited to join a team');
    expect(mail.html).toContain('Rocket &lt;Team&gt;');
    expect(mail.text).toContain(`${CALLBACK_URL}?code=`);
    const code = mail.code!;
    const listed = await h.get(`/team-invitations?team_id=${team.body.id}`, aliceHeaders);
    expect(listed.body.items).toEqual([{ id: sent.body.id, team_id: team.body.id, recipient_email: bobEmail, expires_at_millis: expect.any(Number) }]);

    // 3. Bob signs up and accepts with the emailed code.
    const bob = await h.signUpUser(project, { email: bobEmail });
    const bobHeaders = project.client(bob.accessToken);
    expect((await h.post('/team-invitations/accept/check-code', { code }, bobHeaders)).body).toEqual({ is_code_valid: true });
    expect((await h.post('/team-invitations/accept/details', { code }, bobHeaders)).body).toEqual({
      team_id: team.body.id,
      team_display_name: 'Rocket <Team>',
    });
    expect((await h.post('/team-invitations/accept', { code }, bobHeaders)).body).toEqual({ success: true, team_id: team.body.id });
    expectKnownError(await h.post('/team-invitations/accept', { code }, bobHeaders), 409, 'ALREADY_USED');
    expect((await h.get('/teams', bobHeaders)).body.items.map((t: { id: string }) => t.id)).toEqual([team.body.id]);
    expect((await h.get(`/team-invitations?team_id=${team.body.id}`, aliceHeaders)).body.items).toEqual([]);

    // 4. The server gives Bob $invite_members and a custom nested permission; checked recursively.
    expectStatus(await h.post('/team-permission-definitions', { id: 'docs:read' }, project.admin()), 201);
    expectStatus(await h.post('/team-permission-definitions', { id: 'docs:write', contained_permission_ids: ['docs:read'] }, project.admin()), 201);
    expectStatus(await h.post('/team-permission-definitions', { id: 'editor', contained_permission_ids: ['docs:write'] }, project.admin()), 201);
    await grantTeamPermission(h, project, team.body.id, bob.userId, '$invite_members');
    await grantTeamPermission(h, project, team.body.id, bob.userId, 'editor');
    const held = await h.get(`/team-permissions?team_id=${team.body.id}&user_id=me&permission_id=docs:read`, bobHeaders);
    expect(held.body.items).toEqual([{ id: 'docs:read', team_id: team.body.id, user_id: bob.userId }]);
    expect((await h.get(`/team-permissions?team_id=${team.body.id}&user_id=me&permission_id=docs:read&recursive=false`, bobHeaders)).body.items).toEqual([]);
    // Bob can now invite too.
    await invite(project, bobHeaders, team.body.id, h.uniqueEmail('carol'));

    // 5. Alice creates a team API key; the server checks it.
    const key = await h.post('/team-api-keys', { team_id: team.body.id, description: 'deploy bot' }, aliceHeaders);
    expectStatus(key, 201);
    expect(key.body.value).toMatch(/^latch_tsk_/);
    const checked = await h.post('/team-api-keys/check', { api_key: key.body.value }, project.server());
    expectStatus(checked, 200);
    expect(checked.body).toMatchObject({ id: key.body.id, type: 'team', team_id: team.body.id, value: { last_four: key.body.value.slice(-4) } });

    // 6. She revokes it; the check now fails with the revoked reason.
    const revoked = await h.patch(`/team-api-keys/${key.body.id}`, { revoked: true }, aliceHeaders);
    expect(revoked.body.manually_revoked_at_millis).toEqual(expect.any(Number));
    const failed = await h.post('/team-api-keys/check', { api_key: key.body.value }, project.server());
    expectKnownError(failed, 401, 'API_KEY_REVOKED');
    expect(failed.body.details).toEqual({ reason: 'manually-revoked' });
  });
});

describe('sending invitations', () => {
  it('requires $invite_members on the client', async () => {
    const project = await h.createProject();
    const member = await newUser(h, project);
    const team = await newTeam(h, project, member);
    const email = h.uniqueEmail('guest');
    expectKnownError(
      await h.post('/team-invitations/send-code', { email, team_id: team.id, callback_url: CALLBACK_URL }, member.client),
      401,
      'TEAM_PERMISSION_REQUIRED',
    );
    const outsider = await newUser(h, project);
    expectKnownError(
      await h.post('/team-invitations/send-code', { email, team_id: team.id, callback_url: CALLBACK_URL }, outsider.client),
      404,
      'TEAM_NOT_FOUND',
    );
    expect(await h.latch.deps.db.selectFrom('email_outbox').select('id').where('to_email', '=', email).execute()).toEqual([]);
    // The server needs no permission.
    await invite(project, project.server(), team.id, email);
  });

  it('only links to trusted domains (or localhost while allowed)', async () => {
    const project = await h.createProject({ config: { allow_localhost: false, domains: [{ domain: 'https://*.example.com', handler_path: '/handler' }] } });
    const team = await newTeam(h, project);
    const send = (callback_url: string) => h.post('/team-invitations/send-code', { email: h.uniqueEmail(), team_id: team.id, callback_url }, project.server());
    expectKnownError(await send('https://evil.test/handler/team-invitation'), 400, 'REDIRECT_URL_NOT_WHITELISTED');
    expectKnownError(await send(CALLBACK_URL), 400, 'REDIRECT_URL_NOT_WHITELISTED');
    expectKnownError(await send('https://example.com.evil.test/x'), 400, 'REDIRECT_URL_NOT_WHITELISTED');
    expectStatus(await send('https://app.example.com/handler/team-invitation'), 200);
    expectKnownError(await send('not a url'), 400, 'SCHEMA_ERROR');
  });

  it('matches trusted domains by scheme, host (one label per *) and port', () => {
    const config = {
      ...DEFAULT_PROJECT_CONFIG,
      allow_localhost: true,
      domains: [
        { domain: 'https://*.example.com', handler_path: '/h' },
        { domain: 'http://api.test.dev:8080', handler_path: '/h' },
      ],
    };
    expect(isTrustedCallbackUrl(config, 'https://a.example.com/x?y=1')).toBe(true);
    expect(isTrustedCallbackUrl(config, 'https://a.b.example.com/x')).toBe(false);
    expect(isTrustedCallbackUrl(config, 'http://a.example.com/x')).toBe(false);
    expect(isTrustedCallbackUrl(config, 'https://a.example.com:444/x')).toBe(false);
    expect(isTrustedCallbackUrl(config, 'https://aexample.com/x')).toBe(false);
    expect(isTrustedCallbackUrl(config, 'http://api.test.dev:8080/cb')).toBe(true);
    expect(isTrustedCallbackUrl(config, 'http://api.test.dev/cb')).toBe(false);
    expect(isTrustedCallbackUrl(config, 'http://127.0.0.1:3000/cb')).toBe(true);
    expect(isTrustedCallbackUrl({ ...config, allow_localhost: false }, 'http://localhost:3000/cb')).toBe(false);
    expect(isTrustedCallbackUrl(config, 'javascript:alert(1)')).toBe(false);
  });
});

describe('invitation codes', () => {
  it('are stored hashed, and work once', async () => {
    const project = await h.createProject();
    const team = await newTeam(h, project);
    const { id, code } = await invite(project, project.server(), team.id, h.uniqueEmail());
    const row = await h.latch.deps.db.selectFrom('verification_codes').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.code_hash).toBe(hashSecret(code));
    expect(JSON.stringify(row)).not.toContain(code);
    expect(code.length).toBeGreaterThanOrEqual(22); // ≥ 128 bits of base64url
    const user = await newUser(h, project);
    expectStatus(await h.post('/team-invitations/accept', { code }, user.client), 200);
    expectKnownError(await h.post('/team-invitations/accept/details', { code }, user.client), 409, 'ALREADY_USED');
  });

  it('answer CODE_NOT_FOUND, EXPIRED and MAX_ATTEMPTS_REACHED as the spec says', async () => {
    const project = await h.createProject();
    const team = await newTeam(h, project);
    const user = await newUser(h, project);
    expectKnownError(await h.post('/team-invitations/accept', { code: 'not-a-real-code' }, user.client), 404, 'CODE_NOT_FOUND');

    const expired = await invite(project, project.server(), team.id, h.uniqueEmail());
    await h.latch.deps.db
      .updateTable('verification_codes')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', expired.id)
      .execute();
    expectKnownError(await h.post('/team-invitations/accept', { code: expired.code }, user.client), 400, 'EXPIRED');

    const tried = await invite(project, project.server(), team.id, h.uniqueEmail());
    await h.latch.deps.db.updateTable('verification_codes').set({ attempt_count: 20 }).where('id', '=', tried.id).execute();
    expectKnownError(await h.post('/team-invitations/accept/check-code', { code: tried.code }, user.client), 400, 'MAX_ATTEMPTS_REACHED');
    expectKnownError(await h.post('/team-invitations/accept', { code: tried.code }, user.client), 400, 'MAX_ATTEMPTS_REACHED');
    // None of these made the user a member.
    expect((await h.get('/teams', user.client)).body.items).toEqual([]);
  });

  it('need a signed-in user to accept, and an existing member just uses the code up', async () => {
    const project = await h.createProject({ config: { team_member_default_permissions: [{ id: '$read_members' }] } });
    const member = await newUser(h, project);
    const team = await newTeam(h, project);
    await addMember(h, project, team.id, member);
    const { code } = await invite(project, project.server(), team.id, member.email);
    expectKnownError(await h.post('/team-invitations/accept', { code }, project.client()), 401, 'USER_AUTHENTICATION_REQUIRED');
    // Details can be shown before signing in.
    expectStatus(await h.post('/team-invitations/accept/details', { code }, project.client()), 200);
    expectStatus(await h.post('/team-invitations/accept', { code }, member.client), 200);
    expectKnownError(await h.post('/team-invitations/accept', { code }, member.client), 409, 'ALREADY_USED');

    // A new member gets team_member_default_permissions.
    const joiner = await newUser(h, project);
    const second = await invite(project, project.server(), team.id, joiner.email);
    expectStatus(await h.post('/team-invitations/accept', { code: second.code }, joiner.client), 200);
    expect((await h.get(`/team-permissions?team_id=${team.id}`, joiner.client)).body.items.map((p: { id: string }) => p.id)).toEqual(['$read_members']);
  });
});

describe('listing and withdrawing invitations', () => {
  it('needs $read_members and $invite_members to list, $remove_members to withdraw; a withdrawn code stops working', async () => {
    const project = await h.createProject();
    const lead = await newUser(h, project);
    const team = await newTeam(h, project, lead);
    const pending = await invite(project, project.server(), team.id, h.uniqueEmail('pending'));

    expectKnownError(await h.get(`/team-invitations?team_id=${team.id}`, lead.client), 401, 'TEAM_PERMISSION_REQUIRED');
    await grantTeamPermission(h, project, team.id, lead.id, '$read_members');
    expectKnownError(await h.get(`/team-invitations?team_id=${team.id}`, lead.client), 401, 'TEAM_PERMISSION_REQUIRED');
    await grantTeamPermission(h, project, team.id, lead.id, '$invite_members');
    expect((await h.get(`/team-invitations?team_id=${team.id}`, lead.client)).body.items.map((i: { id: string }) => i.id)).toEqual([pending.id]);

    expectKnownError(await h.del(`/team-invitations/${pending.id}?team_id=${team.id}`, lead.client), 401, 'TEAM_PERMISSION_REQUIRED');
    await grantTeamPermission(h, project, team.id, lead.id, '$remove_members');
    // The invitation must belong to the team named.
    const otherTeam = await newTeam(h, project, lead);
    await grantTeamPermission(h, project, otherTeam.id, lead.id, '$remove_members');
    expectKnownError(await h.del(`/team-invitations/${pending.id}?team_id=${otherTeam.id}`, lead.client), 404, 'CODE_NOT_FOUND');
    expect((await h.del(`/team-invitations/${pending.id}?team_id=${team.id}`, lead.client)).body).toEqual({ success: true });
    expect((await h.get(`/team-invitations?team_id=${team.id}`, project.server())).body.items).toEqual([]);
    const user = await newUser(h, project);
    expectKnownError(await h.post('/team-invitations/accept', { code: pending.code }, user.client), 404, 'CODE_NOT_FOUND');
  });

  it('withdraws pending invitations when the team is deleted', async () => {
    const project = await h.createProject();
    const team = await newTeam(h, project);
    const { id, code } = await invite(project, project.server(), team.id, h.uniqueEmail());
    expectStatus(await h.del(`/teams/${team.id}`, project.server()), 200);
    expect(await h.latch.deps.db.selectFrom('verification_codes').select('id').where('id', '=', id).execute()).toEqual([]);
    const user = await newUser(h, project);
    expectKnownError(await h.post('/team-invitations/accept', { code }, user.client), 404, 'CODE_NOT_FOUND');
  });
});

describe('tenant isolation', () => {
  it("never lets project B's credentials use, list or withdraw project A's invitations", async () => {
    const [a, b] = await Promise.all([h.createProject(), h.createProject()]);
    const teamA = await newTeam(h, a);
    const { id, code } = await invite(a, a.server(), teamA.id, h.uniqueEmail());
    const userB = await newUser(h, b);
    expectKnownError(await h.post('/team-invitations/accept', { code }, userB.client), 404, 'CODE_NOT_FOUND');
    expectKnownError(await h.post('/team-invitations/accept/details', { code }, b.server()), 404, 'CODE_NOT_FOUND');
    expectKnownError(await h.get(`/team-invitations?team_id=${teamA.id}`, b.server()), 404, 'TEAM_NOT_FOUND');
    expectKnownError(await h.del(`/team-invitations/${id}?team_id=${teamA.id}`, b.server()), 404, 'TEAM_NOT_FOUND');
    expectKnownError(
      await h.post('/team-invitations/send-code', { email: h.uniqueEmail(), team_id: teamA.id, callback_url: CALLBACK_URL }, b.server()),
      404,
      'TEAM_NOT_FOUND',
    );
    // Still valid in A.
    expect((await h.post('/team-invitations/accept/check-code', { code }, a.server())).body).toEqual({ is_code_valid: true });
  });
});
