import { describe, expect, it } from 'vitest';
import { useHarness } from '../server/test/harness.js';
import { AdminApp } from './admin-app.js';
import { ClientApp } from './client-app.js';
import { KnownErrors } from './errors.js';
import { ServerApp } from './server-app.js';

const h = useHarness();

describe('owners, AdminApp and ServerApp', () => {
  it('an owner signs in to the internal project, creates a project, and administers it with an owned AdminApp', async () => {
    const internal = new ClientApp({ projectId: 'internal', baseUrl: h.url, tokenStore: 'memory' });
    const ownerEmail = h.uniqueEmail('owner');
    expect((await internal.signUpWithPassword({ email: ownerEmail, password: 'owner-password-1' })).status).toBe('ok');
    const created = await internal.createProject({ display_name: 'SDK shop' });
    expect(created).toMatchObject({ display_name: 'SDK shop', owner_team_id: expect.any(String) });
    expect((await internal.listOwnedProjects()).map((p) => p.id)).toContain(created.id);

    // An "owned app": no token store of its own, authenticated by the owner's (refreshed) session.
    const admin = new AdminApp({ projectId: created.id, baseUrl: h.url, adminAccessToken: () => internal.getAccessToken() });
    expect((await admin.getProject()).production_mode_problems).toEqual(expect.any(Array));
    expect((await admin.listOwnedProjects()).map((p) => p.id)).toContain(created.id);
    await expect(admin.getUser()).rejects.toThrow('Cannot call this function on a Latch app without a persistent token store');

    const updated = await admin.updateProject({ display_name: 'SDK shop 2', config: { client_user_deletion_enabled: true } });
    expect(updated.config.client_user_deletion_enabled).toBe(true);
    expect((await admin.getProject()).display_name).toBe('SDK shop 2'); // the cache was invalidated

    const config = await admin.overrideConfig({ sign_up_enabled: false });
    expect(config).toMatchObject({ sign_up_enabled: false, client_user_deletion_enabled: true });
    expect(await admin.getConfig()).toMatchObject({ sign_up_enabled: false });
    await expect(admin.overrideConfig({ sign_up_enabled: 'nope' })).rejects.toBeInstanceOf(KnownErrors.SchemaError);
    await admin.overrideConfig({ sign_up_enabled: true });

    const keys = await admin.createInternalApiKey({
      description: 'sdk test',
      has_publishable_client_key: true,
      has_secret_server_key: true,
      has_super_secret_admin_key: true,
    });
    expect(keys.publishable_client_key).toMatch(/^pck_/);
    expect((await admin.listInternalApiKeys()).map((k) => k.id)).toContain(keys.id);
    expect((await admin.getInternalApiKey(keys.id)).description).toBe('sdk test');
    expect((await admin.updateInternalApiKey(keys.id, { description: 'renamed' })).description).toBe('renamed');

    // The keys work for the three apps.
    const client = new ClientApp({ projectId: created.id, publishableClientKey: keys.publishable_client_key!, baseUrl: h.url, tokenStore: 'memory' });
    const email = h.uniqueEmail();
    expect((await client.signUpWithPassword({ email, password: 'correct-horse-1' })).status).toBe('ok');
    const server = new ServerApp({ projectId: created.id, secretServerKey: keys.secret_server_key!, baseUrl: h.url });
    expect((await server.listUsers()).items.map((u) => u.primary_email)).toEqual([email]);
    const keyAdmin = new AdminApp({ projectId: created.id, superSecretAdminKey: keys.super_secret_admin_key!, baseUrl: h.url });
    expect((await keyAdmin.listUsers()).items).toHaveLength(1); // admin apps can do what server apps can
    await expect(keyAdmin.listOwnedProjects()).rejects.toThrow(/adminAccessToken/);

    // Transfer to the owner's own team, then revoke and delete keys.
    const owner = await internal.getUser({ or: 'throw' });
    await internal.transferProject({ project_id: created.id, new_team_id: owner.selected_team_id! });
    await expect(internal.transferProject({ project_id: created.id, new_team_id: crypto.randomUUID() })).rejects.toBeInstanceOf(
      KnownErrors.TeamMembershipNotFound,
    );
    await admin.revokeInternalApiKey(keys.id);
    await expect(
      new ClientApp({ projectId: created.id, publishableClientKey: keys.publishable_client_key!, baseUrl: h.url, tokenStore: 'memory' }).getProject(),
    ).rejects.toBeInstanceOf(KnownErrors.InvalidPublishableClientKey);
    await admin.deleteInternalApiKey(keys.id);
    expect(await admin.listInternalApiKeys()).toEqual([]);

    await admin.deleteProject();
    await expect(admin.getProject()).rejects.toBeInstanceOf(KnownErrors.CurrentProjectNotFound);
  });

  it('a server app creates users and sessions (impersonation) that a client app can use', async () => {
    const project = await h.createProject();
    const server = new ServerApp({ projectId: project.id, secretServerKey: project.secretServerKey, baseUrl: h.url });
    const user = await server.createUser({
      primary_email: h.uniqueEmail(),
      password: 'correct-horse-1',
      primary_email_auth_enabled: true,
      server_metadata: { plan: 'pro' },
    });
    expect(user.server_metadata).toEqual({ plan: 'pro' });
    await expect(server.createUser({ primary_email: user.primary_email })).rejects.toBeInstanceOf(KnownErrors.UserWithEmailAlreadyExists);
    expect(await server.getUserById(crypto.randomUUID())).toBeNull();

    const tokens = await server.createSession({ user_id: user.id, is_impersonation: true });
    const impersonated = new ClientApp({
      projectId: project.id,
      publishableClientKey: project.publishableClientKey,
      baseUrl: h.url,
      tokenStore: { accessToken: tokens.access_token, refreshToken: tokens.refresh_token },
    });
    expect((await impersonated.getUser({ or: 'throw' })).id).toBe(user.id);
    const sessions = await server.listSessions({ userId: user.id });
    expect(sessions.find((s) => s.is_impersonation)).toBeTruthy();
    await server.revokeSession(sessions[0]!.id, { userId: user.id });
    expect(await server.listSessions({ userId: user.id })).toHaveLength(0);

    const page = await server.listUsers({ limit: 1 });
    expect(page).toMatchObject({ is_paginated: true, pagination: { next_cursor: null } });
  });

  it('says what is missing when an app lacks its credentials', () => {
    expect(() => new ServerApp({ projectId: 'p', baseUrl: h.url })).toThrow(/secretServerKey|LATCH_SECRET_SERVER_KEY/);
    expect(() => new AdminApp({ projectId: 'p', baseUrl: h.url })).toThrow(/superSecretAdminKey/);
    expect(() => new ClientApp({ baseUrl: h.url })).toThrow(/LATCH_PROJECT_ID/);
    process.env.LATCH_PROJECT_ID = 'from-env';
    process.env.LATCH_SECRET_SERVER_KEY = 'ssk_from_env';
    try {
      expect(new ServerApp().projectId).toBe('from-env');
      expect(new ClientApp().baseUrl).toBe('http://localhost:8400');
    } finally {
      delete process.env.LATCH_PROJECT_ID;
      delete process.env.LATCH_SECRET_SERVER_KEY;
    }
  });
});
