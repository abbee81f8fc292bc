import { beforeAll, describe, expect, it } from 'vitest';
import { type OwnerSession, useHarness } from '../test/harness.js';
import { expectKnownError } from '../test/team-fixtures.js';
import { CONSOLE_COOKIE } from './console-session.js';

/** The console's HttpOnly session cookie (issue 13 item 12); the browser side is in admin-web/console.test.ts. */

const h = useHarness();

const CONSOLE = { 'x-latch-console': '1' };

function cookieOf(res: { headers: Headers }): string | null {
  const set = res.headers.get('set-cookie');
  return set ? (/^latch-console-refresh=([^;]*)/.exec(set)?.[1] ?? null) : null;
}

describe('/api/console/session', () => {
  let owner: OwnerSession;
  beforeAll(async () => {
    owner = await h.signUpOwner();
  });

  it('stores a live internal session in an HttpOnly, SameSite=Strict cookie and refreshes from it', async () => {
    const stored = await h.call('/api/console/session', { method: 'POST', body: { refresh_token: owner.refreshToken }, headers: CONSOLE });
    expect(stored.status, JSON.stringify(stored.body)).toBe(200);
    expect(stored.body.access_token).toMatch(/^ey/);
    const setCookie = stored.headers.get('set-cookie')!;
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
    expect(setCookie).toContain('Path=/api/console');
    expect(setCookie).not.toContain('Secure'); // plain http here; https adds it
    expect(cookieOf(stored)).toBe(encodeURIComponent(owner.refreshToken));

    const cookie = `${CONSOLE_COOKIE}=${encodeURIComponent(owner.refreshToken)}`;
    const refreshed = await h.call('/api/console/session/refresh', { method: 'POST', headers: { ...CONSOLE, cookie } });
    expect(refreshed.status).toBe(200);
    expect((await h.get('/users/me', h.internalClient(refreshed.body.access_token))).body.id).toBe(owner.userId);

    const cleared = await h.call('/api/console/session', { method: 'DELETE', headers: { ...CONSOLE, cookie } });
    expect(cleared.status).toBe(200);
    expect(cleared.headers.get('set-cookie')).toMatch(/^latch-console-refresh=; Max-Age=0/);
  });

  it('refuses calls without the console header or from another origin', async () => {
    const cookie = `${CONSOLE_COOKIE}=${encodeURIComponent(owner.refreshToken)}`;
    expectKnownError(await h.call('/api/console/session/refresh', { method: 'POST', headers: { cookie } }), 400, 'SCHEMA_ERROR');
    expectKnownError(
      await h.call('/api/console/session/refresh', { method: 'POST', headers: { ...CONSOLE, cookie, origin: 'https://evil.example' } }),
      400,
      'SCHEMA_ERROR',
    );
    expectKnownError(
      await h.call('/api/console/session', {
        method: 'POST',
        body: { refresh_token: owner.refreshToken },
        headers: { ...CONSOLE, origin: 'https://evil.example' },
      }),
      400,
      'SCHEMA_ERROR',
    );
    // The preflight a cross-origin page would need does not allow the header.
    const preflight = await fetch(`${h.url}/api/console/session/refresh`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-latch-console' },
    });
    expect(preflight.headers.get('access-control-allow-headers') ?? '').not.toContain('x-latch-console');
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('accepts only live internal-project sessions, and forgets a cookie whose session ended', async () => {
    const project = await h.createProject();
    const user = await h.signUpUser(project);
    // A project user's refresh token is not an owner's session.
    expectKnownError(
      await h.call('/api/console/session', { method: 'POST', body: { refresh_token: user.refreshToken }, headers: CONSOLE }),
      401,
      'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED',
    );
    expectKnownError(await h.call('/api/console/session', { method: 'POST', body: {}, headers: CONSOLE }), 400, 'SCHEMA_ERROR');
    expectKnownError(await h.call('/api/console/session/refresh', { method: 'POST', headers: CONSOLE }), 401, 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED');

    const other = await h.signUpOwner();
    expect((await h.del('/auth/sessions/current', h.internalClient(other.accessToken))).status).toBe(200);
    const dead = await h.call('/api/console/session/refresh', {
      method: 'POST',
      headers: { ...CONSOLE, cookie: `${CONSOLE_COOKIE}=${encodeURIComponent(other.refreshToken)}` },
    });
    expectKnownError(dead, 401, 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED');
    expect(dead.headers.get('set-cookie')).toMatch(/^latch-console-refresh=; Max-Age=0/);
    expectKnownError(await h.call('/api/console/nope', { method: 'GET', headers: CONSOLE }), 404, 'NOT_FOUND');
  });
});
