import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, type Harness, type ProjectFixture, startHarness } from './harness.js';

/**
 * Storage a client can make the server hold (issue 13, item 10) and metadata that cannot be stored
 * faithfully (item 12's `__proto__`): each refusal is a catalogued error, over REST and tRPC.
 */

let h: Harness;
let project: ProjectFixture;

beforeAll(async () => {
  h = await startHarness();
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
    const server = await h.call(`/users/${user.userId}`, { method: 'PATCH', rawBody: '{"server_metadata": {"x": {"__proto__": {"y": 1}}}}', headers: project.server() });
    expectKnownError(server, 'SCHEMA_ERROR', 400);
    const team = await h.call('/teams', { method: 'POST', rawBody: '{"display_name": "t", "client_metadata": {"__proto__": null}}', headers: project.server() });
    expectKnownError(team, 'SCHEMA_ERROR', 400);
    // Nothing was stored; keys that merely look special are kept as they are.
    const kept = await h.patch('/users/me', { client_metadata: { constructor: { a: 1 }, prototype: 2 } }, project.client(user.accessToken));
    expect(kept.status).toBe(200);
    expect(kept.body.client_metadata).toEqual({ constructor: { a: 1 }, prototype: 2 });
  });

  it('are refused over tRPC too (body and query input)', async () => {
    const user = await h.signUpUser(project);
    const res = await h.call('/api/trpc/users.updateMe', { method: 'POST', rawBody: '{"client_metadata": {"__proto__": {"admin": true}}}', headers: project.client(user.accessToken) });
    expect(res.status).toBe(400);
    expect(trpcError(res)?.code ?? res.body?.code).toBe('SCHEMA_ERROR');
    const query = await h.call(`/api/trpc/users.getMe?input=${encodeURIComponent('{"__proto__": {}}')}`, { headers: project.client(user.accessToken) });
    expect(query.status).toBe(400);
    expect(trpcError(query)?.code ?? query.body?.code).toBe('SCHEMA_ERROR');
    const me = await h.get('/users/me', project.client(user.accessToken));
    expect(me.body.client_metadata).toBeNull();
  });
});
