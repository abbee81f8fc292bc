import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type ApiResponse, type OwnerSession, type ProjectFixture, startHarness, useHarness } from '../../test/harness.js';

const h = useHarness();

/** A catalogued error: status, body code and the x-latch-known-error header all agree. */
function expectKnownError(res: ApiResponse, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers.get('x-latch-known-error')).toBe(code);
  expect(typeof res.body.error).toBe('string');
}

function expectSchemaError(res: ApiResponse, ...mentions: string[]): void {
  expectKnownError(res, 400, 'SCHEMA_ERROR');
  for (const text of mentions) expect(res.body.error).toContain(text);
}

const CONFIG_FLAGS = [
  'sign_up_enabled',
  'credential_enabled',
  'magic_link_enabled',
  'passkey_enabled',
  'anonymous_enabled',
  'allow_localhost',
  'create_team_on_sign_up',
  'client_team_creation_enabled',
  'client_user_deletion_enabled',
  'allow_user_api_keys',
  'allow_team_api_keys',
] as const;

const STANDARD_EMAIL = {
  type: 'standard',
  host: 'smtp.example.com',
  port: 587,
  username: 'mailer',
  password: 'smtp-password-plaintext',
  sender_name: 'Example',
  sender_email: 'noreply@example.com',
};
/** How the admin view shows STANDARD_EMAIL: the password is write-only (issue 13 item 5). */
const STANDARD_EMAIL_READ = (({ password: _, ...rest }) => ({ ...rest, has_password: true }))(STANDARD_EMAIL);

async function internalTenancyId(): Promise<string> {
  const row = await h.latch.deps.db
    .selectFrom('tenancies')
    .select('id')
    .where('project_id', '=', 'internal')
    .where('branch_id', '=', 'main')
    .executeTakeFirstOrThrow();
  return row.id;
}

async function storedConfig(projectId: string): Promise<Record<string, unknown>> {
  const row = await h.latch.deps.db.selectFrom('projects').select('config').where('id', '=', projectId).executeTakeFirstOrThrow();
  return row.config;
}

async function selectedTeamOf(owner: OwnerSession): Promise<string> {
  const me = await h.get('/users/me', h.internalClient(owner.accessToken));
  expect(me.status).toBe(200);
  expect(me.body.selected_team_id).toEqual(expect.any(String));
  return me.body.selected_team_id;
}

function adminTokenHeaders(projectId: string, token: string): Record<string, string> {
  return { 'x-latch-project-id': projectId, 'x-latch-access-type': 'admin', 'x-latch-admin-access-token': token };
}

async function patchCurrent(project: ProjectFixture, body: unknown): Promise<ApiResponse> {
  return h.patch('/internal/projects/current', body, project.admin());
}

