import { createHash, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type ApiResponse, type Headers_, type ProjectFixture, useHarness } from '../../test/harness.js';

const h = useHarness();

/** A catalogued error: status, body code and the x-latch-known-error header all agree. */
function expectKnownError(res: ApiResponse, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers.get('x-latch-known-error')).toBe(code);
  expect(typeof res.body.error).toBe('string');
}

interface KeySet {
  id: string;
  publishable_client_key: string | null;
  secret_server_key: string | null;
  super_secret_admin_key: string | null;
  [field: string]: unknown;
}

const ALL_KINDS = { has_publishable_client_key: true, has_secret_server_key: true, has_super_secret_admin_key: true };

async function createKeySet(project: ProjectFixture, body: Record<string, unknown> = {}): Promise<KeySet> {
  const res = await h.post('/internal/api-keys', { description: 'keys under test', ...ALL_KINDS, ...body }, project.admin());
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

const clientHeaders = (projectId: string, key: string): Headers_ => ({
  'x-latch-project-id': projectId,
  'x-latch-access-type': 'client',
  'x-latch-publishable-client-key': key,
});
const serverHeaders = (projectId: string, key: string): Headers_ => ({
  'x-latch-project-id': projectId,
  'x-latch-access-type': 'server',
  'x-latch-secret-server-key': key,
});
const adminHeaders = (projectId: string, key: string): Headers_ => ({
  'x-latch-project-id': projectId,
  'x-latch-access-type': 'admin',
  'x-latch-super-secret-admin-key': key,
});

/** One call per kind that needs exactly that access level. */
const useClient = (projectId: string, key: string) => h.get('/projects/current', clientHeaders(projectId, key));
const useServer = (projectId: string, key: string) => h.get('/users', serverHeaders(projectId, key));
const useAdmin = (projectId: string, key: string) => h.get('/internal/api-keys', adminHeaders(projectId, key));

async function expectKeysWork(projectId: string, keys: KeySet): Promise<void> {
  expect((await useClient(projectId, keys.publishable_client_key!)).status).toBe(200);
  expect((await useServer(projectId, keys.secret_server_key!)).status).toBe(200);
  expect((await useAdmin(projectId, keys.super_secret_admin_key!)).status).toBe(200);
}

async function expectKeysRefused(projectId: string, keys: KeySet): Promise<void> {
  expectKnownError(await useClient(projectId, keys.publishable_client_key!), 401, 'INVALID_PUBLISHABLE_CLIENT_KEY');
  expectKnownError(await useServer(projectId, keys.secret_server_key!), 401, 'INVALID_SECRET_SERVER_KEY');
  expectKnownError(await useAdmin(projectId, keys.super_secret_admin_key!), 401, 'INVALID_SUPER_SECRET_ADMIN_KEY');
}

describe('POST /internal/api-keys', () => {
  it('shows the full keys once, with kind prefixes and at least 128 random bits', async () => {
    const project = await h.createProject();
    const before = Date.now();
    const res = await h.post('/internal/api-keys', { description: 'backend', ...ALL_KINDS }, project.admin());
    expect(res.status).toBe(201);
    const keys: KeySet = res.body;
    expect(keys).toMatchObject({ id: expect.any(String), description: 'backend', expires_at_millis: null, manually_revoked_at_millis: null });
    expect(keys.created_at_millis).toBeGreaterThanOrEqual(before - 5_000);
    const prefixes = { publishable_client_key: 'pck_', secret_server_key: 'ssk_', super_secret_admin_key: 'sak_' } as const;
    for (const [field, prefix] of Object.entries(prefixes) as [keyof typeof prefixes, string][]) {
      const key = keys[field]!;
      expect(key.startsWith(prefix), key).toBe(true);
      const random = key.slice(prefix.length);
      expect(random).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(Buffer.from(random, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
    }
    await expectKeysWork(project.id, keys);

    // Every key is fresh.
    const again = await createKeySet(project);
    const all = [
      keys,
      again,
      { publishable_client_key: project.publishableClientKey, secret_server_key: project.secretServerKey, super_secret_admin_key: project.superSecretAdminKey },
    ].flatMap((k) => [k.publishable_client_key, k.secret_server_key, k.super_secret_admin_key]);
    expect(new Set(all).size).toBe(all.length);
  });

  it('creates only the kinds asked for', async () => {
    const project = await h.createProject();
    const keys = await createKeySet(project, { has_publishable_client_key: false, has_super_secret_admin_key: false });
    expect(keys.publishable_client_key).toBeNull();
    expect(keys.super_secret_admin_key).toBeNull();
    expect(keys.secret_server_key).toMatch(/^ssk_/);
    const read = await h.get(`/internal/api-keys/${keys.id}`, project.admin());
    expect(read.body).toMatchObject({
      publishable_client_key: null,
      super_secret_admin_key: null,
      secret_server_key: { last_four: keys.secret_server_key!.slice(-4) },
      has_publishable_client_key: false,
      has_secret_server_key: true,
      has_super_secret_admin_key: false,
    });
    expect((await useServer(project.id, keys.secret_server_key!)).status).toBe(200);
  });

  it('lists and reads key sets with last_four only; the full key never appears again', async () => {
    const project = await h.createProject();
    const keys = await createKeySet(project, { description: 'listed' });
    const full = [keys.publishable_client_key!, keys.secret_server_key!, keys.super_secret_admin_key!];

    const list = await h.get('/internal/api-keys', project.admin());
    expect(list.status).toBe(200);
    expect(list.body.is_paginated).toBe(false);
    const listed = list.body.items.find((k: any) => k.id === keys.id);
    expect(listed).toEqual({
      id: keys.id,
      description: 'listed',
      expires_at_millis: null,
      manually_revoked_at_millis: null,
      created_at_millis: keys.created_at_millis,
      publishable_client_key: { last_four: full[0]!.slice(-4) },
      secret_server_key: { last_four: full[1]!.slice(-4) },
      super_secret_admin_key: { last_four: full[2]!.slice(-4) },
      has_publishable_client_key: true,
      has_secret_server_key: true,
      has_super_secret_admin_key: true,
    });
    // The harness's own key set is listed too, and nothing of another project is.
    expect(list.body.items).toHaveLength(2);

    const one = await h.get(`/internal/api-keys/${keys.id}`, project.admin());
    expect(one.status).toBe(200);
    expect(one.body).toEqual(listed);

    const texts = [
      JSON.stringify(list.body),
      JSON.stringify(one.body),
      JSON.stringify((await h.patch(`/internal/api-keys/${keys.id}`, { description: 'renamed' }, project.admin())).body),
    ];
    for (const text of texts) {
      for (const key of [...full, project.publishableClientKey, project.secretServerKey, project.superSecretAdminKey]) {
        expect(text).not.toContain(key);
        expect(text).not.toContain(key.slice(4, 20));
      }
    }
  });

  it('stores only SHA-256 hashes of the keys', async () => {
    const project = await h.createProject();
    const keys = await createKeySet(project);
    const row = await h.latch.deps.db.selectFrom('api_key_sets').selectAll().where('id', '=', keys.id).executeTakeFirstOrThrow();
    expect(row.project_id).toBe(project.id);
    expect(row.publishable_client_key_hash).toBe(sha256(keys.publishable_client_key!));
    expect(row.secret_server_key_hash).toBe(sha256(keys.secret_server_key!));
    expect(row.super_secret_admin_key_hash).toBe(sha256(keys.super_secret_admin_key!));
    const stored = JSON.stringify(row);
    for (const key of [keys.publishable_client_key!, keys.secret_server_key!, keys.super_secret_admin_key!]) {
      expect(stored).not.toContain(key);
      expect(stored).not.toContain(key.slice(4, 16));
    }
    // No key of any project is stored in the clear anywhere in the table.
    const everything = JSON.stringify(await h.latch.deps.db.selectFrom('api_key_sets').selectAll().execute());
    for (const key of [project.publishableClientKey, project.secretServerKey, project.superSecretAdminKey]) expect(everything).not.toContain(key);
  });

  it('refuses a key set with no kind, an expiry in the past, or bad fields (SCHEMA_ERROR)', async () => {
    const project = await h.createProject();
    const none = await h.post(
      '/internal/api-keys',
      { description: 'empty', has_publishable_client_key: false, has_secret_server_key: false, has_super_secret_admin_key: false },
      project.admin(),
    );
    expectKnownError(none, 400, 'SCHEMA_ERROR');
    const past = await h.post('/internal/api-keys', { description: 'old', ...ALL_KINDS, expires_at_millis: Date.now() - 60_000 }, project.admin());
    expectKnownError(past, 400, 'SCHEMA_ERROR');
    expect(past.body.error).toContain('expires_at_millis');
    expectKnownError(await h.post('/internal/api-keys', { description: 'neg', ...ALL_KINDS, expires_at_millis: -5 }, project.admin()), 400, 'SCHEMA_ERROR');
    // Beyond what a date can hold: a validation error, not a database failure.
    for (const millis of [8.64e15 + 1, Number.MAX_SAFE_INTEGER, 1e300, Date.now() + 0.5]) {
      const res = await h.post('/internal/api-keys', { description: 'far', ...ALL_KINDS, expires_at_millis: millis }, project.admin());
      expect(res.status, `${millis}: ${JSON.stringify(res.body)}`).toBe(400);
      expectKnownError(res, 400, 'SCHEMA_ERROR');
    }
    expectKnownError(await h.post('/internal/api-keys', { ...ALL_KINDS }, project.admin()), 400, 'SCHEMA_ERROR');
    expectKnownError(await h.post('/internal/api-keys', { description: 'x', has_publishable_client_key: true }, project.admin()), 400, 'SCHEMA_ERROR');
    expectKnownError(
      await h.post('/internal/api-keys', { description: 'x', ...ALL_KINDS, publishable_client_key: 'pck_chosen-by-me' }, project.admin()),
      400,
      'SCHEMA_ERROR',
    );
    // Nothing was created: only the harness's key set exists.
    expect((await h.get('/internal/api-keys', project.admin())).body.items).toHaveLength(1);
  });
});

describe('revocation, expiry and deletion', () => {
  it('stops a key set working once revoked, and records manually_revoked_at_millis', async () => {
    const project = await h.createProject();
    const keys = await createKeySet(project);
    await expectKeysWork(project.id, keys);

    const before = Date.now();
    const res = await h.patch(`/internal/api-keys/${keys.id}`, { revoked: true }, project.admin());
    expect(res.status).toBe(200);
    expect(res.body.manually_revoked_at_millis).toEqual(expect.any(Number));
    expect(Math.abs(res.body.manually_revoked_at_millis - before)).toBeLessThan(10_000);
    await expectKeysRefused(project.id, keys);

    // Revocation is one-way and keeps its first timestamp.
    const again = await h.patch(`/internal/api-keys/${keys.id}`, { revoked: true, description: 'revoked keys' }, project.admin());
    expect(again.body.manually_revoked_at_millis).toBe(res.body.manually_revoked_at_millis);
    expect(again.body.description).toBe('revoked keys');
    expectKnownError(await h.patch(`/internal/api-keys/${keys.id}`, { revoked: false }, project.admin()), 400, 'SCHEMA_ERROR');
    expect((await h.get(`/internal/api-keys/${keys.id}`, project.admin())).body.manually_revoked_at_millis).toBe(res.body.manually_revoked_at_millis);
    await expectKeysRefused(project.id, keys);

    // The project's other keys are unaffected.
    await expectKeysWork(project.id, {
      id: '',
      publishable_client_key: project.publishableClientKey,
      secret_server_key: project.secretServerKey,
      super_secret_admin_key: project.superSecretAdminKey,
    });
  });

  it('stops a revoked key at once in this instance although the lookup of the key is cached', async () => {
    const project = await h.createProject();
    const keys = await createKeySet(project);
    const cache = h.latch.deps.projectAuthCache;
    await expectKeysWork(project.id, keys);
    // The same key again: answered from the in-process project + key cache (project-auth-cache.ts).
    const cachedBefore = cache.size;
    await expectKeysWork(project.id, keys);
    expect(cachedBefore).toBeGreaterThan(0);
    expect(cache.size).toBe(cachedBefore);
    expect((await h.patch(`/internal/api-keys/${keys.id}`, { revoked: true }, project.admin())).status).toBe(200);
    await expectKeysRefused(project.id, keys);
    // A refused key is never cached: it keeps asking the database.
    await expectKeysRefused(project.id, keys);
  });

  it('stops a deleted key, and a config change applies, at once in this instance', async () => {
    const project = await h.createProject();
    const keys = await createKeySet(project);
    await expectKeysWork(project.id, keys);
    expect((await h.del(`/internal/api-keys/${keys.id}`, project.admin())).status).toBe(200);
    await expectKeysRefused(project.id, keys);
    const current = () => h.get('/projects/current', clientHeaders(project.id, project.publishableClientKey));
    expect((await current()).status).toBe(200);
    expect((await h.patch('/internal/projects/current', { display_name: 'Renamed at once' }, project.admin())).status).toBe(200);
    expect((await current()).body.display_name).toBe('Renamed at once');
  });

  it('stops a key set working after expires_at_millis', async () => {
    const project = await h.createProject();
    const expiresAt = Date.now() + 1500;
    const keys = await createKeySet(project, { expires_at_millis: expiresAt });
    expect(keys.expires_at_millis).toBe(expiresAt);
    await expectKeysWork(project.id, keys);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 300));
    await expectKeysRefused(project.id, keys);
    expect((await h.get(`/internal/api-keys/${keys.id}`, project.admin())).body.expires_at_millis).toBe(expiresAt);
  });

  it('deletes a key set: it stops working and is gone', async () => {
    const project = await h.createProject();
    const keys = await createKeySet(project);
    const res = await h.del(`/internal/api-keys/${keys.id}`, project.admin());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    await expectKeysRefused(project.id, keys);
    expectKnownError(await h.get(`/internal/api-keys/${keys.id}`, project.admin()), 404, 'API_KEY_NOT_FOUND');
    expectKnownError(await h.del(`/internal/api-keys/${keys.id}`, project.admin()), 404, 'API_KEY_NOT_FOUND');
    expectKnownError(await h.patch(`/internal/api-keys/${keys.id}`, { revoked: true }, project.admin()), 404, 'API_KEY_NOT_FOUND');
    expect(await h.latch.deps.db.selectFrom('api_key_sets').select('id').where('id', '=', keys.id).execute()).toEqual([]);
    expect((await h.get('/internal/api-keys', project.admin())).body.items.map((k: any) => k.id)).not.toContain(keys.id);
  });

  it('rejects a key set id that is not a UUID v4', async () => {
    const project = await h.createProject();
    for (const id of ['nope', '6ba7b810-9dad-11d1-80b4-00c04fd430c8']) {
      const res = await h.get(`/internal/api-keys/${id}`, project.admin());
      expectKnownError(res, 400, 'SCHEMA_ERROR');
      expect(res.body.error).toContain('api_key_id');
    }
    expectKnownError(await h.get(`/internal/api-keys/${randomUUID()}`, project.admin()), 404, 'API_KEY_NOT_FOUND');
  });
});

describe('key isolation and access levels', () => {
  it('does not accept one project’s keys for another project, for any kind', async () => {
    const [a, b] = await Promise.all([h.createProject(), h.createProject()]);
    expectKnownError(await useClient(b.id, a.publishableClientKey), 401, 'INVALID_PUBLISHABLE_CLIENT_KEY');
    expectKnownError(await useServer(b.id, a.secretServerKey), 401, 'INVALID_SECRET_SERVER_KEY');
    expectKnownError(await useAdmin(b.id, a.superSecretAdminKey), 401, 'INVALID_SUPER_SECRET_ADMIN_KEY');
    // And the owner of A cannot reach B's key sets through A's admin key by id.
    const bKeys = await createKeySet(b);
    expectKnownError(await h.get(`/internal/api-keys/${bKeys.id}`, a.admin()), 404, 'API_KEY_NOT_FOUND');
    expectKnownError(await h.patch(`/internal/api-keys/${bKeys.id}`, { revoked: true }, a.admin()), 404, 'API_KEY_NOT_FOUND');
    expectKnownError(await h.del(`/internal/api-keys/${bKeys.id}`, a.admin()), 404, 'API_KEY_NOT_FOUND');
    await expectKeysWork(b.id, bKeys);
    expect((await h.get('/internal/api-keys', a.admin())).body.items.map((k: any) => k.id)).not.toContain(bKeys.id);
  });

  it('does not accept a key of one kind in another kind’s header', async () => {
    const project = await h.createProject();
    expectKnownError(await useClient(project.id, project.secretServerKey), 401, 'INVALID_PUBLISHABLE_CLIENT_KEY');
    expectKnownError(await useClient(project.id, project.superSecretAdminKey), 401, 'INVALID_PUBLISHABLE_CLIENT_KEY');
    expectKnownError(await useServer(project.id, project.publishableClientKey), 401, 'INVALID_SECRET_SERVER_KEY');
    expectKnownError(await useServer(project.id, project.superSecretAdminKey), 401, 'INVALID_SECRET_SERVER_KEY');
    expectKnownError(await useAdmin(project.id, project.publishableClientKey), 401, 'INVALID_SUPER_SECRET_ADMIN_KEY');
    expectKnownError(await useAdmin(project.id, project.secretServerKey), 401, 'INVALID_SUPER_SECRET_ADMIN_KEY');
  });

  it('refuses admin endpoints to client and server keys with INSUFFICIENT_ACCESS_TYPE', async () => {
    const project = await h.createProject();
    for (const headers of [project.client(), project.server()]) {
      expectKnownError(await h.get('/internal/api-keys', headers), 401, 'INSUFFICIENT_ACCESS_TYPE');
      expectKnownError(await h.post('/internal/api-keys', { description: 'x', ...ALL_KINDS }, headers), 401, 'INSUFFICIENT_ACCESS_TYPE');
      expectKnownError(await h.get('/internal/projects/current', headers), 401, 'INSUFFICIENT_ACCESS_TYPE');
      expectKnownError(await h.patch('/internal/projects/current', { display_name: 'x' }, headers), 401, 'INSUFFICIENT_ACCESS_TYPE');
    }
    const refused = await h.get('/internal/api-keys', project.server());
    expect(refused.body.details).toMatchObject({ actual_access_type: 'server', allowed_access_types: ['admin'] });
    expect((await h.get('/internal/api-keys', project.admin())).body.items).toHaveLength(1);
  });

  it('requires the matching credential for each access type', async () => {
    const project = await h.createProject();
    const base = { 'x-latch-project-id': project.id };
    expectKnownError(await h.get('/users', { ...base, 'x-latch-access-type': 'server' }), 401, 'SERVER_AUTHENTICATION_REQUIRED');
    // A key of another kind does not count.
    expectKnownError(
      await h.get('/users', { ...base, 'x-latch-access-type': 'server', 'x-latch-publishable-client-key': project.publishableClientKey }),
      401,
      'SERVER_AUTHENTICATION_REQUIRED',
    );
    expectKnownError(await h.get('/internal/api-keys', { ...base, 'x-latch-access-type': 'admin' }), 401, 'ADMIN_AUTHENTICATION_REQUIRED');
    expectKnownError(
      await h.get('/internal/api-keys', { ...base, 'x-latch-access-type': 'admin', 'x-latch-secret-server-key': project.secretServerKey }),
      401,
      'ADMIN_AUTHENTICATION_REQUIRED',
    );
    expectKnownError(await h.get('/projects/current', { ...base, 'x-latch-access-type': 'client' }), 401, 'PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT');
    expectKnownError(
      await h.get('/projects/current', { ...base, 'x-latch-secret-server-key': project.secretServerKey }),
      400,
      'PROJECT_KEY_WITHOUT_ACCESS_TYPE',
    );
    expectKnownError(await h.get('/internal/api-keys', {}), 401, 'ADMIN_AUTHENTICATION_REQUIRED');
    expectKnownError(await h.get('/users', {}), 401, 'SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED');
    expectKnownError(
      await h.get('/users', { 'x-latch-project-id': randomUUID(), 'x-latch-access-type': 'server', 'x-latch-secret-server-key': project.secretServerKey }),
      400,
      'CURRENT_PROJECT_NOT_FOUND',
    );
  });
});
