import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OAuthAccountMergeStrategy, OAuthProviderId } from '../../../contract/config/oauth.js';
import type { Harness, ProjectFixture } from '../../test/harness.js';
import { redeem, runFlow, signInWith, startZooHarness, stopZooHarness, zooProvider } from '../../test/oauth-driver.js';
import type { Zoo } from '../../test/oauth-zoo.js';

let zoo: Zoo;
let h: Harness;
const projects = {} as Record<OAuthAccountMergeStrategy, ProjectFixture>;
let counter = 0;

const providerConfig = (id: OAuthProviderId, extra: Record<string, unknown> = {}) => zooProvider(zoo, id, extra);

beforeAll(async () => {
  ({ zoo, h } = await startZooHarness());
  for (const strategy of ['link_method', 'raise_error', 'allow_duplicates'] as const)
    projects[strategy] = await h.createProject({
      config: {
        allow_localhost: true,
        anonymous_enabled: true,
        oauth_account_merge_strategy: strategy,
        oauth_providers: [providerConfig('discord'), providerConfig('gitlab')],
      },
    });
}, 60_000);
afterAll(() => stopZooHarness({ zoo, h }));

const me = (project: ProjectFixture, token: string) => h.get('/users/me', { ...project.client(token), 'x-latch-allow-anonymous-user': 'true' });

async function existingUser(project: ProjectFixture, email: string, verified: boolean): Promise<string> {
  const res = await h.post(
    '/users',
    { primary_email: email, primary_email_verified: verified, primary_email_auth_enabled: true, password: 'correct horse battery' },
    project.server(),
  );
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

describe('the merge matrix (authenticate)', () => {
  it('follows oauth_account_merge_strategy, never links on an unverified address, signs up without an address', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<OAuthAccountMergeStrategy>('link_method', 'raise_error', 'allow_duplicates'),
        fc.constantFrom<'none' | 'verified' | 'unverified'>('none', 'verified', 'unverified'),
        fc.boolean(),
        fc.boolean(),
        async (strategy, existing, providerHasEmail, providerVouches) => {
          const project = projects[strategy];
          const email = h.uniqueEmail('merge');
          const existingId = existing === 'none' ? null : await existingUser(project, email, existing === 'verified');
          zoo.setUser('discord', { id: `m-${Date.now()}-${++counter}`, email: providerHasEmail ? email : null, emailVerified: providerVouches, name: 'M' });
          const steps = await runFlow(h, project, 'discord');
          const conflict = providerHasEmail && existingId !== null;
          if (!conflict) {
            expect(steps.code, `${strategy} ${existing} ${providerHasEmail} ${providerVouches}`).toBeTruthy();
            const res = await redeem(h, project, steps);
            expect(res.body.is_new_user).toBe(true);
            const user = (await me(project, res.body.access_token)).body;
            expect(user.primary_email).toBe(providerHasEmail ? email : null);
            // Only an address the provider vouches for becomes a (verified) sign-in address.
            expect(user.auth_with_email).toBe(providerHasEmail && providerVouches);
            expect(user.primary_email_verified).toBe(providerHasEmail && providerVouches);
            return;
          }
          if (strategy === 'allow_duplicates') {
            const res = await redeem(h, project, steps);
            expect(res.body.is_new_user).toBe(true);
            expect(res.body.user_id).not.toBe(existingId);
            const user = (await me(project, res.body.access_token)).body;
            expect(user.auth_with_email).toBe(false);
            return;
          }
          if (strategy === 'link_method' && existing === 'verified' && providerVouches) {
            expect(steps.code).toBeTruthy();
            const res = await redeem(h, project, steps);
            expect(res.body).toMatchObject({ user_id: existingId, is_new_user: false });
            return;
          }
          expect(steps.code).toBeUndefined();
          expect(steps.callback!.status).toBe(409);
          expect(steps.callback!.headers.get('x-latch-known-error')).toBe('CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE');
        },
      ),
      { numRuns: 24 },
    );
  }, 240_000);
});