describe('the internal project and owners', () => {
  it('exists at start and serves its public client without a publishable key', async () => {
    const res = await h.get('/projects/current', h.internalClient());
    expect(res.status).toBe(200);
    expect(res.body.id).toBe('internal');
    expect(res.body.config.sign_up_enabled).toBe(true);
    const row = await h.latch.deps.db.selectFrom('projects').select(['id', 'owner_team_id']).where('id', '=', 'internal').executeTakeFirst();
    expect(row).toEqual({ id: 'internal', owner_team_id: null });
  });

  it('lets an owner sign up on the internal project without a publishable key, with a personal team', async () => {
    const email = h.uniqueEmail('owner');
    const res = await h.post('/auth/password/sign-up', { email, password: 'owner-password-1' }, h.internalClient());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ user_id: expect.any(String), access_token: expect.any(String), refresh_token: expect.any(String), is_new_user: true });
    const me = await h.get('/users/me', h.internalClient(res.body.access_token));
    expect(me.status).toBe(200);
    expect(me.body.primary_email).toBe(email);
    expect(me.body.selected_team_id).toEqual(expect.any(String));
  });

  it('refuses owner sign-up with SIGN_UP_NOT_ENABLED when LATCH_INTERNAL_SIGN_UP=false', async () => {
    const closed = await startHarness({ internalSignUp: false });
    try {
      const res = await closed.post('/auth/password/sign-up', { email: closed.uniqueEmail('owner'), password: 'owner-password-1' }, closed.internalClient());
      expectKnownError(res, 400, 'SIGN_UP_NOT_ENABLED');
      expect((await closed.get('/projects/current', closed.internalClient())).body.config.sign_up_enabled).toBe(false);
      const users = await closed.latch.deps.db.selectFrom('users').select('id').execute();
      expect(users).toEqual([]);
    } finally {
      await closed.close();
    }
  });

  it('creates a project (201) owned by the creator’s selected team', async () => {
    const owner = await h.signUpOwner();
    const teamId = await selectedTeamOf(owner);
    const res = await h.post('/internal/projects', { display_name: 'My app', description: 'An app' }, h.internalClient(owner.accessToken));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ display_name: 'My app', description: 'An app', owner_team_id: teamId, branch: 'main', is_production_mode: false });
    expect(res.body.id).not.toBe('internal');
    expect(res.body.config.id).toBe(res.body.id);
    const row = await h.latch.deps.db.selectFrom('projects').select(['owner_team_id']).where('id', '=', res.body.id).executeTakeFirstOrThrow();
    expect(row.owner_team_id).toBe(teamId);
    // A tenancy for the main branch exists, so the project can serve requests at once.
    const tenancy = await h.latch.deps.db.selectFrom('tenancies').select('branch_id').where('project_id', '=', res.body.id).execute();
    expect(tenancy).toEqual([{ branch_id: 'main' }]);
  });

  it('creates a project with an initial config, secrets encrypted at rest', async () => {
    const owner = await h.signUpOwner();
    const secret = `initial-secret-${randomUUID()}`;
    const res = await h.post(
      '/internal/projects',
      {
        display_name: 'Configured',
        config: {
          sign_up_enabled: false,
          oauth_providers: [{ id: 'gitlab', enabled: true, type: 'standard', client_id: 'gl-id', client_secret: secret }],
          email_config: STANDARD_EMAIL,
        },
      },
      h.internalClient(owner.accessToken),
    );
    expect(res.status).toBe(201);
    expect(res.body.config).toMatchObject({ sign_up_enabled: false, email_config: STANDARD_EMAIL_READ, enabled_oauth_providers: [{ id: 'gitlab' }] });
    expect(res.body.config.oauth_providers[0]).toMatchObject({ client_id: 'gl-id', has_client_secret: true });
    expect(JSON.stringify(res.body)).not.toContain(secret);
    const stored = JSON.stringify(await storedConfig(res.body.id));
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(STANDARD_EMAIL.password);
    const admin = await h.get('/internal/projects/current', adminTokenHeaders(res.body.id, owner.accessToken));
    // Write-only: the reads say a secret is set, never what it is (issue 13 item 5).
    expect(admin.body.config.oauth_providers[0]).toMatchObject({ has_client_secret: true });
    expect(admin.body.config.email_config).toEqual(STANDARD_EMAIL_READ);
    for (const read of [
      admin,
      await h.get('/internal/projects', h.internalClient(owner.accessToken)),
      await h.get('/internal/config', adminTokenHeaders(res.body.id, owner.accessToken)),
    ]) {
      expect(read.status).toBe(200);
      expect(JSON.stringify(read.body)).not.toContain(secret);
      expect(JSON.stringify(read.body)).not.toContain(STANDARD_EMAIL.password);
    }
    expectKnownError(
      await h.post(
        '/internal/projects',
        { display_name: 'Bad', config: { email_config: { ...STANDARD_EMAIL, port: 70000 } } },
        h.internalClient(owner.accessToken),
      ),
      400,
      'SCHEMA_ERROR',
    );
    expect((await h.get('/internal/projects', h.internalClient(owner.accessToken))).body.items.map((p: any) => p.display_name)).toEqual(['Configured']);
  });

  it('refuses project creation without a signed-in owner, off the internal project, and with bad input', async () => {
    expectKnownError(await h.post('/internal/projects', { display_name: 'x' }, h.internalClient()), 401, 'USER_AUTHENTICATION_REQUIRED');
    const project = await h.createProject();
    const user = await h.signUpUser(project);
    expectKnownError(await h.post('/internal/projects', { display_name: 'x' }, project.client(user.accessToken)), 401, 'EXPECTED_INTERNAL_PROJECT');
    expectKnownError(await h.post('/internal/projects', { display_name: 'x' }, project.admin()), 401, 'INSUFFICIENT_ACCESS_TYPE');
    expectSchemaError(await h.post('/internal/projects', { display_name: '' }, h.internalClient(project.owner.accessToken)), 'display_name');
    expectSchemaError(await h.post('/internal/projects', { display_name: 'x', secret_flag: true }, h.internalClient(project.owner.accessToken)), 'secret_flag');
    // Another owner's team cannot be named as the owner team.
    const other = await h.signUpOwner();
    const res = await h.post(
      '/internal/projects',
      { display_name: 'x', owner_team_id: await selectedTeamOf(other) },
      h.internalClient(project.owner.accessToken),
    );
    expectKnownError(res, 404, 'TEAM_MEMBERSHIP_NOT_FOUND');
  });

  it('lists only the projects of the signed-in owner', async () => {
    const [alice, bob] = await Promise.all([h.signUpOwner(), h.signUpOwner()]);
    const a1 = await h.createProject({ owner: alice, displayName: 'A1' });
    const a2 = await h.createProject({ owner: alice, displayName: 'A2' });
    const b1 = await h.createProject({ owner: bob, displayName: 'B1' });
    const aliceList = await h.get('/internal/projects', h.internalClient(alice.accessToken));
    expect(aliceList.status).toBe(200);
    expect(aliceList.body.is_paginated).toBe(false);
    expect(aliceList.body.items.map((p: any) => p.id).sort()).toEqual([a1.id, a2.id].sort());
    const bobList = await h.get('/internal/projects', h.internalClient(bob.accessToken));
    expect(bobList.body.items.map((p: any) => p.id)).toEqual([b1.id]);
    expect(JSON.stringify(bobList.body)).not.toContain(a1.id);
    expectKnownError(await h.get('/internal/projects', h.internalClient()), 401, 'USER_AUTHENTICATION_REQUIRED');
  });
});

