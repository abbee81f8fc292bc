import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OAuthProviderId } from '../../../contract/config/oauth.js';
import type { Harness, ProjectFixture } from '../../test/harness.js';
import { redeem, runFlow, signInWith, startZooHarness, stopZooHarness, zooProvider } from '../../test/oauth-driver.js';
import type { Zoo } from '../../test/oauth-zoo.js';
import { expectKnownError } from '../../test/team-fixtures.js';

let zoo: Zoo;
let h: Harness;
let counter = 0;

const providerConfig = (id: OAuthProviderId, extra: Record<string, unknown> = {}) => zooProvider(zoo, id, extra);

beforeAll(async () => void ({ zoo, h } = await startZooHarness({ sharedGitHub: true })), 60_000);
afterAll(() => stopZooHarness({ zoo, h }));

async function setUp(providers = [providerConfig('gitlab')]) {
  const project = await h.createProject({ config: { allow_localhost: true, oauth_providers: providers } });
  zoo.setUser(providers[0]!.id as OAuthProviderId, { id: `c-${Date.now()}-${++counter}`, email: h.uniqueEmail('conn') });
  const session = await signInWith(h, project, providers[0]!.id, { providerScope: providers[0]!.type === 'standard' ? 'api' : undefined });
  return { project, session };
}

const accessToken = (project: ProjectFixture, token: string, provider: string, scope?: string) =>
  h.post(`/connected-accounts/me/${provider}/access-token`, scope === undefined ? {} : { scope }, project.client(token));

describe('connected accounts', () => {
  it('hands out the stored token with the scopes, refreshes when none is fresh, stores a rotated refresh token', async () => {
    const { project, session } = await setUp();
    const stored = await accessToken(project, session.access_token, 'gitlab', 'read_user api');
    expect(stored.status, JSON.stringify(stored.body)).toBe(200);
    expect(stored.body.access_token).toMatch(/^zoo_at_/);
    expectKnownError(await accessToken(project, session.access_token, 'gitlab', 'read_repository'), 400, 'OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE');
    expectKnownError(await accessToken(project, session.access_token, 'discord'), 400, 'OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED');

    // Age the stored access token so a refresh is needed; refresh tokens rotate.
    await h.latch.deps.db
      .updateTable('oauth_tokens')
      .set({ expires_at: new Date(Date.now() + 60_000) })
      .where('kind', '=', 'access')
      .execute();
    zoo.rotateRefreshTokens = true;
    const refreshed = await accessToken(project, session.access_token, 'gitlab', 'api');
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.access_token).not.toBe(stored.body.access_token);
    const refreshRows = await h.latch.deps.db.selectFrom('oauth_tokens').select(['is_valid', 'token_sealed']).where('kind', '=', 'refresh').execute();
    // The old refresh token is invalid, the rotated one valid; all sealed at rest.
    expect(refreshRows.length).toBeGreaterThanOrEqual(2);
    expect(refreshRows.filter((r) => r.is_valid)).toHaveLength(1);
    for (const row of refreshRows) expect(row.token_sealed).toMatch(/^v1\./);
    // The fresh one is served from the store now.
    expect((await accessToken(project, session.access_token, 'gitlab', 'api')).body.access_token).toBe(refreshed.body.access_token);

    // The user revoked the app at the provider: PROVIDER_REJECTED, and the refresh token is dead.
    await h.latch.deps.db
      .updateTable('oauth_tokens')
      .set({ expires_at: new Date(Date.now() + 60_000) })
      .where('kind', '=', 'access')
      .execute();
    zoo.revokeRefreshTokens();
    expectKnownError(await accessToken(project, session.access_token, 'gitlab', 'api'), 401, 'PROVIDER_REJECTED');
    zoo.rotateRefreshTokens = false;
  });

  it('never hands out tokens minted with shared keys; not connected is its own error', async () => {
    const project = await h.createProject({
      config: { allow_localhost: true, oauth_providers: [{ id: 'github', enabled: true, type: 'shared' }, providerConfig('gitlab')] },
    });
    zoo.setUser('github', { id: `${Date.now()}9`, email: h.uniqueEmail('sh') });
    const session = await signInWith(h, project, 'github');
    expectKnownError(await accessToken(project, session.access_token, 'github'), 400, 'OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS');
    expectKnownError(await accessToken(project, session.access_token, 'gitlab'), 400, 'OAUTH_CONNECTION_NOT_CONNECTED_TO_USER');
  });

  it('provider tokens and secrets never appear in responses or at rest in the clear', async () => {
    const { project, session } = await setUp();
    const issued = zoo.requests
      .filter((r) => r.path === '/gitlab/api/v4/user')
      .at(-1)!
      .headers.authorization!.slice('Bearer '.length);
    const views = [
      await h.get('/users/me', project.client(session.access_token)),
      await h.get(`/users/${session.user_id}`, project.server()),
      await h.get('/users', project.server()),
      await h.get('/oauth-providers', project.client(session.access_token)),
      await h.get(`/oauth-providers?user_id=${session.user_id}`, project.server()),
      await h.get('/internal/projects/current', project.admin()),
    ];
    for (const view of views) {
      const text = JSON.stringify(view.body);
      expect(text).not.toContain(issued);
      expect(text).not.toContain(zoo.clients.gitlab!.clientSecret);
      expect(text).not.toContain('zoo_rt_');
    }
    const rows = await h.latch.deps.db.selectFrom('oauth_tokens').select('token_sealed').execute();
    for (const row of rows) expect(row.token_sealed).not.toContain('zoo_');
  });
});

