import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OAuthProviderId } from '../../contract/config/oauth.js';
import type { Harness, ProjectFixture } from './harness.js';
import { redeem, runFlow, signInWith, startZooHarness, stopZooHarness, zooProvider } from './oauth-driver.js';
import type { Zoo } from './oauth-zoo.js';

/** OAuth security (issue 15, Tests): state tampering, the flow timeout, dead tokens, nothing secret in logs. */
let zoo: Zoo;
let h: Harness;
const logged: string[] = [];

const providerConfig = (id: OAuthProviderId, extra: Record<string, unknown> = {}) => zooProvider(zoo, id, extra);

beforeAll(async () => {
  ({ zoo, h } = await startZooHarness());
  // Every log call, whatever the level filter lets through.
  const log = h.latch.deps.log;
  for (const level of ['info', 'warn', 'error'] as const) {
    const original = log[level].bind(log);
    log[level] = (message, extra) => {
      logged.push(`${message} ${JSON.stringify(extra ?? {})}`);
      original(message, extra);
    };
  }
}, 60_000);
afterAll(() => stopZooHarness({ zoo, h }));

async function project(): Promise<ProjectFixture> {
  return h.createProject({ config: { allow_localhost: true, oauth_providers: [providerConfig('github'), providerConfig('discord')] } });
}

describe('OAuth security', () => {
  it('a tampered or unknown state, or a callback for another provider, is refused', async () => {
    const p = await project();
    zoo.setUser('github', { id: `${Date.now()}11`, email: h.uniqueEmail('sec') });
    const steps = await runFlow(h, p, 'github', { dropCookie: false });
    expect(steps.code).toBeTruthy();
    // The same callback with the state changed by one character.
    const url = new URL(steps.callbackUrl!);
    url.searchParams.set('state', `${url.searchParams.get('state')}x`);
    const tampered = await fetch(url, { redirect: 'manual', headers: { cookie: steps.cookie } });
    expect({ status: tampered.status, code: tampered.headers.get('x-latch-known-error') }).toEqual({ status: 400, code: 'INVALID_AUTHORIZATION_CODE' });
    const missing = await fetch(`${h.url}/api/v1/auth/oauth/callback/github?code=abc`, { redirect: 'manual' });
    expect(missing.headers.get('x-latch-known-error')).toBe('INVALID_AUTHORIZATION_CODE');
    // A callback for another provider than the flow's is refused too.
    const other = new URL(steps.callbackUrl!.replace('/callback/github', '/callback/discord'));
    expect((await fetch(other, { redirect: 'manual', headers: { cookie: steps.cookie } })).headers.get('x-latch-known-error')).toBe(
      'INVALID_AUTHORIZATION_CODE',
    );
  });

  it('past 3600 s the callback answers OUTER_OAUTH_TIMEOUT (408)', async () => {
    const p = await project();
    zoo.setUser('github', { id: `${Date.now()}12`, email: h.uniqueEmail('sec') });
    const { callbackUrl } = await runFlowUntilProvider(p);
    // The flow's time is up (moved in the database: the rule is about the stored expiry, not the clock).
    await h.latch.deps.db
      .updateTable('oauth_flows')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('consumed_at', 'is', null)
      .execute();
    const again = await fetch(callbackUrl, { redirect: 'manual', headers: { cookie: lastCookie } });
    expect({ status: again.status, code: again.headers.get('x-latch-known-error') }).toEqual({ status: 408, code: 'OUTER_OAUTH_TIMEOUT' });
  });

  it('a signed-out token cannot link', async () => {
    const p = await project();
    const user = await h.signUpUser(p);
    expect((await h.del('/auth/sessions/current', p.client(user.accessToken))).status).toBe(200);
    const steps = await runFlow(h, p, 'github', { type: 'link', token: user.accessToken });
    expect(steps.authorize.headers.get('x-latch-known-error')).toBe('ACCESS_TOKEN_EXPIRED');
  });

  it('provider tokens, codes and Latch tokens never reach the logs, even when things fail', async () => {
    const p = await project();
    zoo.setUser('discord', { id: `lg-${Date.now()}`, email: h.uniqueEmail('log') });
    const session = await signInWith(h, p, 'discord');
    zoo.failNext('discord', 'userinfo_429_always');
    await runFlow(h, p, 'discord');
    zoo.failNext('discord', 'invalid_grant');
    await runFlow(h, p, 'discord');
    const steps = await runFlow(h, p, 'discord');
    await redeem(h, p, { ...steps, codeVerifier: 'w'.repeat(43) });
    const text = logged.join('\n');
    expect(text).not.toMatch(/zoo_at_|zoo_rt_/);
    expect(text).not.toContain(session.refresh_token);
    expect(text).not.toContain(session.access_token);
    expect(text).not.toContain(steps.code!);
    expect(text).not.toContain(zoo.clients.discord!.clientSecret);
  });
});

let lastCookie = '';
/** Starts a flow and lets the provider answer, without calling back. */
async function runFlowUntilProvider(p: ProjectFixture): Promise<{ callbackUrl: string }> {
  const { createHash, randomBytes } = await import('node:crypto');
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(`${h.url}/api/v1/auth/oauth/authorize/github`);
  for (const [k, v] of Object.entries({
    client_id: p.id,
    client_secret: p.publishableClientKey,
    redirect_uri: 'http://localhost:3000/handler/oauth-callback',
    state: 'outer',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    response_type: 'code',
  }))
    url.searchParams.set(k, v);
  const authorize = await fetch(url, { redirect: 'manual' });
  lastCookie = authorize.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const consent = await fetch(authorize.headers.get('location')!, { redirect: 'manual' });
  return { callbackUrl: consent.headers.get('location')! };
}