describe('admin access tokens', () => {
  it('accepts the owner’s token for the owned project only', async () => {
    const [alice, bob] = await Promise.all([h.signUpOwner(), h.signUpOwner()]);
    const aliceProject = await h.createProject({ owner: alice });
    const bobProject = await h.createProject({ owner: bob });
    const ok = await h.get('/internal/projects/current', adminTokenHeaders(aliceProject.id, alice.accessToken));
    expect(ok.status).toBe(200);
    expect(ok.body.id).toBe(aliceProject.id);
    const notAdmin = await h.get('/internal/projects/current', adminTokenHeaders(bobProject.id, alice.accessToken));
    expectKnownError(notAdmin, 401, 'ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN');
    expect(JSON.stringify(notAdmin.body)).not.toContain('config');
    // Writes are refused the same way.
    expectKnownError(
      await h.patch('/internal/projects/current', { display_name: 'hijacked' }, adminTokenHeaders(bobProject.id, alice.accessToken)),
      401,
      'ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN',
    );
    expect((await h.get('/internal/projects/current', bobProject.admin())).body.display_name).toBe('Test project');
  });

  it('never makes an owner an admin of the internal project itself', async () => {
    const owner = await h.signUpOwner();
    await h.createProject({ owner });
    const headers = adminTokenHeaders('internal', owner.accessToken);
    expectKnownError(await h.get('/internal/projects/current', headers), 401, 'ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN');
    expectKnownError(await h.get('/users', headers), 401, 'ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN');
    expectKnownError(
      await h.post(
        '/internal/api-keys',
        { description: 'x', has_publishable_client_key: false, has_secret_server_key: true, has_super_secret_admin_key: true },
        headers,
      ),
      401,
      'ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN',
    );
    expectKnownError(await h.patch('/internal/projects/current', { config: { sign_up_enabled: false } }, headers), 401, 'ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN');
    // The internal client cannot list owners either.
    expectKnownError(await h.get('/users', h.internalClient(owner.accessToken)), 401, 'INSUFFICIENT_ACCESS_TYPE');
    expect((await h.get('/projects/current', h.internalClient())).body.config.sign_up_enabled).toBe(true);
  });

  it('refuses a non-internal project’s access token with INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN, and garbage as unparsable', async () => {
    const project = await h.createProject();
    const user = await h.signUpUser(project);
    expectKnownError(await h.get('/internal/projects/current', adminTokenHeaders(project.id, user.accessToken)), 401, 'INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN');
    expectKnownError(await h.get('/internal/projects/current', adminTokenHeaders(project.id, 'not-a-jwt')), 401, 'UNPARSABLE_ADMIN_ACCESS_TOKEN');
  });

  it('stops accepting the owner’s token once the owner signs out', async () => {
    const project = await h.createProject();
    expect((await h.get('/internal/projects/current', project.ownerAdmin())).status).toBe(200);
    const signOut = await h.del('/auth/sessions/current', h.internalClient(project.owner.accessToken));
    expect(signOut.status).toBe(200);
    // The token's session is gone: it is expired (issue 13 item 5), not "not an admin".
    expectKnownError(await h.get('/internal/projects/current', project.ownerAdmin()), 401, 'ADMIN_ACCESS_TOKEN_EXPIRED');
  });
});

describe('POST /internal/projects/transfer', () => {
  it('moves a project only between the owner’s own teams, and the old team loses access', async () => {
    const [alice, bob] = await Promise.all([h.signUpOwner(), h.signUpOwner()]);
    const aliceTeam = await selectedTeamOf(alice);
    const bobTeam = await selectedTeamOf(bob);
    const project = await h.createProject({ owner: alice });
    const transfer = (owner: OwnerSession, body: unknown) => h.post('/internal/projects/transfer', body, h.internalClient(owner.accessToken));
    const ownerTeam = async () =>
      (await h.latch.deps.db.selectFrom('projects').select('owner_team_id').where('id', '=', project.id).executeTakeFirstOrThrow()).owner_team_id;
    expect(await ownerTeam()).toBe(aliceTeam);

    // A shared team of the internal project with both owners in it.
    const tenancyId = await internalTenancyId();
    const sharedTeam = randomUUID();
    await h.latch.deps.db.insertInto('teams').values({ tenancy_id: tenancyId, id: sharedTeam, display_name: 'Shared' }).execute();
    await h.latch.deps.db
      .insertInto('team_members')
      .values([
        { tenancy_id: tenancyId, team_id: sharedTeam, user_id: alice.userId },
        { tenancy_id: tenancyId, team_id: sharedTeam, user_id: bob.userId },
      ])
      .execute();

    // Alice cannot move it to Bob's team; Bob cannot move a project he does not own.
    expectKnownError(await transfer(alice, { project_id: project.id, new_team_id: bobTeam }), 404, 'TEAM_MEMBERSHIP_NOT_FOUND');
    expectKnownError(await transfer(alice, { project_id: project.id, new_team_id: randomUUID() }), 404, 'TEAM_MEMBERSHIP_NOT_FOUND');
    expectKnownError(await transfer(bob, { project_id: project.id, new_team_id: bobTeam }), 404, 'PROJECT_NOT_FOUND');
    expectKnownError(await transfer(bob, { project_id: project.id, new_team_id: sharedTeam }), 404, 'PROJECT_NOT_FOUND');
    expectKnownError(await transfer(alice, { project_id: 'no-such-project', new_team_id: sharedTeam }), 404, 'PROJECT_NOT_FOUND');
    expectKnownError(await transfer(alice, { project_id: 'internal', new_team_id: sharedTeam }), 404, 'PROJECT_NOT_FOUND');
    expectSchemaError(await transfer(alice, { project_id: project.id, new_team_id: 'not-a-uuid' }), 'new_team_id');
    expect(await ownerTeam()).toBe(aliceTeam);
    expectKnownError(await h.get('/internal/projects/current', adminTokenHeaders(project.id, bob.accessToken)), 401, 'ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN');

    // Into the shared team: both owners administer it now.
    const moved = await transfer(alice, { project_id: project.id, new_team_id: sharedTeam });
    expect(moved.status).toBe(200);
    expect(moved.body).toEqual({ success: true });
    expect(await ownerTeam()).toBe(sharedTeam);
    expect((await h.get('/internal/projects/current', adminTokenHeaders(project.id, bob.accessToken))).body.owner_team_id).toBe(sharedTeam);
    expect((await h.get('/internal/projects', h.internalClient(bob.accessToken))).body.items.map((p: any) => p.id)).toContain(project.id);

    // Bob moves it to his own team: Alice loses access.
    expect((await transfer(bob, { project_id: project.id, new_team_id: bobTeam })).status).toBe(200);
    expect(await ownerTeam()).toBe(bobTeam);
    expectKnownError(await h.get('/internal/projects/current', adminTokenHeaders(project.id, alice.accessToken)), 401, 'ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN');
    expect((await h.get('/internal/projects', h.internalClient(alice.accessToken))).body.items.map((p: any) => p.id)).not.toContain(project.id);
    expectKnownError(await transfer(alice, { project_id: project.id, new_team_id: aliceTeam }), 404, 'PROJECT_NOT_FOUND');
  });
});