describe('linking, upgrading, sign-up rules', () => {
  it('links with a token; refuses an account that signs in to another user, and a second account of the same provider', async () => {
    const project = projects.link_method;
    const alice = await h.signUpUser(project);
    const bob = await h.signUpUser(project);
    zoo.setUser('gitlab', { id: `l-${Date.now()}-1`, email: h.uniqueEmail('other-address') });
    const steps = await runFlow(h, project, 'gitlab', { type: 'link', token: alice.accessToken });
    expect(steps.code).toBeTruthy();
    // The callback says where its time went (waiting on the provider vs Latch's own work).
    expect(steps.callback!.headers.get('server-timing')).toMatch(/^provider;dur=\d+\.\d, latch;dur=\d+\.\d$/);
    const user = (await me(project, alice.accessToken)).body;
    expect(user.oauth_providers).toEqual([{ id: 'gitlab', type: 'gitlab', provider_user_id: expect.any(String) }]);
    // Alice's address did not change: linking touches no addresses.
    expect(user.primary_email).toBe(alice.email);

    const taken = await runFlow(h, project, 'gitlab', { type: 'link', token: bob.accessToken });
    expect(taken.callback!.headers.get('x-latch-known-error')).toBe('OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER');

    zoo.setUser('gitlab', { id: `l-${Date.now()}-2`, email: null });
    const second = await runFlow(h, project, 'gitlab', { type: 'link', token: alice.accessToken });
    expect(second.callback!.headers.get('x-latch-known-error')).toBe('USER_ALREADY_CONNECTED_TO_ANOTHER_OAUTH_CONNECTION');

    // The session that started the link was signed out while the user was at the provider.
    zoo.setUser('gitlab', { id: `l-${Date.now()}-3`, email: null });
    const carol = await h.signUpUser(project);
    const signedOut = await runFlow(h, project, 'gitlab', {
      type: 'link',
      token: carol.accessToken,
      beforeCallback: async () => {
        expect((await h.del('/auth/sessions/current', project.client(carol.accessToken))).status).toBe(200);
      },
    });
    expect(signedOut.callback!.headers.get('x-latch-known-error')).toBe('USER_AUTHENTICATION_REQUIRED');
    expect(signedOut.code).toBeUndefined();

    // A link needs a token.
    const noToken = await runFlow(h, project, 'gitlab', { type: 'link' });
    expect(noToken.authorize.headers.get('x-latch-known-error')).toBe('SCHEMA_ERROR');
  });

  it('upgrades an anonymous user in place', async () => {
    const project = projects.link_method;
    const anon = await h.post('/auth/anonymous/sign-up', {}, project.client());
    expect(anon.status).toBe(200);
    const email = h.uniqueEmail('upgrade');
    zoo.setUser('discord', { id: `a-${Date.now()}`, email, emailVerified: true, name: 'Anon' });
    const result = await signInWith(h, project, 'discord', { token: anon.body.access_token });
    expect(result.user_id).toBe(anon.body.user_id);
    expect(result.is_new_user).toBe(true);
    const user = (await me(project, result.access_token)).body;
    expect({ anonymous: user.is_anonymous, email: user.primary_email, verified: user.primary_email_verified }).toEqual({
      anonymous: false,
      email,
      verified: true,
    });
  });

  it('honours sign_up_enabled: no new user through OAuth, known accounts still sign in', async () => {
    const project = await h.createProject({ config: { allow_localhost: true, oauth_providers: [providerConfig('discord')] } });
    zoo.setUser('discord', { id: `s-${Date.now()}`, email: h.uniqueEmail('su') });
    const first = await signInWith(h, project, 'discord');
    expect((await h.patch('/internal/projects/current', { config: { sign_up_enabled: false } }, project.admin())).status).toBe(200);
    expect((await signInWith(h, project, 'discord')).user_id).toBe(first.user_id);
    zoo.setUser('discord', { id: `s-${Date.now()}-new`, email: h.uniqueEmail('su') });
    const refused = await runFlow(h, project, 'discord');
    expect(refused.callback!.headers.get('x-latch-known-error')).toBe('SIGN_UP_NOT_ENABLED');
  });
});
