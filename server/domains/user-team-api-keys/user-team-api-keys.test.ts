import { describe, expect, it } from 'vitest';
import { hashSecret } from '../../crypto/tokens.js';
import { useHarness } from '../../test/harness.js';
import { addMember, expectKnownError, expectStatus, grantTeamPermission, newTeam, newUser } from '../../test/team-fixtures.js';

const h = useHarness();

const ENABLED = { config: { allow_user_api_keys: true, allow_team_api_keys: true } };
const NO_SUCH_KEY = '00000000-0000-4000-8000-000000000000';

describe('user API keys', () => {
  it('shows the full key once, stores only its hash, and lists it by its last four characters', async () => {
    const project = await h.createProject(ENABLED);
    const user = await newUser(h, project);
    const created = await h.post('/user-api-keys', { user_id: 'me', description: 'laptop', expires_at_millis: Date.now() + 3_600_000 }, user.client);
    expectStatus(created, 201);
    const value: string = created.body.value;
    expect(value).toMatch(/^latch_usk_[A-Za-z0-9_-]{44}$/);
    expect(created.body).toEqual({
      id: expect.any(String),
      type: 'user',
      user_id: user.id,
      description: 'laptop',
      is_public: false,
      created_at_millis: expect.any(Number),
      expires_at_millis: expect.any(Number),
      manually_revoked_at_millis: null,
      value,
    });
    const row = await h.latch.deps.db.selectFrom('user_team_api_keys').selectAll().where('id', '=', created.body.id).executeTakeFirstOrThrow();
    expect(row.secret_hash).toBe(hashSecret(value));
    expect(JSON.stringify(row)).not.toContain(value);

    const listed = await h.get('/user-api-keys', user.client);
    expect(listed.body.items).toHaveLength(1);
    expect(listed.body.items[0].value).toEqual({ last_four: value.slice(-4) });
    expect(JSON.stringify(listed.body)).not.toContain(value);
    expect((await h.get(`/user-api-keys/${created.body.id}`, user.client)).body.value).toEqual({ last_four: value.slice(-4) });
    expect((await h.get(`/user-api-keys?user_id=${user.id}`, project.server())).body.items).toHaveLength(1);

    const checked = await h.post('/user-api-keys/check', { api_key: value }, project.server());
    expectStatus(checked, 200);
    expect(checked.body).toMatchObject({ id: created.body.id, type: 'user', user_id: user.id });
  });

  it('answers the check with not found (404), wrong type (400), revoked before expired (401, with reason codes)', async () => {
    const project = await h.createProject(ENABLED);
    const user = await newUser(h, project);
    const team = await newTeam(h, project, user);
    const key = (await h.post('/user-api-keys', { description: 'k' }, user.client)).body;
    const check = (api_key: string, type = 'user') => h.post(`/${type}-api-keys/check`, { api_key }, project.server());

    // A typo is caught by the checksum; a well-formed unknown key is not found either.
    const typo = key.value.slice(0, 20) + (key.value[20] === 'A' ? 'B' : 'A') + key.value.slice(21);
    expectKnownError(await check(typo), 404, 'API_KEY_NOT_FOUND');
    expectKnownError(await check('not-a-key'), 404, 'API_KEY_NOT_FOUND');
    const teamKey = (await h.post('/team-api-keys', { team_id: team.id, description: 't' }, project.server())).body;
    const wrong = await check(teamKey.value, 'user');
    expectKnownError(wrong, 400, 'WRONG_API_KEY_TYPE');
    expect(wrong.body.details).toEqual({ expected_type: 'user', actual_type: 'team' });
    expectKnownError(await check(key.value, 'team'), 400, 'WRONG_API_KEY_TYPE');

    // Expired: reason "expired".
    expectStatus(await h.patch(`/user-api-keys/${key.id}`, { expires_at_millis: Date.now() - 1000 }, user.client), 200);
    const expired = await check(key.value);
    expectKnownError(expired, 401, 'API_KEY_EXPIRED');
    expect(expired.body.details).toEqual({ reason: 'expired' });
    // Revoked and expired: revoked wins.
    expectStatus(await h.patch(`/user-api-keys/${key.id}`, { revoked: true }, user.client), 200);
    const revoked = await check(key.value);
    expectKnownError(revoked, 401, 'API_KEY_REVOKED');
    expect(revoked.body.details).toEqual({ reason: 'manually-revoked' });
    // Un-expiring a revoked key does not bring it back, and neither does revoked: false.
    expectStatus(await h.patch(`/user-api-keys/${key.id}`, { expires_at_millis: null, description: 'renamed' }, user.client), 200);
    expectKnownError(await check(key.value), 401, 'API_KEY_REVOKED');
    expectKnownError(await h.patch(`/user-api-keys/${key.id}`, { revoked: false }, user.client), 400, 'SCHEMA_ERROR');
  });

  it('refuses to revoke a public key, which can still be retired by its expiry', async () => {
    const project = await h.createProject(ENABLED);
    const user = await newUser(h, project);
    const key = (await h.post('/user-api-keys', { description: 'public', is_public: true }, user.client)).body;
    expect(key.value).toMatch(/^latch_upk_/);
    expectKnownError(await h.patch(`/user-api-keys/${key.id}`, { revoked: true }, user.client), 400, 'PUBLIC_API_KEY_CANNOT_BE_REVOKED');
    expectStatus(await h.post('/user-api-keys/check', { api_key: key.value }, project.server()), 200);
    expectStatus(await h.patch(`/user-api-keys/${key.id}`, { expires_at_millis: Date.now() - 1 }, project.server()), 200);
    expectKnownError(await h.post('/user-api-keys/check', { api_key: key.value }, project.server()), 401, 'API_KEY_EXPIRED');
  });

  it('keeps clients to their own keys, and checking to the server', async () => {
    const project = await h.createProject(ENABLED);
    const alice = await newUser(h, project);
    const bob = await newUser(h, project);
    const bobKey = (await h.post('/user-api-keys', { description: 'bob' }, bob.client)).body;
    expectKnownError(await h.post('/user-api-keys', { user_id: bob.id, description: 'sneaky' }, alice.client), 404, 'USER_NOT_FOUND');
    expectKnownError(await h.get(`/user-api-keys?user_id=${bob.id}`, alice.client), 404, 'USER_NOT_FOUND');
    expectKnownError(await h.get(`/user-api-keys/${bobKey.id}`, alice.client), 404, 'API_KEY_NOT_FOUND');
    expectKnownError(await h.patch(`/user-api-keys/${bobKey.id}`, { revoked: true }, alice.client), 404, 'API_KEY_NOT_FOUND');
    expectKnownError(await h.post('/user-api-keys/check', { api_key: bobKey.value }, alice.client), 401, 'INSUFFICIENT_ACCESS_TYPE');
    expect((await h.get('/user-api-keys', alice.client)).body.items).toEqual([]);
    // The server creates keys for any user.
    expectStatus(await h.post('/user-api-keys', { user_id: alice.id, description: 'issued' }, project.server()), 201);
    expectKnownError(await h.post('/user-api-keys', { user_id: NO_SUCH_KEY, description: 'x' }, project.server()), 404, 'USER_NOT_FOUND');
    expectKnownError(await h.get(`/user-api-keys/${NO_SUCH_KEY}`, project.server()), 404, 'API_KEY_NOT_FOUND');
  });

  it('refuses bad input: past expiry, unknown fields, missing description', async () => {
    const project = await h.createProject(ENABLED);
    const user = await newUser(h, project);
    expectKnownError(await h.post('/user-api-keys', { description: 'x', expires_at_millis: Date.now() - 1 }, user.client), 400, 'SCHEMA_ERROR');
    expectKnownError(await h.post('/user-api-keys', { description: 'x', secret: 'mine' }, user.client), 400, 'SCHEMA_ERROR');
    expectKnownError(await h.post('/user-api-keys', {}, user.client), 400, 'SCHEMA_ERROR');
  });

  it('is switched off by allow_user_api_keys / allow_team_api_keys', async () => {
    const project = await h.createProject();
    const user = await newUser(h, project);
    const team = await newTeam(h, project, user);
    const off = await h.post('/user-api-keys', { description: 'x' }, user.client);
    expectKnownError(off, 400, 'API_KEYS_NOT_ENABLED');
    expect(off.body.details).toEqual({ type: 'user' });
    expectKnownError(await h.post('/team-api-keys', { team_id: team.id, description: 'x' }, project.server()), 400, 'API_KEYS_NOT_ENABLED');
    expectKnownError(await h.post('/user-api-keys/check', { api_key: 'latch_usk_x' }, project.server()), 400, 'API_KEYS_NOT_ENABLED');
  });
});