describe('GET /projects/current (client view)', () => {
  it('has enabled_oauth_providers but no email_config, provider list or secrets', async () => {
    const project = await h.createProject();
    const set = await patchCurrent(project, {
      config: {
        oauth_providers: [
          { id: 'github', enabled: true, type: 'standard', client_id: 'gh-client-id', client_secret: 'gh-client-secret-plaintext' },
          { id: 'google', enabled: false, type: 'shared' },
          { id: 'discord', enabled: true, type: 'shared' },
        ],
        email_config: STANDARD_EMAIL,
      },
    });
    expect(set.status).toBe(200);
    const res = await h.get('/projects/current', project.client());
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(project.id);
    expect(res.body.config.enabled_oauth_providers).toEqual([{ id: 'github' }, { id: 'discord' }]);
    expect(res.body.config).not.toHaveProperty('email_config');
    expect(res.body.config).not.toHaveProperty('oauth_providers');
    expect(res.body).not.toHaveProperty('owner_team_id');
    expect(res.body).not.toHaveProperty('production_mode_problems');
    const text = JSON.stringify(res.body);
    for (const secret of ['gh-client-secret-plaintext', 'gh-client-id', 'smtp-password-plaintext', 'smtp.example.com', 'client_secret', 'password'])
      expect(text).not.toContain(secret);
    // Server callers get the same public view.
    expect((await h.get('/projects/current', project.server())).body).toEqual(res.body);
  });
});

