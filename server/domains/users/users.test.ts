import { randomBytes } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import { type ApiResponse, type ProjectFixture, useHarness } from '../../test/harness.js';
import { expectKnownError, tenancyOf } from '../../test/team-fixtures.js';

const h = useHarness();

/** A SCHEMA_ERROR for an unknown property: the message names it. */
function expectUnknownPropertyError(res: ApiResponse, property: string): void {
  expectKnownError(res, 400, 'SCHEMA_ERROR');
  expect(res.body.error).toContain(property);
}

/** A SCHEMA_ERROR whose message and issue list both name the field. */
function expectSchemaErrorNaming(res: ApiResponse, field: string): void {
  expectKnownError(res, 400, 'SCHEMA_ERROR');
  expect(res.body.error).toContain(field);
  const paths = ((res.body.details?.issues ?? []) as { path: string }[]).map((issue) => issue.path);
  expect(paths.some((path) => path === field || path.split('.').includes(field))).toBe(true);
}

async function createUser(project: ProjectFixture, body: Record<string, unknown> = {}): Promise<any> {
  const res = await h.post('/users', body, project.server());
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function tenancyIdOf(projectId: string): Promise<string> {
  return (await tenancyOf(h, projectId)).id;
}

async function rowCounts(tenancyId: string, userId: string): Promise<{ users: number; sessions: number; contact_channels: number; team_members: number }> {
  const db = h.latch.deps.db;
  const users = await db.selectFrom('users').select('id').where('tenancy_id', '=', tenancyId).where('id', '=', userId).execute();
  const sessions = await db.selectFrom('sessions').select('id').where('tenancy_id', '=', tenancyId).where('user_id', '=', userId).execute();
  const channels = await db.selectFrom('contact_channels').select('id').where('tenancy_id', '=', tenancyId).where('user_id', '=', userId).execute();
  const members = await db.selectFrom('team_members').select('team_id').where('tenancy_id', '=', tenancyId).where('user_id', '=', userId).execute();
  return { users: users.length, sessions: sessions.length, contact_channels: channels.length, team_members: members.length };
}

const UUID_V1 = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';

/** An email of exactly `length` characters (64-character local part, labels of at most 63). */
function emailOfLength(length: number): string {
  const domainLength = length - 65;
  const last = domainLength - (63 + 1 + 63 + 1) - 4;
  return `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(last)}.com`;
}

describe('POST /users (server)', () => {
  it('creates a user with a password, verified email, all three metadata fields and a display name', async () => {
    const project = await h.createProject();
    const email = h.uniqueEmail('created');
    const res = await h.post(
      '/users',
      {
        primary_email: email,
        primary_email_verified: true,
        password: 'server-set-password',
        display_name: 'Ada Lovelace',
        client_metadata: { theme: 'dark' },
        client_read_only_metadata: { plan: 'pro', seats: 3 },
        server_metadata: { stripe_customer: 'cus_123', flags: [1, 2] },
      },
      project.server(),
    );
    expect(res.status).toBe(201);
    const user = res.body;
    expect(user.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(user).toMatchObject({
      primary_email: email,
      primary_email_verified: true,
      auth_with_email: true,
      display_name: 'Ada Lovelace',
      has_password: true,
      is_anonymous: false,
      requires_totp_mfa: false,
      client_metadata: { theme: 'dark' },
      client_read_only_metadata: { plan: 'pro', seats: 3 },
      server_metadata: { stripe_customer: 'cus_123', flags: [1, 2] },
    });
    expect(Math.abs(user.signed_up_at_millis - Date.now())).toBeLessThan(60_000);
    expect(typeof user.last_active_at_millis).toBe('number');
    expect(JSON.stringify(user)).not.toContain('server-set-password');

    // The stored user reads back the same, and the password really signs in.
    const read = await h.get(`/users/${user.id}`, project.server());
    expect(read.status).toBe(200);
    expect(read.body).toEqual(user);
    const signIn = await h.post('/auth/password/sign-in', { email, password: 'server-set-password' }, project.client());
    expect(signIn.status).toBe(200);
    expect(signIn.body.user_id).toBe(user.id);
    const wrong = await h.post('/auth/password/sign-in', { email, password: 'not-the-password' }, project.client());
    expectKnownError(wrong, 400, 'EMAIL_PASSWORD_MISMATCH');
  });

  it('creates a user without an email or password', async () => {
    const project = await h.createProject();
    const user = await createUser(project, {});
    expect(user).toMatchObject({
      primary_email: null,
      primary_email_verified: false,
      auth_with_email: false,
      has_password: false,
      display_name: null,
      client_metadata: null,
      server_metadata: null,
    });
    const read = await h.get(`/users/${user.id}`, project.server());
    expect(read.status).toBe(200);
    expect(read.body.id).toBe(user.id);
  });

  it('checks the password length and accepts an imported bcrypt hash, upgraded on first sign-in', async () => {
    const project = await h.createProject();
    const short = await h.post('/users', { primary_email: h.uniqueEmail(), password: 'short' }, project.server());
    expectKnownError(short, 400, 'PASSWORD_TOO_SHORT');
    expect(short.body.details).toEqual({ min_length: 8 });
    const long = await h.post('/users', { primary_email: h.uniqueEmail(), password: 'x'.repeat(71) }, project.server());
    expectKnownError(long, 400, 'PASSWORD_TOO_LONG');
    expect(long.body.details).toEqual({ max_length: 70 });
    expectKnownError(await h.post('/users', { primary_email: h.uniqueEmail(), password_hash: 'plaintext-not-a-hash' }, project.server()), 400, 'SCHEMA_ERROR');
    expect((await h.get('/users', project.server())).body.items).toEqual([]);

    const email = h.uniqueEmail('imported');
    const imported = await createUser(project, { primary_email: email, password_hash: bcrypt.hashSync('imported-password', 4) });
    expect(imported.has_password).toBe(true);
    const signIn = await h.post('/auth/password/sign-in', { email, password: 'imported-password' }, project.client());
    expect(signIn.status).toBe(200);
    const tenancyId = await tenancyIdOf(project.id);
    const row = await h.latch.deps.db
      .selectFrom('users')
      .select('password_hash')
      .where('tenancy_id', '=', tenancyId)
      .where('id', '=', imported.id)
      .executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
    expect((await h.post('/auth/password/sign-in', { email, password: 'imported-password' }, project.client())).status).toBe(200);
  });

  it('refuses a second user with the same auth email (any case) with 409 USER_EMAIL_ALREADY_EXISTS', async () => {
    const project = await h.createProject();
    const email = h.uniqueEmail('dup');
    const first = await createUser(project, { primary_email: email });
    const again = await h.post('/users', { primary_email: email, display_name: 'second' }, project.server());
    expectKnownError(again, 409, 'USER_EMAIL_ALREADY_EXISTS');
    const upper = await h.post('/users', { primary_email: email.toUpperCase() }, project.server());
    expectKnownError(upper, 409, 'USER_EMAIL_ALREADY_EXISTS');
    // Nothing half-created: the list has only the first user.
    const list = await h.get('/users', project.server());
    expect(list.body.items.map((u: any) => u.id)).toEqual([first.id]);
  });

  it('lets exactly one of many concurrent creations with the same verified email win; the rest get 409', async () => {
    const project = await h.createProject();
    const email = h.uniqueEmail('race');
    // Verified: the unique index decides (unverified sign-in addresses are claims that may coexist;
    // the server's 409 for those is a check, not a lock: contact-channels/claims.ts).
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        h.post('/users', { primary_email: i % 2 ? email : email.toUpperCase(), primary_email_verified: true }, project.server()),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const res of results.filter((r) => r.status !== 201)) expectKnownError(res, 409, 'USER_EMAIL_ALREADY_EXISTS');
    expect((await h.get('/users', project.server())).body.items).toHaveLength(1);
  });

  it('allows the same email in two different projects', async () => {
    const [a, b] = await Promise.all([h.createProject(), h.createProject()]);
    const email = h.uniqueEmail('shared');
    await createUser(a, { primary_email: email });
    await createUser(b, { primary_email: email });
  });

  it('is refused to clients with INSUFFICIENT_ACCESS_TYPE', async () => {
    const project = await h.createProject();
    const res = await h.post('/users', { primary_email: h.uniqueEmail() }, project.client());
    expectKnownError(res, 401, 'INSUFFICIENT_ACCESS_TYPE');
  });

  it('rejects a display name over 256 characters and accepts exactly 256', async () => {
    const project = await h.createProject();
    expectSchemaErrorNaming(await h.post('/users', { display_name: 'x'.repeat(257) }, project.server()), 'display_name');
    const ok = await createUser(project, { display_name: 'x'.repeat(256) });
    expect(ok.display_name).toHaveLength(256);
    expectSchemaErrorNaming(await h.patch(`/users/${ok.id}`, { display_name: 'y'.repeat(257) }, project.server()), 'display_name');
    expect((await h.get(`/users/${ok.id}`, project.server())).body.display_name).toBe('x'.repeat(256));
  });

  it('rejects email formats that spec section 5 forbids, on create and on update', async () => {
    const project = await h.createProject();
    const user = await createUser(project, { primary_email: h.uniqueEmail('valid') });
    const bad = {
      'leading dot': '.alice@example.com',
      'consecutive dots': 'al..ice@example.com',
      'one-letter TLD': 'alice@example.c',
      'over 256 characters': emailOfLength(257),
      'no at sign': 'alice.example.com',
      'two at signs': 'alice@bob@example.com',
    };
    for (const [why, email] of Object.entries(bad)) {
      const created = await h.post('/users', { primary_email: email }, project.server());
      expect(created.status, `${why}: ${email}`).toBe(400);
      expectSchemaErrorNaming(created, 'primary_email');
      const updated = await h.patch(`/users/${user.id}`, { primary_email: email }, project.server());
      expectSchemaErrorNaming(updated, 'primary_email');
    }
    expect((await h.get(`/users/${user.id}`, project.server())).body.primary_email).toBe(user.primary_email);
    // The boundary: 256 characters is allowed, as is a two-letter TLD.
    const longest = emailOfLength(256);
    expect(longest).toHaveLength(256);
    expect((await createUser(project, { primary_email: longest })).primary_email).toBe(longest);
    expect((await createUser(project, { primary_email: `ok-${randomBytes(3).toString('hex')}@example.io` })).auth_with_email).toBe(true);
  });

  it('rejects unknown properties in the body', async () => {
    const project = await h.createProject();
    expectUnknownPropertyError(await h.post('/users', { primary_email: h.uniqueEmail(), is_admin: true }, project.server()), 'is_admin');
    expect((await h.get('/users', project.server())).body.items).toEqual([]);
  });
});

describe('user views', () => {
  it('gives clients no server_metadata or last_active_at_millis, and the server both', async () => {
    const project = await h.createProject();
    const session = await h.signUpUser(project);
    const set = await h.patch(
      `/users/${session.userId}`,
      { server_metadata: { secret: 'server-only-value' }, client_read_only_metadata: { tier: 'gold' } },
      project.server(),
    );
    expect(set.status).toBe(200);

    const me = await h.get('/users/me', project.client(session.accessToken));
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(session.userId);
    expect(me.body.primary_email).toBe(session.email);
    expect(me.body.client_read_only_metadata).toEqual({ tier: 'gold' });
    expect(me.body).not.toHaveProperty('server_metadata');
    expect(me.body).not.toHaveProperty('last_active_at_millis');
    expect(JSON.stringify(me.body)).not.toContain('server-only-value');

    // The same for the client's own id instead of `me`.
    const byId = await h.get(`/users/${session.userId}`, project.client(session.accessToken));
    expect(byId.status).toBe(200);
    expect(byId.body).not.toHaveProperty('server_metadata');
    expect(byId.body).not.toHaveProperty('last_active_at_millis');

    const server = await h.get(`/users/${session.userId}`, project.server());
    expect(server.status).toBe(200);
    expect(server.body.server_metadata).toEqual({ secret: 'server-only-value' });
    expect(typeof server.body.last_active_at_millis).toBe('number');

    // Server with a user's access token: /users/me is that user, server view.
    const serverMe = await h.get('/users/me', project.server(session.accessToken));
    expect(serverMe.status).toBe(200);
    expect(serverMe.body.id).toBe(session.userId);
    expect(serverMe.body.server_metadata).toEqual({ secret: 'server-only-value' });
  });

  it('never returns a password hash or TOTP secret, in any response', async () => {
    const project = await h.createProject();
    const totp = randomBytes(20).toString('base64');
    const created = await h.post('/users', { primary_email: h.uniqueEmail(), password: 'hunter2-hunter2', totp_secret_base64: totp }, project.server());
    expect(created.status).toBe(201);
    const userId = created.body.id;
    const tenancyId = await tenancyIdOf(project.id);
    const row = await h.latch.deps.db
      .selectFrom('users')
      .select(['password_hash', 'totp_secret_encrypted'])
      .where('tenancy_id', '=', tenancyId)
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
    expect(row.totp_secret_encrypted).toBeTruthy();
    expect(row.totp_secret_encrypted).not.toContain(totp);

    const signIn = await h.post('/auth/password/sign-in', { email: created.body.primary_email, password: 'hunter2-hunter2' }, project.client());
    // A TOTP user may be asked for the second factor; either way no secret leaks.
    const responses: ApiResponse[] = [created, signIn];
    responses.push(await h.get(`/users/${userId}`, project.server()));
    responses.push(await h.get('/users', project.server()));
    responses.push(await h.get(`/users?query=${userId}`, project.server()));
    responses.push(await h.patch(`/users/${userId}`, { display_name: 'renamed' }, project.server()));
    const session = await h.post('/auth/sessions', { user_id: userId }, project.server());
    expect(session.status).toBe(201);
    responses.push(await h.get('/users/me', project.client(session.body.access_token)));
    responses.push(await h.patch('/users/me', { client_metadata: { a: 1 } }, project.client(session.body.access_token)));
    for (const res of responses) {
      const text = JSON.stringify(res.body);
      expect(text).not.toContain('$argon2');
      expect(text).not.toContain(row.password_hash!);
      expect(text).not.toContain(row.totp_secret_encrypted!);
      expect(text).not.toContain(totp);
      expect(text).not.toContain('hunter2-hunter2');
      expect(text).not.toMatch(/"password(_hash)?"\s*:/);
      expect(text).not.toMatch(/"totp_secret[a-z_0-9]*"\s*:/);
    }
    expect(responses[2]!.body.requires_totp_mfa).toBe(true);
    expect(responses[2]!.body.has_password).toBe(true);
  });
});

describe('PATCH /users/me and /users/{id}', () => {
  it('lets a client change its display_name, client_metadata and profile_image_url', async () => {
    const project = await h.createProject();
    const session = await h.signUpUser(project);
    const image = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    const res = await h.patch(
      '/users/me',
      { display_name: 'New Name', client_metadata: { lang: 'fr', nested: { a: [1, null] } }, profile_image_url: image },
      project.client(session.accessToken),
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: session.userId,
      display_name: 'New Name',
      client_metadata: { lang: 'fr', nested: { a: [1, null] } },
      profile_image_url: image,
    });
    expect(res.body).not.toHaveProperty('server_metadata');
    const read = await h.get(`/users/${session.userId}`, project.server());
    expect(read.body).toMatchObject({ display_name: 'New Name', client_metadata: { lang: 'fr', nested: { a: [1, null] } }, profile_image_url: image });

    // An https URL works too, and null clears each field.
    const url = await h.patch('/users/me', { profile_image_url: 'https://cdn.example.com/a.png' }, project.client(session.accessToken));
    expect(url.body.profile_image_url).toBe('https://cdn.example.com/a.png');
    const cleared = await h.patch('/users/me', { display_name: null, client_metadata: null, profile_image_url: null }, project.client(session.accessToken));
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ display_name: null, client_metadata: null, profile_image_url: null });

    // Not an image URL at all.
    expectSchemaErrorNaming(await h.patch('/users/me', { profile_image_url: 'javascript:alert(1)' }, project.client(session.accessToken)), 'profile_image_url');
  });

  it('accepts a data-URL profile image just under 100KB and refuses one of 100KB (spec: under 100KB; was 1e6 characters of anything)', async () => {
    const project = await h.createProject();
    const session = await h.signUpUser(project);
    const prefix = 'data:image/png;base64,';
    const largest = prefix + Buffer.alloc(100 * 1024 - 1, 1).toString('base64');
    const ok = await h.patch('/users/me', { profile_image_url: largest }, project.client(session.accessToken));
    expect(ok.status).toBe(200);
    expect(ok.body.profile_image_url).toBe(largest);
    expectSchemaErrorNaming(
      await h.patch('/users/me', { profile_image_url: prefix + Buffer.alloc(100 * 1024, 1).toString('base64') }, project.client(session.accessToken)),
      'profile_image_url',
    );
    expectSchemaErrorNaming(
      await h.patch('/users/me', { profile_image_url: prefix + 'A'.repeat(1_000_000 - prefix.length) }, project.client(session.accessToken)),
      'profile_image_url',
    );
  });

  it('refuses server-only fields from a client with a SCHEMA_ERROR naming the field, and changes nothing', async () => {
    const project = await h.createProject();
    const session = await h.signUpUser(project);
    const before = (await h.get(`/users/${session.userId}`, project.server())).body;
    const attempts: [string, unknown][] = [
      ['client_read_only_metadata', { plan: 'enterprise' }],
      ['server_metadata', { is_admin: true }],
      ['primary_email', h.uniqueEmail('takeover')],
      ['primary_email_verified', true],
      ['password', 'a-new-password-123'],
    ];
    for (const [field, value] of attempts) {
      for (const path of ['/users/me', `/users/${session.userId}`]) {
        // Sent along with an allowed field: the whole request must be refused.
        const res = await h.patch(path, { display_name: 'should not stick', [field]: value }, project.client(session.accessToken));
        expectSchemaErrorNaming(res, field);
      }
    }
    const after = (await h.get(`/users/${session.userId}`, project.server())).body;
    expect(after).toEqual({ ...before, last_active_at_millis: after.last_active_at_millis });
    // The old password still works.
    const signIn = await h.post('/auth/password/sign-in', { email: session.email, password: session.password }, project.client());
    expect(signIn.status).toBe(200);
  });

  it('lets the server set client_read_only_metadata, server_metadata and primary_email', async () => {
    const project = await h.createProject();
    const session = await h.signUpUser(project);
    const newEmail = h.uniqueEmail('changed');
    const res = await h.patch(
      `/users/${session.userId}`,
      { client_read_only_metadata: { role: 'editor' }, server_metadata: { internal_id: 42 }, primary_email: newEmail, primary_email_verified: true },
      project.server(),
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      client_read_only_metadata: { role: 'editor' },
      server_metadata: { internal_id: 42 },
      primary_email: newEmail,
      primary_email_verified: true,
    });
    const me = await h.get('/users/me', project.client(session.accessToken));
    expect(me.body).toMatchObject({ client_read_only_metadata: { role: 'editor' }, primary_email: newEmail, primary_email_verified: true });

    // The new email signs in; the old one no longer does.
    expect((await h.post('/auth/password/sign-in', { email: newEmail, password: session.password }, project.client())).status).toBe(200);
    expectKnownError(
      await h.post('/auth/password/sign-in', { email: session.email, password: session.password }, project.client()),
      400,
      'EMAIL_PASSWORD_MISMATCH',
    );

    // The contact channel follows the primary email.
    const tenancyId = await tenancyIdOf(project.id);
    const channels = await h.latch.deps.db
      .selectFrom('contact_channels')
      .select(['value', 'is_primary', 'is_verified'])
      .where('tenancy_id', '=', tenancyId)
      .where('user_id', '=', session.userId)
      .execute();
    expect(channels).toEqual([{ value: newEmail, is_primary: true, is_verified: true }]);
  });

  it('refuses a server PATCH of primary_email to an email another user has, with 409', async () => {
    const project = await h.createProject();
    const alice = await createUser(project, { primary_email: h.uniqueEmail('alice') });
    const bob = await createUser(project, { primary_email: h.uniqueEmail('bob') });
    const res = await h.patch(`/users/${bob.id}`, { primary_email: alice.primary_email, display_name: 'Bob' }, project.server());
    expectKnownError(res, 409, 'USER_EMAIL_ALREADY_EXISTS');
    const upper = await h.patch(`/users/${bob.id}`, { primary_email: alice.primary_email.toUpperCase() }, project.server());
    expectKnownError(upper, 409, 'USER_EMAIL_ALREADY_EXISTS');
    const read = await h.get(`/users/${bob.id}`, project.server());
    expect(read.body.primary_email).toBe(bob.primary_email);
    expect(read.body.display_name).toBeNull();
    // Setting a user's own email again is not a conflict.
    expect((await h.patch(`/users/${bob.id}`, { primary_email: bob.primary_email }, project.server())).status).toBe(200);
  });

  it('lets the server set a new password (signing the user out everywhere) and clear the primary email', async () => {
    const project = await h.createProject();
    const session = await h.signUpUser(project);
    const refresh = () => h.post('/auth/sessions/current/refresh', {}, { ...project.client(), 'x-latch-refresh-token': session.refreshToken });
    expect((await refresh()).status).toBe(200);
    expectKnownError(await h.patch(`/users/${session.userId}`, { password: 'short' }, project.server()), 400, 'PASSWORD_TOO_SHORT');
    expect((await refresh()).status).toBe(200);

    const changed = await h.patch(`/users/${session.userId}`, { password: 'brand-new-password' }, project.server());
    expect(changed.status).toBe(200);
    expectKnownError(await refresh(), 401, 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED');
    expectKnownError(
      await h.post('/auth/password/sign-in', { email: session.email, password: session.password }, project.client()),
      400,
      'EMAIL_PASSWORD_MISMATCH',
    );
    expect((await h.post('/auth/password/sign-in', { email: session.email, password: 'brand-new-password' }, project.client())).status).toBe(200);

    const cleared = await h.patch(`/users/${session.userId}`, { primary_email: null }, project.server());
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ primary_email: null, primary_email_verified: false, auth_with_email: false });
    const tenancyId = await tenancyIdOf(project.id);
    expect((await rowCounts(tenancyId, session.userId)).contact_channels).toBe(0);
    // Verification cannot be set without an email.
    expectKnownError(await h.patch(`/users/${session.userId}`, { primary_email_verified: true }, project.server()), 400, 'SCHEMA_ERROR');
    // The email is free for someone else now.
    await createUser(project, { primary_email: session.email });
  });

  it('turns requires_totp_mfa on with totp_secret_base64 and off with null', async () => {
    const project = await h.createProject();
    const session = await h.signUpUser(project);
    const secret = randomBytes(20).toString('base64');
    const on = await h.patch('/users/me', { totp_secret_base64: secret }, project.client(session.accessToken));
    expect(on.status).toBe(200);
    expect(on.body.requires_totp_mfa).toBe(true);
    expect(JSON.stringify(on.body)).not.toContain(secret);
    expect((await h.get(`/users/${session.userId}`, project.server())).body.requires_totp_mfa).toBe(true);
    const off = await h.patch('/users/me', { totp_secret_base64: null }, project.client(session.accessToken));
    expect(off.body.requires_totp_mfa).toBe(false);
    const tenancyId = await tenancyIdOf(project.id);
    const row = await h.latch.deps.db
      .selectFrom('users')
      .select(['totp_secret_encrypted', 'requires_totp_mfa'])
      .where('tenancy_id', '=', tenancyId)
      .where('id', '=', session.userId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ totp_secret_encrypted: null, requires_totp_mfa: false });
    // The server can do the same.
    expect((await h.patch(`/users/${session.userId}`, { totp_secret_base64: secret }, project.server())).body.requires_totp_mfa).toBe(true);
    expect((await h.patch(`/users/${session.userId}`, { totp_secret_base64: null }, project.server())).body.requires_totp_mfa).toBe(false);
    expectSchemaErrorNaming(await h.patch('/users/me', { totp_secret_base64: 'not base64!' }, project.client(session.accessToken)), 'totp_secret_base64');
  });

  it('refuses unknown properties', async () => {
    const project = await h.createProject();
    const session = await h.signUpUser(project);
    expectUnknownPropertyError(await h.patch('/users/me', { display_name: 'x', is_admin: true }, project.client(session.accessToken)), 'is_admin');
    expect((await h.get('/users/me', project.client(session.accessToken))).body.display_name).toBeNull();
  });
});