describe('team API keys', () => {
  it('are managed by members holding $manage_api_keys', async () => {
    const project = await h.createProject(ENABLED);
    const admin = await newUser(h, project);
    const member = await newUser(h, project);
    const outsider = await newUser(h, project);
    const team = await newTeam(h, project, admin);
    await addMember(h, project, team.id, member);
    await grantTeamPermission(h, project, team.id, admin.id, '$manage_api_keys');

    const key = await h.post('/team-api-keys', { team_id: team.id, description: 'ci', is_public: false }, admin.client);
    expectStatus(key, 201);
    expect(key.body).toMatchObject({ type: 'team', team_id: team.id, description: 'ci' });
    expect((await h.get(`/team-api-keys?team_id=${team.id}`, admin.client)).body.items.map((k: { id: string }) => k.id)).toEqual([key.body.id]);
    expectStatus(await h.patch(`/team-api-keys/${key.body.id}`, { description: 'ci v2' }, admin.client), 200);

    expectKnownError(await h.post('/team-api-keys', { team_id: team.id, description: 'x' }, member.client), 401, 'TEAM_PERMISSION_REQUIRED');
    expectKnownError(await h.get(`/team-api-keys?team_id=${team.id}`, member.client), 401, 'TEAM_PERMISSION_REQUIRED');
    expectKnownError(await h.get(`/team-api-keys/${key.body.id}`, member.client), 401, 'TEAM_PERMISSION_REQUIRED');
    expectKnownError(await h.patch(`/team-api-keys/${key.body.id}`, { revoked: true }, member.client), 401, 'TEAM_PERMISSION_REQUIRED');
    expectKnownError(await h.post('/team-api-keys', { team_id: team.id, description: 'x' }, outsider.client), 404, 'TEAM_NOT_FOUND');
    expectKnownError(await h.get(`/team-api-keys/${key.body.id}`, outsider.client), 404, 'API_KEY_NOT_FOUND');
    // A team key is not a user key.
    expectKnownError(await h.get(`/user-api-keys/${key.body.id}`, project.server()), 404, 'API_KEY_NOT_FOUND');
    expectStatus(await h.post('/team-api-keys/check', { api_key: key.body.value }, project.server()), 200);
  });
});