describe('PATCH /internal/projects/current', () => {
  it('round-trips every config flag, and a partial patch leaves the others alone', async () => {
    const project = await h.createProject();
    const initial = (await h.get('/internal/projects/current', project.admin())).body.config;
    const flipped = Object.fromEntries(CONFIG_FLAGS.map((flag) => [flag, !initial[flag]]));
    const res = await patchCurrent(project, {
      config: { ...flipped, oauth_account_merge_strategy: 'raise_error', user_default_permissions: [{ id: 'read' }] },
    });
    expect(res.status).toBe(200);
    expect(res.body.config).toMatchObject({ ...flipped, oauth_account_merge_strategy: 'raise_error', user_default_permissions: [{ id: 'read' }] });
    const read = await h.get('/internal/projects/current', project.admin());
    expect(read.body.config).toMatchObject(flipped);
    expect(JSON.parse((await h.get('/internal/config', project.admin())).body.config_string)).toMatchObject(flipped);

    // The client view follows (the flags it carries).
    const client = (await h.get('/projects/current', project.client())).body.config;
    expect(client.sign_up_enabled).toBe(flipped.sign_up_enabled);
    expect(client.client_user_deletion_enabled).toBe(flipped.client_user_deletion_enabled);

    // One flag at a time back to its initial value; the rest stay as they are.
    const current: Record<string, boolean> = { ...flipped };
    for (const flag of CONFIG_FLAGS) {
      const one = await patchCurrent(project, { config: { [flag]: initial[flag] } });
      expect(one.status).toBe(200);
      current[flag] = initial[flag];
      expect(one.body.config).toMatchObject(current);
    }
    expect((await h.get('/internal/projects/current', project.admin())).body.config.oauth_account_merge_strategy).toBe('raise_error');
    expectSchemaError(await patchCurrent(project, { config: { sign_up_enabled: 'yes' } }), 'sign_up_enabled');
    expectSchemaError(await patchCurrent(project, { config: { oauth_account_merge_strategy: 'merge_everything' } }), 'oauth_account_merge_strategy');
  });

  it('applies sign_up_enabled=false for real: client sign-up is refused, server creation still works', async () => {
    const project = await h.createProject();
    expect((await patchCurrent(project, { config: { sign_up_enabled: false } })).status).toBe(200);
    expectKnownError(
      await h.post('/auth/password/sign-up', { email: h.uniqueEmail(), password: 'long-enough-pw' }, project.client()),
      400,
      'SIGN_UP_NOT_ENABLED',
    );
    expect((await h.post('/users', { primary_email: h.uniqueEmail() }, project.server())).status).toBe(201);
  });

  it('updates the project fields and refuses unknown properties', async () => {
    const project = await h.createProject();
    const res = await patchCurrent(project, {
      display_name: 'Renamed',
      description: 'Described',
      logo_url: 'https://cdn.example.com/logo.png',
      is_production_mode: true,
      // Production mode is switched on only without problems (localhost allowed is one).
      config: { allow_localhost: false },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      display_name: 'Renamed',
      description: 'Described',
      logo_url: 'https://cdn.example.com/logo.png',
      is_production_mode: true,
      // Production mode is switched on only without problems (localhost allowed is one).
      config: { allow_localhost: false },
    });
    const before = (await h.get('/internal/projects/current', project.admin())).body;
    expectSchemaError(await patchCurrent(project, { display_name: 'Again', owner_team_id: randomUUID() }), 'owner_team_id');
    expectSchemaError(await patchCurrent(project, { config: { sign_up_enabled: false, superpowers: true } }), 'superpowers');
    expectSchemaError(await patchCurrent(project, { display_name: '' }), 'display_name');
    expect((await h.get('/internal/projects/current', project.admin())).body).toEqual(before);
  });

  it('stores domains with their handler_path, which must start with /', async () => {
    const project = await h.createProject();
    const domains = [
      { domain: 'https://app.example.com', handler_path: '/handler' },
      { domain: 'https://*.example.com', handler_path: '/auth/handler' },
      { domain: 'https://example.com:8443', handler_path: '/' },
    ];
    const res = await patchCurrent(project, { config: { domains } });
    expect(res.status).toBe(200);
    expect(res.body.config.domains).toEqual(domains);
    expect((await h.get('/projects/current', project.client())).body.config.domains).toEqual(domains);

    const bad = await patchCurrent(project, { config: { domains: [{ domain: 'https://app.example.com', handler_path: 'handler' }] } });
    expectSchemaError(bad, 'Handler path must start with /');
    expectSchemaError(await patchCurrent(project, { config: { domains: [{ domain: 'https://app.example.com' }] } }), 'handler_path');
    expect((await h.get('/internal/projects/current', project.admin())).body.config.domains).toEqual(domains);
  });

  it('rejects invalid trusted domains and allows a wildcard hostname', async () => {
    const project = await h.createProject();
    const invalid = [
      'https://exa mple.com',
      ' https://example.com',
      'ftp://example.com',
      'example.com',
      'javascript:alert(1)',
      'https://example.com/*',
      'https://example.com/path/*/x',
      'https://example.com?q=*',
      'https://example.com#*',
      'https://*:*@example.com',
      'https://*..example.com',
      'https://.*.example.com',
      'https://*.example.com.',
    ];
    for (const domain of invalid) {
      const res = await patchCurrent(project, { config: { domains: [{ domain, handler_path: '/handler' }] } });
      expect(res.status, domain).toBe(400);
      expectSchemaError(res, 'domain');
    }
    expect((await h.get('/internal/projects/current', project.admin())).body.config.domains).toEqual([]);
    for (const domain of ['https://*.example.com', 'http://*.preview.example.com', 'https://app-*.example.com']) {
      const res = await patchCurrent(project, { config: { domains: [{ domain, handler_path: '/handler' }] } });
      expect(res.status, `${domain}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(res.body.config.domains).toEqual([{ domain, handler_path: '/handler' }]);
    }
  });

  it('requires a client secret for standard OAuth providers and stores it encrypted', async () => {
    const project = await h.createProject();
    const missing = await patchCurrent(project, { config: { oauth_providers: [{ id: 'github', enabled: true, type: 'standard', client_id: 'cid' }] } });
    expectKnownError(missing, 400, 'SCHEMA_ERROR');
    expectKnownError(
      await patchCurrent(project, { config: { oauth_providers: [{ id: 'github', enabled: true, type: 'standard', client_id: 'cid', client_secret: '' }] } }),
      400,
      'SCHEMA_ERROR',
    );
    expectSchemaError(await patchCurrent(project, { config: { oauth_providers: [{ id: 'myspace', enabled: true, type: 'shared' }] } }), 'id');
    expectKnownError(
      await patchCurrent(project, {
        config: {
          oauth_providers: [
            { id: 'github', enabled: true, type: 'shared' },
            { id: 'github', enabled: false, type: 'shared' },
          ],
        },
      }),
      400,
      'SCHEMA_ERROR',
    );
    expect((await h.get('/internal/projects/current', project.admin())).body.config.oauth_providers).toEqual([]);

    const secret = `gh-secret-${randomUUID()}`;
    const res = await patchCurrent(project, {
      config: {
        oauth_providers: [
          { id: 'github', enabled: true, type: 'standard', client_id: 'gh-cid', client_secret: secret },
          { id: 'microsoft', enabled: false, type: 'standard', client_id: 'ms-cid', client_secret: 'ms-secret', microsoft_tenant_id: 'tenant-1' },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.config.oauth_providers).toEqual([
      { id: 'github', enabled: true, type: 'standard', client_id: 'gh-cid', has_client_secret: true, facebook_config_id: null, microsoft_tenant_id: null },
      {
        id: 'microsoft',
        enabled: false,
        type: 'standard',
        client_id: 'ms-cid',
        has_client_secret: true,
        facebook_config_id: null,
        microsoft_tenant_id: 'tenant-1',
      },
    ]);
    expect(res.body.config.enabled_oauth_providers).toEqual([{ id: 'github' }]);

    const stored = await storedConfig(project.id);
    expect(JSON.stringify(stored)).not.toContain(secret);
    expect(JSON.stringify(stored)).not.toContain('ms-secret');
    const storedProviders = stored.oauth_providers as { id: string; client_secret: string }[];
    expect(storedProviders.find((p) => p.id === 'github')?.client_secret).toMatch(/^v1\./);

    // Unrelated patches keep the secret; so does rewriting the provider list without the secrets
    // (what the console does when it edits another provider), as long as the client id is the same.
    const githubSecret = async () =>
      ((await storedConfig(project.id)).oauth_providers as { id: string; client_secret: string }[]).find((p) => p.id === 'github')?.client_secret;
    const before = await githubSecret();
    expect((await patchCurrent(project, { config: { sign_up_enabled: false } })).body.config.oauth_providers[0].has_client_secret).toBe(true);
    const rewritten = await patchCurrent(project, {
      config: {
        oauth_providers: [
          { id: 'github', enabled: false, type: 'standard', client_id: 'gh-cid' },
          { id: 'microsoft', enabled: false, type: 'standard', client_id: 'ms-cid', microsoft_tenant_id: 'tenant-1' },
        ],
      },
    });
    expect(rewritten.status, JSON.stringify(rewritten.body)).toBe(200);
    expect(await githubSecret()).toBe(before);
    // A new client id needs its own secret; a provider that never had one cannot omit it.
    expectKnownError(
      await patchCurrent(project, { config: { oauth_providers: [{ id: 'github', enabled: true, type: 'standard', client_id: 'other-cid' }] } }),
      400,
      'SCHEMA_ERROR',
    );
    expectKnownError(
      await patchCurrent(project, { config: { oauth_providers: [{ id: 'gitlab', enabled: true, type: 'standard', client_id: 'gl' }] } }),
      400,
      'SCHEMA_ERROR',
    );
    expect(await githubSecret()).toBe(before);
  });

  it('validates the email server config and stores its password encrypted', async () => {
    const project = await h.createProject();
    expectSchemaError(await patchCurrent(project, { config: { email_config: { ...STANDARD_EMAIL, port: 70000 } } }), 'port');
    expectSchemaError(await patchCurrent(project, { config: { email_config: { ...STANDARD_EMAIL, port: -1 } } }), 'port');
    expectSchemaError(await patchCurrent(project, { config: { email_config: { ...STANDARD_EMAIL, sender_email: 'not an email' } } }), 'sender_email');
    expectKnownError(await patchCurrent(project, { config: { email_config: { type: 'carrier-pigeon' } } }), 400, 'SCHEMA_ERROR');
    expect((await h.get('/internal/projects/current', project.admin())).body.config.email_config).toEqual({ type: 'shared' });

    const res = await patchCurrent(project, { config: { email_config: { ...STANDARD_EMAIL, port: 65535 } } });
    expect(res.status).toBe(200);
    expect(res.body.config.email_config).toEqual({ ...STANDARD_EMAIL_READ, port: 65535 });
    const stored = (await storedConfig(project.id)).email_config as Record<string, unknown>;
    expect(stored.password).toMatch(/^v1\./);
    expect(JSON.stringify(stored)).not.toContain(STANDARD_EMAIL.password);
    expect((await h.get('/internal/projects/current', project.admin())).body.config.email_config).toEqual({ ...STANDARD_EMAIL_READ, port: 65535 });
    expect((await patchCurrent(project, { config: { email_config: { ...STANDARD_EMAIL, port: 0 } } })).status).toBe(200);
    // Write-only: a patch without the password keeps it for the same host and username…
    const { password: _, ...withoutPassword } = STANDARD_EMAIL;
    const kept = await patchCurrent(project, { config: { email_config: { ...withoutPassword, sender_name: 'Renamed' } } });
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    expect(kept.body.config.email_config).toMatchObject({ has_password: true, sender_name: 'Renamed' });
    expect(((await storedConfig(project.id)).email_config as Record<string, unknown>).password).toMatch(/^v1\./);
    // …but a new host or username must bring its own: the stored one is never sent elsewhere.
    expectSchemaError(await patchCurrent(project, { config: { email_config: { ...withoutPassword, host: 'smtp.attacker.example' } } }), 'password');
    expectSchemaError(await patchCurrent(project, { config: { email_config: { ...withoutPassword, username: 'someone-else' } } }), 'password');
    expect((await h.get('/internal/projects/current', project.admin())).body.config.email_config.host).toBe('smtp.example.com');
  });

  it('reports production-mode problems, each linking to the domains page', async () => {
    const project = await h.createProject();
    const fix = `/projects/${project.id}/domains`;
    const initial = (await h.get('/internal/projects/current', project.admin())).body;
    expect(initial.config.allow_localhost).toBe(true);
    expect(initial.production_mode_problems).toEqual([{ message: 'Localhost is not allowed in production mode', relative_fix_url: fix }]);

    const res = await patchCurrent(project, {
      config: {
        allow_localhost: false,
        domains: [
          { domain: 'https://good.example.com', handler_path: '/handler' },
          { domain: 'http://insecure.example.com', handler_path: '/handler' },
          { domain: 'https://10.0.0.1', handler_path: '/handler' },
          { domain: 'http://localhost:3000', handler_path: '/handler' },
        ],
      },
    });
    expect(res.status).toBe(200);
    const problems = res.body.production_mode_problems as { message: string; relative_fix_url: string }[];
    expect(problems).toHaveLength(3);
    for (const problem of problems) expect(problem.relative_fix_url).toBe(fix);
    expect(problems.some((p) => p.message.includes('should be HTTPS') && p.message.includes('http://insecure.example.com'))).toBe(true);
    expect(problems.some((p) => p.message.includes('https://10.0.0.1'))).toBe(true);
    expect(problems.some((p) => p.message.includes('http://localhost:3000') && /localhost/i.test(p.message))).toBe(true);
    expect(problems.some((p) => p.message.includes('good.example.com'))).toBe(false);
    expect(problems.some((p) => p.message === 'Localhost is not allowed in production mode')).toBe(false);

    const clean = await patchCurrent(project, { config: { domains: [{ domain: 'https://good.example.com', handler_path: '/handler' }] } });
    expect(clean.body.production_mode_problems).toEqual([]);
  });
});

describe('GET /internal/config and PATCH /internal/config/override', () => {
  it('returns the effective config as a JSON string', async () => {
    const project = await h.createProject();
    const res = await h.get('/internal/config', project.admin());
    expect(res.status).toBe(200);
    const config = JSON.parse(res.body.config_string);
    const admin = (await h.get('/internal/projects/current', project.admin())).body;
    expect(config).toEqual(admin.config);
    expect(config.sign_up_enabled).toBe(true);
    expect(config.email_config).toEqual({ type: 'shared' });
    expectKnownError(await h.get('/internal/config', project.server()), 401, 'INSUFFICIENT_ACCESS_TYPE');
  });

  it('applies an override with plain and dotted keys', async () => {
    const project = await h.createProject();
    expect((await patchCurrent(project, { config: { email_config: STANDARD_EMAIL } })).status).toBe(200);
    const res = await h.patch(
      '/internal/config/override',
      { config_override_string: '{"sign_up_enabled": false, "email_config.type": "shared"}' },
      project.admin(),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const config = JSON.parse(res.body.config_string);
    expect(config.sign_up_enabled).toBe(false);
    expect(config.email_config).toEqual({ type: 'shared' });
    const admin = (await h.get('/internal/projects/current', project.admin())).body.config;
    expect(admin.sign_up_enabled).toBe(false);
    expect(admin.email_config).toEqual({ type: 'shared' });
    expectKnownError(
      await h.post('/auth/password/sign-up', { email: h.uniqueEmail(), password: 'long-enough-pw' }, project.client()),
      400,
      'SIGN_UP_NOT_ENABLED',
    );

    // A dotted key changes one nested value and keeps the rest (the password stays encrypted).
    expect((await patchCurrent(project, { config: { email_config: STANDARD_EMAIL } })).status).toBe(200);
    const port = await h.patch('/internal/config/override', { config_override_string: JSON.stringify({ 'email_config.port': 2525 }) }, project.admin());
    expect(port.status, JSON.stringify(port.body)).toBe(200);
    expect(JSON.parse(port.body.config_string).email_config).toEqual({ ...STANDARD_EMAIL_READ, port: 2525 });
    // A new host needs the password with it (write-only secrets are not carried to another server).
    expectSchemaError(
      await h.patch('/internal/config/override', { config_override_string: JSON.stringify({ 'email_config.host': 'smtp2.example.com' }) }, project.admin()),
      'password',
    );
    const host = await h.patch(
      '/internal/config/override',
      { config_override_string: JSON.stringify({ 'email_config.host': 'smtp2.example.com', 'email_config.password': STANDARD_EMAIL.password }) },
      project.admin(),
    );
    expect(host.status, JSON.stringify(host.body)).toBe(200);
    expect(JSON.parse(host.body.config_string).email_config).toEqual({ ...STANDARD_EMAIL_READ, host: 'smtp2.example.com', port: 2525 });
    const stored = (await storedConfig(project.id)).email_config as Record<string, unknown>;
    expect(stored.password).toMatch(/^v1\./);

    // From shared to standard with dotted keys: the new variant is built from the given fields only.
    expect((await patchCurrent(project, { config: { email_config: { type: 'shared' } } })).status).toBe(200);
    const standard = Object.fromEntries(Object.entries(STANDARD_EMAIL).map(([k, v]) => [`email_config.${k}`, v]));
    const retyped = await h.patch('/internal/config/override', { config_override_string: JSON.stringify(standard) }, project.admin());
    expect(retyped.status, JSON.stringify(retyped.body)).toBe(200);
    expect(JSON.parse(retyped.body.config_string).email_config).toEqual(STANDARD_EMAIL_READ);
  });

  it('refuses invalid JSON and invalid values with SCHEMA_ERROR and changes nothing', async () => {
    const project = await h.createProject();
    const before = (await h.get('/internal/config', project.admin())).body.config_string;
    const overrides = [
      '{"sign_up_enabled": false',
      'not json at all',
      '[1, 2]',
      'null',
      '"sign_up_enabled"',
      '{"sign_up_enabled": "no"}',
      '{"email_config.port": 70000}',
      '{"email_config": {"type": "standard", "host": "smtp.example.com", "port": 70000, "username": "u", "password": "p", "sender_name": "n", "sender_email": "a@example.com"}}',
      '{"sign_up_enabled": false, "no_such_key": 1}',
      '{"domains": [{"domain": "ftp://example.com", "handler_path": "/handler"}]}',
      '{"email_config.type": "standard"}',
      '{"sign_up_enabled.value": true}',
      '{"email_config.type.x": "shared"}',
      '{"email_config.toString.x": 1}',
      // Prototype pollution attempts: refused, and Object.prototype stays clean (the server runs in this process).
      '{"email_config.__proto__.polluted": true}',
      '{"__proto__": {"polluted": true}}',
      '{"constructor.prototype.polluted": true}',
    ];
    for (const override of overrides) {
      const res = await h.patch('/internal/config/override', { config_override_string: override }, project.admin());
      expect(res.status, override).toBe(400);
      expectKnownError(res, 400, 'SCHEMA_ERROR');
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expectKnownError(await h.patch('/internal/config/override', { config_override_string: { sign_up_enabled: false } }, project.admin()), 400, 'SCHEMA_ERROR');
    expect((await h.get('/internal/config', project.admin())).body.config_string).toBe(before);
  });
});

describe('DELETE /internal/projects/current', () => {
  it('removes the project with its users and keys, and its keys then fail with CURRENT_PROJECT_NOT_FOUND', async () => {
    const project = await h.createProject();
    const survivor = await h.createProject({ owner: project.owner });
    const user = await h.signUpUser(project);
    const survivorUser = await h.signUpUser(survivor);
    const db = h.latch.deps.db;
    const tenancy = await db.selectFrom('tenancies').select('id').where('project_id', '=', project.id).executeTakeFirstOrThrow();
    expect((await db.selectFrom('users').select('id').where('tenancy_id', '=', tenancy.id).execute()).length).toBe(1);
    expect((await db.selectFrom('api_key_sets').select('id').where('project_id', '=', project.id).execute()).length).toBe(1);

    const res = await h.del('/internal/projects/current', project.admin());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });

    expect(await db.selectFrom('projects').select('id').where('id', '=', project.id).execute()).toEqual([]);
    expect(await db.selectFrom('tenancies').select('id').where('project_id', '=', project.id).execute()).toEqual([]);
    expect(await db.selectFrom('users').select('id').where('tenancy_id', '=', tenancy.id).execute()).toEqual([]);
    expect(await db.selectFrom('sessions').select('id').where('tenancy_id', '=', tenancy.id).execute()).toEqual([]);
    expect(await db.selectFrom('contact_channels').select('id').where('tenancy_id', '=', tenancy.id).execute()).toEqual([]);
    expect(await db.selectFrom('api_key_sets').select('id').where('project_id', '=', project.id).execute()).toEqual([]);

    for (const headers of [project.client(), project.client(user.accessToken), project.server(), project.admin(), project.ownerAdmin()]) {
      expectKnownError(await h.get('/projects/current', headers), 400, 'CURRENT_PROJECT_NOT_FOUND');
    }
    expectKnownError(await h.get(`/users/${user.userId}`, project.server()), 400, 'CURRENT_PROJECT_NOT_FOUND');
    expectKnownError(
      await h.post('/auth/password/sign-in', { email: user.email, password: user.password }, project.client()),
      400,
      'CURRENT_PROJECT_NOT_FOUND',
    );
    expect((await h.get('/internal/projects', h.internalClient(project.owner.accessToken))).body.items.map((p: any) => p.id)).toEqual([survivor.id]);

    // The owner's other project is untouched.
    expect((await h.get(`/users/${survivorUser.userId}`, survivor.server())).status).toBe(200);
    expect((await h.get('/internal/projects/current', survivor.ownerAdmin())).status).toBe(200);
  });

  it('is refused to server and client keys', async () => {
    const project = await h.createProject();
    expectKnownError(await h.del('/internal/projects/current', project.server()), 401, 'INSUFFICIENT_ACCESS_TYPE');
    expectKnownError(await h.del('/internal/projects/current', project.client()), 401, 'INSUFFICIENT_ACCESS_TYPE');
    expect((await h.get('/projects/current', project.client())).status).toBe(200);
  });
});