describe('user ids and `me`', () => {
  it('answers /users/me without an access token with CANNOT_GET_OWN_USER_WITHOUT_USER', async () => {
    const project = await h.createProject();
    for (const headers of [project.client(), project.server()]) {
      expectKnownError(await h.get('/users/me', headers), 400, 'CANNOT_GET_OWN_USER_WITHOUT_USER');
      expectKnownError(await h.patch('/users/me', { display_name: 'x' }, headers), 400, 'CANNOT_GET_OWN_USER_WITHOUT_USER');
    }
  });

  it('hides other users from a client: USER_NOT_FOUND and no data', async () => {
    // Client deletion is enabled, so a refused DELETE shows the ownership check, not the flag.
    const project = await h.createProject({ config: { client_user_deletion_enabled: true } });
    const me = await h.signUpUser(project);
    const other = await createUser(project, { primary_email: h.uniqueEmail('other'), display_name: 'Other Person' });
    const get = await h.get(`/users/${other.id}`, project.client(me.accessToken));
    expectKnownError(get, 404, 'USER_NOT_FOUND');
    expect(JSON.stringify(get.body)).not.toContain(other.primary_email);
    expect(JSON.stringify(get.body)).not.toContain('Other Person');
    const patch = await h.patch(`/users/${other.id}`, { display_name: 'hijacked' }, project.client(me.accessToken));
    expectKnownError(patch, 404, 'USER_NOT_FOUND');
    expectKnownError(await h.del(`/users/${other.id}`, project.client(me.accessToken)), 404, 'USER_NOT_FOUND');
    expectKnownError(await h.del('/users/me', project.client()), 400, 'CANNOT_GET_OWN_USER_WITHOUT_USER');
    const read = await h.get(`/users/${other.id}`, project.server());
    expect(read.body.display_name).toBe('Other Person');
  });

  it('rejects non-UUID and UUID v1 ids with a SCHEMA_ERROR naming user_id', async () => {
    const project = await h.createProject();
    for (const id of ['not-a-uuid', UUID_V1, '123', `${UUID_V1.replace('11d1', '41d1')}0`]) {
      expectSchemaErrorNaming(await h.get(`/users/${id}`, project.server()), 'user_id');
      expectSchemaErrorNaming(await h.patch(`/users/${id}`, { display_name: 'x' }, project.server()), 'user_id');
      expectSchemaErrorNaming(await h.del(`/users/${id}`, project.server()), 'user_id');
    }
  });

  it('answers an unknown v4 id with 404 USER_NOT_FOUND for the server', async () => {
    const project = await h.createProject();
    const unknown = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
    expectKnownError(await h.get(`/users/${unknown}`, project.server()), 404, 'USER_NOT_FOUND');
    expectKnownError(await h.patch(`/users/${unknown}`, { display_name: 'x' }, project.server()), 404, 'USER_NOT_FOUND');
    expectKnownError(await h.del(`/users/${unknown}`, project.server()), 404, 'USER_NOT_FOUND');
  });

  it('does not let a project read a user of another project', async () => {
    const [a, b] = await Promise.all([h.createProject(), h.createProject()]);
    const user = await createUser(a, { primary_email: h.uniqueEmail() });
    expectKnownError(await h.get(`/users/${user.id}`, b.server()), 404, 'USER_NOT_FOUND');
    expectKnownError(await h.patch(`/users/${user.id}`, { display_name: 'x' }, b.server()), 404, 'USER_NOT_FOUND');
    expectKnownError(await h.del(`/users/${user.id}`, b.server()), 404, 'USER_NOT_FOUND');
    expect((await h.get(`/users/${user.id}`, a.server())).status).toBe(200);
  });
});

