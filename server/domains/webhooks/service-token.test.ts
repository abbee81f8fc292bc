import { describe, expect, it } from 'vitest';
import { type ProjectFixture, useHarness } from '../../test/harness.js';
import { expectKnownError, expectStatus } from '../../test/team-fixtures.js';

/** POST /webhooks/latch-token: a one-hour JWT good on this project's /internal/webhooks/* only. */
const h = useHarness({ webhooksAllowPrivate: true });

const withToken = (project: ProjectFixture, token: string) => ({
  'x-latch-project-id': project.id,
  'x-latch-access-type': 'admin',
  'x-latch-admin-access-token': token,
});

async function mint(headers: Record<string, string | undefined>): Promise<string> {
  const res = await h.post('/webhooks/latch-token', {}, headers);
  expectStatus(res, 200);
  expect(res.body.scope).toBe('/internal/webhooks/*');
  expect(res.body.expires_at_millis - Date.now()).toBeGreaterThan(3_500_000);
  expect(res.body.expires_at_millis - Date.now()).toBeLessThanOrEqual(3_600_000);
  return res.body.token as string;
}

describe('the webhooks token', () => {
  it("manages the project's webhook endpoints and nothing else", async () => {
    const project = await h.createProject();
    const token = await mint(project.ownerAdmin());
    const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    expect(payload).toMatchObject({ aud: 'latch:webhooks', project_id: project.id, sub: project.owner.userId });
    expect((payload.exp as number) - (payload.iat as number)).toBe(3600);

    const created = await h.post('/internal/webhooks/endpoints', { url: 'http://127.0.0.1:9/hook' }, withToken(project, token));
    expectStatus(created, 201);
    const list = await h.get('/internal/webhooks/endpoints', withToken(project, token));
    expectStatus(list, 200);
    expect(list.body.items.map((e: { id: string }) => e.id)).toEqual([created.body.id]);

    // Outside the webhooks routes: refused, including minting another token (no self-renewal).
    expectKnownError(await h.get('/internal/metrics', withToken(project, token)), 401, 'WEBHOOKS_TOKEN_OUT_OF_SCOPE');
    expectKnownError(await h.get('/internal/workflow-tokens', withToken(project, token)), 401, 'WEBHOOKS_TOKEN_OUT_OF_SCOPE');
    expectKnownError(await h.post('/webhooks/latch-token', {}, withToken(project, token)), 401, 'WEBHOOKS_TOKEN_OUT_OF_SCOPE');
    // Not a user's access token either (its audience is not the project's).
    expectKnownError(await h.get('/users/me', project.client(token)), 401, 'UNPARSABLE_ACCESS_TOKEN');
  });

  it('is refused on another project, whose endpoints it never sees', async () => {
    const a = await h.createProject();
    const b = await h.createProject();
    expectStatus(await h.post('/internal/webhooks/endpoints', { url: 'http://127.0.0.1:9/b' }, b.admin()), 201);
    const token = await mint(a.admin());
    const foreign = await h.get('/internal/webhooks/endpoints', withToken(b, token));
    expectKnownError(foreign, 401, 'INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN');
    expect(foreign.body.items).toBeUndefined();
  });

  it('is minted by admins only', async () => {
    const project = await h.createProject();
    expectKnownError(await h.post('/webhooks/latch-token', {}, project.server()), 401, 'INSUFFICIENT_ACCESS_TYPE');
    expectKnownError(await h.post('/webhooks/latch-token', {}, project.client()), 401, 'INSUFFICIENT_ACCESS_TYPE');
  });
});