describe('/oauth-providers', () => {
  it('lists, reads, updates and deletes a user’s provider accounts; allow_sign_in is unique per provider account id', async () => {
    const { project, session } = await setUp();
    const list = await h.get('/oauth-providers', project.client(session.access_token));
    expect(list.status).toBe(200);
    expect(list.body.items).toHaveLength(1);
    const account = list.body.items[0];
    expect(account).toMatchObject({ type: 'gitlab', user_id: session.user_id, allow_sign_in: true, allow_connected_accounts: true });
    expect(account.account_id).toBeUndefined();
    const serverView = await h.get(`/oauth-providers/${session.user_id}/${account.id}`, project.server());
    expect(serverView.body.account_id).toEqual(expect.any(String));

    // The server connects the same provider account to a second user: refused while the first signs in with it.
    const other = await h.signUpUser(project);
    const clash = await h.post(
      '/oauth-providers',
      { user_id: other.userId, provider_config_id: 'gitlab', account_id: serverView.body.account_id },
      project.server(),
    );
    expectKnownError(clash, 400, 'OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN');
    const connectedOnly = await h.post(
      '/oauth-providers',
      { user_id: other.userId, provider_config_id: 'gitlab', account_id: serverView.body.account_id, allow_sign_in: false },
      project.server(),
    );
    expect(connectedOnly.status).toBe(201);
    expectKnownError(
      await h.patch(`/oauth-providers/${other.userId}/${connectedOnly.body.id}`, { allow_sign_in: true }, project.server()),
      400,
      'OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN',
    );
    // Turning sign-in off on the first lets the second take it; the first user's OAuth sign-in then stops.
    expect((await h.patch(`/oauth-providers/me/${account.id}`, { allow_sign_in: false }, project.client(session.access_token))).body.allow_sign_in).toBe(false);
    expect((await h.patch(`/oauth-providers/${other.userId}/${connectedOnly.body.id}`, { allow_sign_in: true }, project.server())).status).toBe(200);
    expect((await signInWith(h, project, 'gitlab')).user_id).toBe(other.userId);

    // Clients see only their own; delete unlinks.
    expect((await h.get(`/oauth-providers/${other.userId}/${connectedOnly.body.id}`, project.client(session.access_token))).status).toBe(404);
    expect((await h.del(`/oauth-providers/me/${account.id}`, project.client(session.access_token))).status).toBe(200);
    expect((await h.get('/users/me', project.client(session.access_token))).body.oauth_providers).toEqual([]);
  });
});