describe('DELETE /users', () => {
  it('refuses client self-deletion unless client_user_deletion_enabled, then deletes and kills the refresh token', async () => {
    const project = await h.createProject();
    const session = await h.signUpUser(project);
    const refresh = (headers: Record<string, string | undefined>) =>
      h.post('/auth/sessions/current/refresh', {}, { ...headers, 'x-latch-refresh-token': session.refreshToken });

    const refused = await h.del('/users/me', project.client(session.accessToken));
    expectKnownError(refused, 401, 'INSUFFICIENT_ACCESS_TYPE');
    expect((await h.get(`/users/${session.userId}`, project.server())).status).toBe(200);
    expect((await refresh(project.client())).status).toBe(200);

    const enable = await h.patch('/internal/projects/current', { config: { client_user_deletion_enabled: true } }, project.admin());
    expect(enable.status).toBe(200);
    expect(enable.body.config.client_user_deletion_enabled).toBe(true);

    const deleted = await h.del('/users/me', project.client(session.accessToken));
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true });
    expectKnownError(await h.get(`/users/${session.userId}`, project.server()), 404, 'USER_NOT_FOUND');
    expectKnownError(await refresh(project.client()), 401, 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED');
    expect((await h.get('/users/me', project.client(session.accessToken))).status).toBe(401);
    expectKnownError(
      await h.post('/auth/password/sign-in', { email: session.email, password: session.password }, project.client()),
      400,
      'EMAIL_PASSWORD_MISMATCH',
    );
    // The email is free again.
    await createUser(project, { primary_email: session.email });
  });

  it('lets the server delete a user with their sessions, contact channels and memberships', async () => {
    const project = await h.createProject({ config: { create_team_on_sign_up: true } });
    const session = await h.signUpUser(project);
    const other = await h.signUpUser(project);
    const second = await h.post('/auth/password/sign-in', { email: session.email, password: session.password }, project.client());
    expect(second.status).toBe(200);
    const tenancyId = await tenancyIdOf(project.id);
    expect(await rowCounts(tenancyId, session.userId)).toEqual({ users: 1, sessions: 2, contact_channels: 1, team_members: 1 });

    const res = await h.del(`/users/${session.userId}`, project.server());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(await rowCounts(tenancyId, session.userId)).toEqual({ users: 0, sessions: 0, contact_channels: 0, team_members: 0 });
    expectKnownError(await h.get(`/users/${session.userId}`, project.server()), 404, 'USER_NOT_FOUND');
    expectKnownError(await h.del(`/users/${session.userId}`, project.server()), 404, 'USER_NOT_FOUND');
    // Other users are untouched.
    expect(await rowCounts(tenancyId, other.userId)).toEqual({ users: 1, sessions: 1, contact_channels: 1, team_members: 1 });
  });
});