describe('tenant isolation', () => {
  it("never lets project B's credentials check, read or revoke project A's keys", async () => {
    const [a, b] = await Promise.all([h.createProject(ENABLED), h.createProject(ENABLED)]);
    const userA = await newUser(h, a);
    const teamA = await newTeam(h, a, userA);
    const userKey = (await h.post('/user-api-keys', { description: 'a' }, userA.client)).body;
    const teamKey = (await h.post('/team-api-keys', { team_id: teamA.id, description: 'a' }, a.server())).body;
    expectKnownError(await h.post('/user-api-keys/check', { api_key: userKey.value }, b.server()), 404, 'API_KEY_NOT_FOUND');
    expectKnownError(await h.post('/team-api-keys/check', { api_key: teamKey.value }, b.server()), 404, 'API_KEY_NOT_FOUND');
    expectKnownError(await h.get(`/user-api-keys/${userKey.id}`, b.server()), 404, 'API_KEY_NOT_FOUND');
    expectKnownError(await h.patch(`/team-api-keys/${teamKey.id}`, { revoked: true }, b.server()), 404, 'API_KEY_NOT_FOUND');
    expectKnownError(await h.get(`/team-api-keys?team_id=${teamA.id}`, b.server()), 404, 'TEAM_NOT_FOUND');
    expectKnownError(await h.get(`/user-api-keys?user_id=${userA.id}`, b.server()), 404, 'USER_NOT_FOUND');
    expectKnownError(await h.post('/team-api-keys', { team_id: teamA.id, description: 'x' }, b.server()), 404, 'TEAM_NOT_FOUND');
    // A's keys still work in A.
    expectStatus(await h.post('/user-api-keys/check', { api_key: userKey.value }, a.server()), 200);
    expectStatus(await h.post('/team-api-keys/check', { api_key: teamKey.value }, a.server()), 200);
  });
});
