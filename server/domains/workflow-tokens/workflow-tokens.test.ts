import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { type ProjectFixture, useHarness } from '../../test/harness.js';
import { expectKnownError, expectStatus } from '../../test/team-fixtures.js';

/** Workflow tokens through real HTTP: server access for one project, hashed, expiring, revocable. */
const h = useHarness();

const withToken = (project: ProjectFixture, token: string) => ({
  'x-latch-project-id': project.id,
  'x-latch-access-type': 'server',
  'x-latch-workflow-token': token,
});

async function createToken(project: ProjectFixture, body: Record<string, unknown> = {}) {
  const res = await h.post('/internal/workflow-tokens', body, project.admin());
  expectStatus(res, 201);
  return res.body as { id: string; token: string; expires_at_millis: number };
}

describe('workflow tokens', () => {
  it('grant server access to their project, are stored hashed, listed without the token and revoked at once', async () => {
    const project = await h.createProject();
    const user = await h.signUpUser(project);
    const created = await createToken(project, { description: 'nightly sync', expires_in_seconds: 600 });
    expect(created.token).toMatch(/^wft_/);
    expect(created.expires_at_millis - Date.now()).toBeGreaterThan(590_000);

    const read = await h.get(`/users/${user.userId}`, withToken(project, created.token));
    expectStatus(read, 200);
    expect(read.body.id).toBe(user.userId);

    const stored = await sql<{ token_hash: string }>`select token_hash from workflow_tokens where id = ${created.id}`.execute(h.latch.deps.db);
    expect(stored.rows[0]!.token_hash).not.toContain(created.token.slice(4));
    expect(stored.rows[0]!.token_hash).toMatch(/^[0-9a-f]{64}$/);

    const list = await h.get('/internal/workflow-tokens', project.admin());
    expectStatus(list, 200);
    expect(list.body.items).toEqual([expect.objectContaining({ id: created.id, description: 'nightly sync', is_expired: false })]);
    expect(JSON.stringify(list.body)).not.toContain(created.token);

    expectStatus(await h.del(`/internal/workflow-tokens/${created.id}`, project.admin()), 200);
    expectKnownError(await h.get(`/users/${user.userId}`, withToken(project, created.token)), 400, 'WORKFLOW_TOKEN_DOES_NOT_EXIST');
    expectKnownError(await h.del(`/internal/workflow-tokens/${created.id}`, project.admin()), 400, 'WORKFLOW_TOKEN_DOES_NOT_EXIST');
  });

  it('grant nothing at the admin level, and an unknown or expired token fails the request', async () => {
    const project = await h.createProject();
    const created = await createToken(project);
    expectKnownError(await h.get('/internal/workflow-tokens', withToken(project, created.token)), 401, 'INSUFFICIENT_ACCESS_TYPE');
    expectKnownError(await h.get('/users', withToken(project, 'wft_nonsense')), 400, 'WORKFLOW_TOKEN_DOES_NOT_EXIST');
    // Sent beside a valid secret server key, a bad token still fails the request.
    expectKnownError(await h.get('/users', { ...project.server(), 'x-latch-workflow-token': 'wft_nonsense' }), 400, 'WORKFLOW_TOKEN_DOES_NOT_EXIST');
    await sql`update workflow_tokens set expires_at = now() - interval '1 second' where id = ${created.id}`.execute(h.latch.deps.db);
    expectKnownError(await h.get('/users', withToken(project, created.token)), 400, 'WORKFLOW_TOKEN_EXPIRED');
    const list = await h.get('/internal/workflow-tokens', project.admin());
    expect(list.body.items[0].is_expired).toBe(true);
  });

  it('are refused on another project, which can neither list nor revoke them', async () => {
    const a = await h.createProject();
    const b = await h.createProject();
    await h.signUpUser(b);
    const created = await createToken(a);
    expectStatus(await h.get('/users', withToken(a, created.token)), 200);
    const foreign = await h.get('/users', withToken(b, created.token));
    expectKnownError(foreign, 400, 'WORKFLOW_TOKEN_DOES_NOT_EXIST');
    expect(foreign.body.items).toBeUndefined();
    expect((await h.get('/internal/workflow-tokens', b.admin())).body.items).toEqual([]);
    expectKnownError(await h.del(`/internal/workflow-tokens/${created.id}`, b.admin()), 400, 'WORKFLOW_TOKEN_DOES_NOT_EXIST');
    expectStatus(await h.get('/users', withToken(a, created.token)), 200);
  });

  it('refuse a lifetime beyond 30 days and need admin access to create', async () => {
    const project = await h.createProject();
    expectKnownError(await h.post('/internal/workflow-tokens', { expires_in_seconds: 31 * 86_400 }, project.admin()), 400, 'SCHEMA_ERROR');
    expectKnownError(await h.post('/internal/workflow-tokens', {}, project.server()), 401, 'INSUFFICIENT_ACCESS_TYPE');
  });
});
