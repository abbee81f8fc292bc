import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_QUOTAS } from '../env.js';
import { type ApiResponse, type Harness, type ProjectFixture, startHarness } from './harness.js';

/**
 * Storage a client can make the server hold (issue 13, item 10) and metadata that cannot be stored
 * faithfully (item 12's `__proto__`): each refusal is a catalogued error, over REST and tRPC.
 */

let h: Harness;
let project: ProjectFixture;

const QUOTAS = { ...DEFAULT_QUOTAS, metadataMaxBytes: 2048, sessionsPerUser: 3, apiKeysPerOwner: 3 };

beforeAll(async () => {
  h = await startHarness({ quotas: QUOTAS });
  project = await h.createProject({ config: { create_team_on_sign_up: false } });
});
afterAll(async () => h?.close());

function expectKnownError(res: ApiResponse, code: string, status: number): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers.get('x-latch-known-error')).toBe(code);
}

/** The known error inside a tRPC response: tRPC's envelope carries ours in error.data.latch. */
function trpcError(res: ApiResponse): { code?: string } | undefined {
  return (res.body as { error?: { data?: { latch?: { code?: string } } } })?.error?.data?.latch;
}

describe('"__proto__" keys in metadata', () => {
  it('are refused with SCHEMA_ERROR over REST, at any depth, instead of silently dropped', async () => {
    const user = await h.signUpUser(project);
    for (const body of ['{"client_metadata": {"__proto__": {"admin": true}}}', '{"client_metadata": {"a": [{"b": {"__proto__": 1}}]}}']) {
      const res = await h.call('/users/me', { method: 'PATCH', rawBody: body, headers: project.client(user.accessToken) });
      expectKnownError(res, 'SCHEMA_ERROR', 400);
      expect(res.body.error).toMatch(/__proto__/);
    }
    const server = await h.call(`/users/${user.userId}`, {
      method: 'PATCH',
      rawBody: '{"server_metadata": {"x": {"__proto__": {"y": 1}}}}',
      headers: project.server(),
    });
    expectKnownError(server, 'SCHEMA_ERROR', 400);
    const team = await h.call('/teams', {
      method: 'POST',
      rawBody: '{"display_name": "t", "client_metadata": {"__proto__": null}}',
      headers: project.server(),
    });
    expectKnownError(team, 'SCHEMA_ERROR', 400);
    // Nothing was stored; keys that merely look special are kept as they are.
    const kept = await h.patch('/users/me', { client_metadata: { constructor: { a: 1 }, prototype: 2 } }, project.client(user.accessToken));
    expect(kept.status).toBe(200);
    expect(kept.body.client_metadata).toEqual({ constructor: { a: 1 }, prototype: 2 });
  });

  it('are refused over tRPC too (body and query input)', async () => {
    const user = await h.signUpUser(project);
    const res = await h.call('/api/trpc/users.updateMe', {
      method: 'POST',
      rawBody: '{"client_metadata": {"__proto__": {"admin": true}}}',
      headers: project.client(user.accessToken),
    });
    expect(res.status).toBe(400);
    expect(trpcError(res)?.code ?? res.body?.code).toBe('SCHEMA_ERROR');
    const query = await h.call(`/api/trpc/users.getMe?input=${encodeURIComponent('{"x": {"__proto__": {}}}')}`, { headers: project.client(user.accessToken) });
    expect(query.status).toBe(400);
    expect(trpcError(query)?.code ?? query.body?.code).toBe('SCHEMA_ERROR');
    const me = await h.get('/users/me', project.client(user.accessToken));
    expect(me.body.client_metadata).toBeNull();
  });
});

/** A JSON string value whose stored form takes about `bytes` bytes. */
const blob = (bytes: number) => 'x'.repeat(bytes);
/** A base64 PNG data URL whose decoded image is `bytes` bytes long. */
const dataUrl = (bytes: number) => `data:image/png;base64,${Buffer.alloc(bytes, 7).toString('base64')}`;