describe('user.oauth_providers', () => {
  it('is filled on every user view: me, by id, lists, and team member profiles (server)', async () => {
    const { project, session } = await setUp();
    const expected = [{ id: 'gitlab', type: 'gitlab', provider_user_id: expect.any(String) }];
    expect((await h.get(`/users/${session.user_id}`, project.server())).body.oauth_providers).toEqual(expected);
    const list = await h.get('/users', project.server());
    expect(list.body.items.find((u: { id: string }) => u.id === session.user_id).oauth_providers).toEqual(expected);
    const team = await h.post('/teams', { display_name: 'T', creator_user_id: session.user_id }, project.server());
    expect(team.status).toBe(201);
    const members = await h.get(`/team-member-profiles?team_id=${team.body.id}`, project.server());
    expect(members.body.items[0].user.oauth_providers).toEqual(expected);
    const one = await h.get(`/team-member-profiles/${team.body.id}/${session.user_id}`, project.server());
    expect(one.body.user.oauth_providers).toEqual(expected);
  });

  it("the signed-in user's copy (users.oauth_providers) follows every write: links made at once, a changed account id, an unlink", async () => {
    const { project, session } = await setUp();
    const me = async () => (await h.get('/users/me', project.client(session.access_token))).body.oauth_providers;
    // What the accounts themselves say (read from oauth_accounts, not from the copy), as the user object shows them.
    const fromAccounts = async () =>
      (await h.get(`/oauth-providers?user_id=${session.user_id}`, project.server())).body.items.map(
        (a: { provider_config_id: string; account_id: string }) => ({ id: a.provider_config_id, type: a.provider_config_id, provider_user_id: a.account_id }),
      );
    const [first] = await me();
    // Accounts linked concurrently for one user: all land in the copy (no write loses another's).
    const links = await Promise.all(
      ['acct-a', 'acct-b', 'acct-c', 'acct-d'].map((account_id) =>
        h.post('/oauth-providers', { user_id: session.user_id, provider_config_id: 'gitlab', account_id, allow_sign_in: false }, project.server()),
      ),
    );
    for (const link of links) expect(link.status, JSON.stringify(link.body)).toBe(201);
    const after = await me();
    expect(after).toHaveLength(5);
    expect(after[0]).toEqual(first);
    expect(
      after
        .map((p: { provider_user_id: string }) => p.provider_user_id)
        .slice(1)
        .sort(),
    ).toEqual(['acct-a', 'acct-b', 'acct-c', 'acct-d']);
    // The copy is ordered as the accounts are (oldest first).
    expect(after).toEqual(await fromAccounts());

    expect((await h.patch(`/oauth-providers/${session.user_id}/${links[0]!.body.id}`, { account_id: 'acct-a2' }, project.server())).status).toBe(200);
    expect((await me()).map((p: { provider_user_id: string }) => p.provider_user_id)).toContain('acct-a2');
    expect(await me()).toEqual(await fromAccounts());

    for (const link of links) expect((await h.del(`/oauth-providers/${session.user_id}/${link.body.id}`, project.server())).status).toBe(200);
    expect(await me()).toEqual([first]);
    const [own] = (await h.get('/oauth-providers?user_id=me', project.client(session.access_token))).body.items;
    expect((await h.del(`/oauth-providers/me/${own.id}`, project.client(session.access_token))).status).toBe(200);
    expect(await me()).toEqual([]);
  });
});

describe('security', () => {
  it('a code is good only for the project that issued it; a flow cookie from another browser is refused', async () => {
    const a = await setUp([providerConfig('discord')]);
    const b = await h.createProject({ config: { allow_localhost: true, oauth_providers: [providerConfig('discord')] } });
    zoo.setUser('discord', { id: `x-${Date.now()}`, email: h.uniqueEmail('sec') });
    const steps = await runFlow(h, a.project, 'discord');
    expectKnownError(await redeem(h, b, steps), 400, 'INVALID_AUTHORIZATION_CODE');
    // Still unused in its own project (the other project's attempt did not touch it).
    expect((await redeem(h, a.project, steps)).status).toBe(200);

    const stolen = await runFlow(h, a.project, 'discord', { dropCookie: true });
    expect(stolen.code).toBeUndefined();
    expect(stolen.callback!.headers.get('x-latch-known-error')).toBe('INVALID_AUTHORIZATION_CODE');
  });

  it('provider accounts are per tenancy: the same provider account in two projects is two users', async () => {
    const providerUser = { id: `t-${Date.now()}`, email: h.uniqueEmail('tenant') };
    const one = await h.createProject({ config: { allow_localhost: true, oauth_providers: [providerConfig('discord')] } });
    const two = await h.createProject({ config: { allow_localhost: true, oauth_providers: [providerConfig('discord')] } });
    zoo.setUser('discord', providerUser);
    const first = await signInWith(h, one, 'discord');
    const second = await signInWith(h, two, 'discord');
    expect(second.is_new_user).toBe(true);
    expect(second.user_id).not.toBe(first.user_id);
    // A token of one project cannot link in the other.
    const cross = await runFlow(h, two, 'discord', { type: 'link', token: first.access_token });
    expect(cross.authorize.headers.get('x-latch-known-error')).toBe('INVALID_PROJECT_FOR_ACCESS_TOKEN');
  });
});