describe('GET /users (server list)', () => {
  async function createMany(project: ProjectFixture, count: number, prefix = 'list'): Promise<any[]> {
    const users: any[] = [];
    // Sequential, so signed_up_at is non-decreasing in creation order.
    for (let i = 0; i < count; i++) users.push(await createUser(project, { primary_email: h.uniqueEmail(`${prefix}${i}`), display_name: `${prefix} ${i}` }));
    return users;
  }

  function sortedIds(users: any[], desc = false): string[] {
    const sorted = [...users].sort((a, b) => a.signed_up_at_millis - b.signed_up_at_millis || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    if (desc) sorted.reverse();
    return sorted.map((u) => u.id);
  }

  async function allPages(project: ProjectFixture, query: string): Promise<{ pages: any[][]; ids: string[] }> {
    const pages: any[][] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 100; i++) {
      const res: ApiResponse = await h.get(`/users?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, project.server());
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.is_paginated).toBe(true);
      pages.push(res.body.items);
      cursor = res.body.pagination.next_cursor;
      if (cursor === null) break;
    }
    return { pages, ids: pages.flat().map((u) => u.id) };
  }

  it('pages through every user exactly once, signed_up_at ascending, desc=true reversed', async () => {
    const project = await h.createProject();
    const users = await createMany(project, 25);
    const asc = await allPages(project, 'limit=10');
    expect(asc.pages.map((p) => p.length)).toEqual([10, 10, 5]);
    expect(new Set(asc.ids).size).toBe(25);
    expect(asc.ids).toEqual(sortedIds(users));
    const millis = asc.pages.flat().map((u) => u.signed_up_at_millis);
    expect(millis).toEqual([...millis].sort((a, b) => a - b));
    // Items are full server views.
    expect(asc.pages[0]![0]).toHaveProperty('server_metadata');
    expect(asc.pages[0]![0]).toHaveProperty('last_active_at_millis');

    const desc = await allPages(project, 'limit=10&desc=true');
    expect(desc.pages.map((p) => p.length)).toEqual([10, 10, 5]);
    expect(desc.ids).toEqual([...asc.ids].reverse());

    // When the last page is exactly full, next_cursor is null on it (no empty page after).
    const fives = await allPages(project, 'limit=5');
    expect(fives.pages.map((p) => p.length)).toEqual([5, 5, 5, 5, 5]);
    expect(fives.ids).toEqual(asc.ids);

    // Without a limit, everything fits in one page.
    const all = await h.get('/users', project.server());
    expect(all.body.items.map((u: any) => u.id)).toEqual(asc.ids);
    expect(all.body.pagination.next_cursor).toBeNull();
    const max = await h.get('/users?limit=1000', project.server());
    expect(max.status).toBe(200);
    expect(max.body.items).toHaveLength(25);
  });

  it('treats desc=false as false (query string booleans are parsed, not truthy strings)', async () => {
    const project = await h.createProject();
    const users = await createMany(project, 4);
    const expected = sortedIds(users);
    const asc = await h.get('/users?desc=false', project.server());
    expect(asc.status).toBe(200);
    expect(asc.body.items.map((u: any) => u.id)).toEqual(expected);
    const desc = await h.get('/users?desc=true', project.server());
    expect(desc.body.items.map((u: any) => u.id)).toEqual([...expected].reverse());
    expectSchemaErrorNaming(await h.get('/users?desc=yes', project.server()), 'desc');
    expect((await h.get('/users?order_by=signed_up_at&desc=false', project.server())).body.items.map((u: any) => u.id)).toEqual(expected);
    expectSchemaErrorNaming(await h.get('/users?order_by=primary_email', project.server()), 'order_by');
  });

  it('keeps the cursor stable when users are inserted or the cursor user is deleted between pages', async () => {
    const project = await h.createProject();
    const users = await createMany(project, 25);
    const first = await h.get('/users?limit=10', project.server());
    expect(first.body.items).toHaveLength(10);
    const firstIds: string[] = first.body.items.map((u: any) => u.id);

    // Insert three users and delete the user the cursor points at.
    const added = await createMany(project, 3, 'late');
    const cursorUser = firstIds[9]!;
    expect((await h.del(`/users/${cursorUser}`, project.server())).status).toBe(200);

    let cursor: string | null = first.body.pagination.next_cursor;
    const rest: string[] = [];
    while (cursor) {
      const page: ApiResponse = await h.get(`/users?limit=10&cursor=${encodeURIComponent(cursor)}`, project.server());
      expect(page.status).toBe(200);
      rest.push(...page.body.items.map((u: any) => u.id));
      cursor = page.body.pagination.next_cursor;
    }
    const seen = [...firstIds, ...rest];
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.slice(0, 25)).toEqual(sortedIds(users));
    expect(new Set(seen.slice(25))).toEqual(new Set(added.map((u) => u.id)));
  });

  it('rejects a garbage cursor and limits outside 1..1000 with SCHEMA_ERROR', async () => {
    const project = await h.createProject();
    await createUser(project, {});
    const id = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
    const garbage = [
      'garbage',
      'bm90LWEtY3Vyc29y',
      ...['abc:not-an-id', `12:${'z'.repeat(36)}`, `12:${'-'.repeat(36)}`, `12:${'a'.repeat(36)}`, `9007199254740991:${id}`, `:${id}`, `12:${id}:extra`].map(
        (raw) => Buffer.from(raw).toString('base64url'),
      ),
    ];
    for (const cursor of garbage) {
      const res = await h.get(`/users?cursor=${encodeURIComponent(cursor)}`, project.server());
      expect(res.status, `${Buffer.from(cursor, 'base64url').toString()}: ${JSON.stringify(res.body)}`).toBe(400);
      expectKnownError(res, 400, 'SCHEMA_ERROR');
      expect(res.body.error).toContain('cursor');
    }
    for (const limit of ['0', '1001', '-1', '2.5', 'ten']) {
      expectSchemaErrorNaming(await h.get(`/users?limit=${limit}`, project.server()), 'limit');
    }
  });

  it('searches by email substring, display_name substring (case-insensitive) and exact id', async () => {
    const project = await h.createProject();
    const alice = await createUser(project, { primary_email: 'Alice.Wonder@Example.com', display_name: 'Alice W' });
    const bob = await createUser(project, { primary_email: 'bob@builder.org', display_name: 'Zebra Crossing' });
    const carol = await createUser(project, { display_name: 'carol' });
    const search = async (query: string) => {
      const res = await h.get(`/users?query=${encodeURIComponent(query)}`, project.server());
      expect(res.status).toBe(200);
      return res.body.items.map((u: any) => u.id).sort();
    };
    expect(await search('alice.wonder')).toEqual([alice.id]);
    expect(await search('EXAMPLE.COM')).toEqual([alice.id]);
    expect(await search('builder')).toEqual([bob.id]);
    expect(await search('zEBRA cross')).toEqual([bob.id]);
    expect(await search('CAROL')).toEqual([carol.id]);
    expect(await search('o')).toEqual([alice.id, bob.id, carol.id].sort());
    expect(await search(carol.id)).toEqual([carol.id]);
    expect(await search(carol.id.toUpperCase())).toEqual([carol.id]);
    expect(await search('nobody-has-this')).toEqual([]);
  });

  it('treats % and _ in the query literally', async () => {
    const project = await h.createProject();
    const percent = await createUser(project, { display_name: '100% real' });
    const underscore = await createUser(project, { display_name: 'snake_case' });
    await createUser(project, { display_name: 'snakeXcase' });
    await createUser(project, { display_name: 'plain' });
    const search = async (query: string) => (await h.get(`/users?query=${encodeURIComponent(query)}`, project.server())).body.items.map((u: any) => u.id);
    expect(await search('%')).toEqual([percent.id]);
    expect(await search('0% r')).toEqual([percent.id]);
    expect(await search('_')).toEqual([underscore.id]);
    expect(await search('snake_case')).toEqual([underscore.id]);
    expect(await search('\\')).toEqual([]);
  });

  it('excludes anonymous users unless include_anonymous=true', async () => {
    const project = await h.createProject();
    const named = await createUser(project, { primary_email: h.uniqueEmail() });
    const anonymous = await createUser(project, { is_anonymous: true });
    expect(anonymous.is_anonymous).toBe(true);
    const signedUp = await h.post('/auth/anonymous/sign-up', {}, project.client());
    expect(signedUp.status).toBe(200);
    const ids = async (query: string) => (await h.get(`/users${query}`, project.server())).body.items.map((u: any) => u.id).sort();
    expect(await ids('')).toEqual([named.id]);
    expect(await ids('?include_anonymous=false')).toEqual([named.id]);
    expect(await ids('?include_anonymous=true')).toEqual([named.id, anonymous.id, signedUp.body.user_id].sort());
  });

  it('is refused to clients with 401 INSUFFICIENT_ACCESS_TYPE', async () => {
    const project = await h.createProject();
    const session = await h.signUpUser(project);
    const res = await h.get('/users', project.client(session.accessToken));
    expectKnownError(res, 401, 'INSUFFICIENT_ACCESS_TYPE');
    expect(res.body).not.toHaveProperty('items');
  });
});