describe('metadata size per user and team (LATCH_METADATA_MAX_BYTES, 2048 here)', () => {
  it('refuses a user whose three metadata fields together would exceed the cap, on create and on update', async () => {
    const tooBig = await h.post(
      '/users',
      { primary_email: h.uniqueEmail(), server_metadata: { a: blob(1200) }, client_metadata: { b: blob(1200) } },
      project.server(),
    );
    expectKnownError(tooBig, 'QUOTA_EXCEEDED', 409);
    expect(tooBig.body.details).toEqual({ quota: 'metadata_bytes', limit: 2048 });

    const user = await h.signUpUser(project);
    expect((await h.patch('/users/me', { client_metadata: { b: blob(1200) } }, project.client(user.accessToken))).status).toBe(200);
    // Each field alone fits; with what is stored, the total does not.
    expectKnownError(await h.patch(`/users/${user.userId}`, { server_metadata: { a: blob(1200) } }, project.server()), 'QUOTA_EXCEEDED', 409);
    expectKnownError(await h.patch('/users/me', { client_metadata: { b: blob(2100) } }, project.client(user.accessToken)), 'QUOTA_EXCEEDED', 409);
    // Replacing a field counts its new size, not both: shrinking one makes room for another.
    expect((await h.patch(`/users/${user.userId}`, { client_metadata: null, server_metadata: { a: blob(1500) } }, project.server())).status).toBe(200);
    const stored = await h.get(`/users/${user.userId}`, project.server());
    expect(stored.body.client_metadata).toBeNull();
    expect((stored.body.server_metadata as { a: string }).a).toHaveLength(1500);
  });

  it('refuses a team whose metadata would exceed the cap, on create and on update', async () => {
    expectKnownError(await h.post('/teams', { display_name: 'big', client_read_only_metadata: { a: blob(2100) } }, project.server()), 'QUOTA_EXCEEDED', 409);
    const team = await h.post('/teams', { display_name: 'small', server_metadata: { a: blob(1200) } }, project.server());
    expect(team.status).toBe(201);
    expectKnownError(await h.patch(`/teams/${team.body.id}`, { client_metadata: { b: blob(1200) } }, project.server()), 'QUOTA_EXCEEDED', 409);
    expect((await h.patch(`/teams/${team.body.id}`, { client_metadata: { b: blob(600) } }, project.server())).status).toBe(200);
  });
});

describe('image sizes (spec: profile images under 100KB)', () => {
  it('refuses data-URL images of 100KB or more and overlong http URLs, for users, teams and project logos', async () => {
    const user = await h.signUpUser(project);
    expect((await h.patch('/users/me', { profile_image_url: dataUrl(90 * 1024) }, project.client(user.accessToken))).status).toBe(200);
    for (const url of [dataUrl(100 * 1024), dataUrl(700 * 1024), `https://cdn.example.com/${'a'.repeat(20_000)}.png`]) {
      const res = await h.patch('/users/me', { profile_image_url: url }, project.client(user.accessToken));
      expectKnownError(res, 'SCHEMA_ERROR', 400);
      expect(res.body.error).toMatch(/under 100KB/);
      expectKnownError(await h.post('/teams', { display_name: 't', profile_image_url: url }, project.server()), 'SCHEMA_ERROR', 400);
      expectKnownError(await h.patch('/internal/projects/current', { logo_url: url }, project.admin()), 'SCHEMA_ERROR', 400);
    }
    expect(
      (await h.patch('/users/me', { profile_image_url: `https://cdn.example.com/${'a'.repeat(2000)}.png` }, project.client(user.accessToken))).status,
    ).toBe(200);
  });
});

describe('sessions per user (LATCH_MAX_SESSIONS_PER_USER, 3 here)', () => {
  it('keeps the newest sessions and signs the oldest out', async () => {
    const user = await h.signUpUser(project);
    const signIns = [];
    for (let i = 0; i < 4; i++) {
      const res = await h.post('/auth/password/sign-in', { email: user.email, password: user.password }, project.client());
      expect(res.status).toBe(200);
      signIns.push(res.body as { refresh_token: string });
    }
    const sessions = await h.get(`/auth/sessions?user_id=${user.userId}`, project.server());
    expect(sessions.body.items).toHaveLength(3);
    // The sign-up's session and the first sign-in's are gone; the newest three still refresh.
    const refresh = (token: string) => h.post('/auth/sessions/current/refresh', {}, { ...project.client(), 'x-latch-refresh-token': token });
    expect((await refresh(user.refreshToken)).status).not.toBe(200);
    expect((await refresh(signIns[0]!.refresh_token)).status).not.toBe(200);
    for (const s of signIns.slice(1)) expect((await refresh(s.refresh_token)).status).toBe(200);
  });
});

describe('API keys per user and team (LATCH_MAX_API_KEYS_PER_OWNER, 3 here)', () => {
  it('refuses a key past the cap with QUOTA_EXCEEDED, and counts only keys that still work', async () => {
    const keyed = await h.createProject({ config: { allow_user_api_keys: true, allow_team_api_keys: true } });
    const user = await h.signUpUser(keyed);
    const create = () => h.post('/user-api-keys', { user_id: 'me', description: 'k' }, keyed.client(user.accessToken));
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await create();
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    const refused = await create();
    expectKnownError(refused, 'QUOTA_EXCEEDED', 409);
    expect(refused.body.details).toEqual({ quota: 'api_keys', limit: 3 });
    expect((await h.patch(`/user-api-keys/${ids[0]}`, { revoked: true }, keyed.client(user.accessToken))).status).toBe(200);
    expect((await create()).status).toBe(201);

    const team = await h.post('/teams', { display_name: 'keys' }, keyed.server());
    for (let i = 0; i < 3; i++) expect((await h.post('/team-api-keys', { team_id: team.body.id, description: 'k' }, keyed.server())).status).toBe(201);
    expectKnownError(await h.post('/team-api-keys', { team_id: team.body.id, description: 'k' }, keyed.server()), 'QUOTA_EXCEEDED', 409);
  });
});
