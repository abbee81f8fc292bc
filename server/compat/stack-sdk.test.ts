import { StackClientApp, StackServerApp } from '@stackframe/js';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { type OwnerSession, type ProjectFixture, useHarness } from '../test/harness.js';

/**
 * Stack Auth SDK compatibility (issue 20 item 4): the official `@stackframe/js` SDK, unchanged and
 * pointed at Latch's base URL, runs its flows against a Latch project. It sends x-stack-* headers,
 * reads x-stack-known-error / x-stack-actual-status, refreshes through /auth/oauth/token with
 * oauth4webapi, and reads Stack's response shapes.
 */

const h = useHarness();
let owner: OwnerSession;
beforeAll(async () => {
  owner = await h.signUpOwner();
});

const PASSWORD = 'correct horse battery staple';
/** Where verification links point (the SDK needs one outside a browser); localhost is trusted in development. */
const CALLBACK_URL = 'http://localhost:3000/handler/email-verification';

function clientApp(project: ProjectFixture) {
  return new StackClientApp({
    baseUrl: h.url,
    projectId: project.id,
    publishableClientKey: project.publishableClientKey,
    tokenStore: 'memory',
    noAutomaticPrefetch: true,
  });
}

function serverApp(project: ProjectFixture) {
  return new StackServerApp({
    baseUrl: h.url,
    projectId: project.id,
    publishableClientKey: project.publishableClientKey,
    secretServerKey: project.secretServerKey,
    tokenStore: 'memory',
    noAutomaticPrefetch: true,
  });
}

describe('@stackframe/js against Latch', () => {
  it('signs up, reads and updates the user, and signs out', async () => {
    const project = await h.createProject({ owner });
    const app = clientApp(project);
    const email = h.uniqueEmail('stack');
    const signUp = await app.signUpWithCredential({ email, password: PASSWORD, noRedirect: true, verificationCallbackUrl: CALLBACK_URL });
    expect(signUp.status).toBe('ok');

    const user = await app.getUser({ or: 'throw' });
    expect(user.primaryEmail).toBe(email);
    expect(user.hasPassword).toBe(true);
    expect(user.signedUpAt).toBeInstanceOf(Date);
    expect(Math.abs(user.signedUpAt.getTime() - Date.now())).toBeLessThan(600_000);

    // The token carries the claims Stack's SDKs validate.
    const tokens = await user.currentSession.getTokens();
    expect(decodeJwt(tokens.accessToken!)).toMatchObject({
      sub: user.id,
      project_id: project.id,
      is_anonymous: false,
      is_restricted: false,
      restricted_reason: null,
      requires_totp_mfa: false,
      signed_up_at: expect.any(Number),
    });

    await user.update({ displayName: 'Grace Hopper', clientMetadata: { theme: 'dark' } });
    const updated = await app.getUser({ or: 'throw' });
    expect(updated.displayName).toBe('Grace Hopper');
    expect(updated.clientMetadata).toEqual({ theme: 'dark' });

    await updated.signOut({ redirectUrl: 'about:blank' }).catch(() => undefined);
    expect(await app.getUser()).toBeNull();
    // The session is really gone on the server: its refresh token no longer refreshes.
    const refresh = await h.post('/auth/sessions/current/refresh', {}, { ...project.client(), 'x-latch-refresh-token': tokens.refreshToken! });
    expect(refresh.body.code).toBe('REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED');
  });
});
