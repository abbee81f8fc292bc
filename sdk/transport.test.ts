import { createServer } from 'node:net';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ProjectFixture, useHarness } from '../server/test/harness.js';
import { ClientApp } from './client-app.js';
import { KnownErrors, LatchAssertionError, LatchNetworkError, OFFLINE_MESSAGE } from './errors.js';
import { type Fault, latchErrorBody, useProxy } from './test/proxy.js';
import { appRouter } from '../server/router.js';
import { isIdempotentMutation, MAX_RETRIES, parseRetryAfterMs, retryDelayMs } from './transport.js';

const h = useHarness();
const proxy = useProxy(h);
let project: ProjectFixture;
beforeAll(async () => {
  project = await h.createProject();
});
beforeEach(() => {
  proxy.fault = null;
  proxy.hideErrorBodies = false;
});

/** Backoff base 5 ms instead of 1000 ms, so the retry tests take milliseconds. */
function clientApp(baseUrl = proxy.url) {
  return new ClientApp({ projectId: project.id, publishableClientKey: project.publishableClientKey, baseUrl, tokenStore: 'memory', retryBaseDelayMs: 5 });
}

/** Faults only the first `times` calls of `procedure` that come after this call. */
function faultFirst(procedure: string, times: number, fault: Fault) {
  let left = times;
  proxy.fault = (request) => {
    if (request.procedure !== procedure || left === 0) return null;
    left--;
    return fault;
  };
}

/** What clientApp().getProject() rejects with when the server's first answer to it is `fault`. */
function getProjectFailure(fault: Fault): Promise<unknown> {
  faultFirst('projects.current', 1, fault);
  return clientApp()
    .getProject()
    .catch((e: unknown) => e);
}

describe('transport rules (spec section 7), through a flaky proxy in front of the real server', () => {
  it('backoff: 1000 ms × 2^n × random(0.5–1.5); Retry-After as seconds or a date', () => {
    for (let n = 0; n < 5; n++) {
      const delay = retryDelayMs(n);
      expect(delay).toBeGreaterThanOrEqual(1000 * 2 ** n * 0.5);
      expect(delay).toBeLessThanOrEqual(1000 * 2 ** n * 1.5);
    }
    expect(parseRetryAfterMs('2')).toBe(2000);
    expect(parseRetryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(parseRetryAfterMs(null)).toBeNull();
    expect(parseRetryAfterMs('soon')).toBeNull();
  });

  it('429 with Retry-After: waits that long, then retries (even a mutation: it was not processed)', async () => {
    const app = clientApp();
    faultFirst('projects.current', 1, {
      status: 429,
      headers: { 'retry-after': '1', 'x-latch-known-error': 'RATE_LIMITED' },
      body: latchErrorBody('RATE_LIMITED', 'Too many requests.', 429),
    });
    const before = proxy.count('projects.current');
    const started = Date.now();
    expect((await app.getProject()).id).toBe(project.id);
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    expect(proxy.count('projects.current') - before).toBe(2);

    faultFirst('auth.passwordSignUp', 1, {
      status: 429,
      headers: { 'retry-after': '0', 'x-latch-known-error': 'RATE_LIMITED' },
      body: latchErrorBody('RATE_LIMITED', 'Too many requests.', 429),
    });
    const signUp = await app.signUpWithPassword({ email: h.uniqueEmail(), password: 'correct-horse-1' });
    expect(signUp.status).toBe('ok');
    expect(proxy.count('auth.passwordSignUp')).toBe(2);

    // Without Retry-After, a 429 is the RATE_LIMITED known error.
    faultFirst('projects.current', 1, {
      status: 429,
      headers: { 'x-latch-known-error': 'RATE_LIMITED' },
      body: latchErrorBody('RATE_LIMITED', 'Too many requests.', 429),
    });
    await expect(clientApp().getProject()).rejects.toBeInstanceOf(KnownErrors.RateLimited);
  });

  it('a real RATE_LIMITED over tRPC carries Retry-After as on REST; a wait longer than maxRetryAfterMs throws at once', async () => {
    // The 11th wrong password of one address from one IP is refused for the rest of the 900 s window.
    const email = h.uniqueEmail();
    const app = clientApp();
    let refusal: unknown = null;
    for (let attempt = 0; attempt < 12 && refusal === null; attempt++) {
      const started = Date.now();
      // EMAIL_PASSWORD_MISMATCH is a result; RATE_LIMITED is not one of sign-in's results, so it throws.
      const outcome = await app.signInWithPassword({ email, password: 'wrong-password-1' }).catch((error: unknown) => error);
      if (outcome instanceof KnownErrors.RateLimited) {
        refusal = outcome;
        // Not waited out: the window's remaining minutes are far beyond the 10 s default.
        expect(Date.now() - started).toBeLessThan(5000);
      }
    }
    expect(refusal).toBeInstanceOf(KnownErrors.RateLimited);
    expect((refusal as InstanceType<typeof KnownErrors.RateLimited>).details).toMatchObject({ retry_after_seconds: expect.any(Number) });

    const res = await h.call('/api/trpc/auth.passwordSignIn', { method: 'POST', body: { email, password: 'wrong-password-1' }, headers: project.client() });
    expect(res.status).toBe(429);
    expect(res.headers.get('x-latch-known-error')).toBe('RATE_LIMITED');
    const seconds = Number(res.headers.get('retry-after'));
    expect(seconds).toBeGreaterThan(10);
    expect(seconds).toBeLessThanOrEqual(900);
  });

  it('508 INFINITE_LOOP_DETECTED is retried', async () => {
    faultFirst('projects.current', 2, {
      status: 508,
      headers: { 'x-latch-known-error': 'INFINITE_LOOP_DETECTED' },
      body: latchErrorBody('INFINITE_LOOP_DETECTED', 'Loop.', 508),
    });
    const before = proxy.count('projects.current');
    expect((await clientApp().getProject()).id).toBe(project.id);
    expect(proxy.count('projects.current') - before).toBe(3);
  });

  it('network failure: idempotent calls are retried, non-idempotent ones throw at once', async () => {
    faultFirst('projects.current', 2, 'reset');
    let before = proxy.count('projects.current');
    expect((await clientApp().getProject()).id).toBe(project.id);
    expect(proxy.count('projects.current') - before).toBe(3);

    const email = h.uniqueEmail();
    faultFirst('auth.passwordSignUp', 1, 'reset');
    before = proxy.count('auth.passwordSignUp');
    const error = await clientApp()
      .signUpWithPassword({ email, password: 'correct-horse-1' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LatchNetworkError);
    expect((error as LatchNetworkError).offline).toBe(false);
    expect((error as Error).message).toMatch(/Could not reach the Latch server at http:\/\/127\.0\.0\.1:\d+ \(auth\.passwordSignUp/);
    expect(proxy.count('auth.passwordSignUp') - before).toBe(1);

    // An idempotent mutation (sign-out, DELETE on REST) is retried.
    const app = clientApp();
    await app.signUpWithPassword({ email: h.uniqueEmail(), password: 'correct-horse-1' });
    faultFirst('sessions.signOut', 1, 'reset');
    before = proxy.count('sessions.signOut');
    await app.signOut();
    expect(proxy.count('sessions.signOut') - before).toBe(2);

    // Retries stop after 5.
    proxy.fault = (request) => (request.procedure === 'projects.current' ? 'reset' : null);
    before = proxy.count('projects.current');
    await expect(clientApp().getProject()).rejects.toThrow(/after 6 attempts/);
    expect(proxy.count('projects.current') - before).toBe(1 + MAX_RETRIES);
  });

  it("offline: the spec's message, without retrying", async () => {
    // A port nobody listens on.
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    Object.defineProperty(globalThis, 'navigator', { value: { onLine: false }, configurable: true, writable: true });
    try {
      const started = Date.now();
      const error = await clientApp(`http://127.0.0.1:${closed}`)
        .getProject()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LatchNetworkError);
      expect((error as Error).message).toBe(OFFLINE_MESSAGE);
      expect((error as Error).message).toBe('You are offline. Please check your internet connection and try again.');
      expect((error as LatchNetworkError).offline).toBe(true);
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      Reflect.deleteProperty(globalThis, 'navigator');
    }
  });

  it('known-error header must match the body code; unknown codes become UNSUPPORTED_ERROR', async () => {
    const mismatch = await getProjectFailure({
      status: 404,
      headers: { 'x-latch-known-error': 'USER_NOT_FOUND' },
      body: latchErrorBody('PROJECT_NOT_FOUND', 'Nope.', 404),
    });
    expect(mismatch).toBeInstanceOf(LatchAssertionError);
    expect((mismatch as Error).message).toMatch(/USER_NOT_FOUND.*PROJECT_NOT_FOUND/);

    faultFirst('projects.current', 1, { status: 502, headers: { 'content-type': 'text/html' }, body: '<html>Bad gateway</html>' });
    await expect(clientApp().getProject()).rejects.toBeInstanceOf(LatchAssertionError);

    const unknown = await getProjectFailure({
      status: 418,
      headers: { 'x-latch-known-error': 'TEAPOT_FROM_THE_FUTURE' },
      body: latchErrorBody('TEAPOT_FROM_THE_FUTURE', 'I am a teapot.', 418),
    });
    expect(unknown).toBeInstanceOf(KnownErrors.UnsupportedError);
    expect(unknown).toMatchObject({ code: 'UNSUPPORTED_ERROR', status: 500, details: { original_error_code: 'TEAPOT_FROM_THE_FUTURE' } });
  });

  it('maps real server errors to their catalogue classes, with code, status, message and details', async () => {
    const app = clientApp();
    const wrong = new ClientApp({
      projectId: project.id,
      publishableClientKey: project.publishableClientKey,
      baseUrl: h.url,
      tokenStore: { accessToken: 'not-a-jwt' },
    });
    // UNPARSABLE_ACCESS_TOKEN: the token is forgotten and the call retried once, without a session now.
    await expect(wrong.updateUser({ display_name: 'x' })).rejects.toBeInstanceOf(KnownErrors.CannotGetOwnUserWithoutUser);
    expect(await wrong.getAuthTokens()).toEqual({ accessToken: null, refreshToken: null });
    const noProject = new ClientApp({ projectId: 'does-not-exist', baseUrl: h.url, tokenStore: 'memory' });
    const error = await noProject.getProject().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KnownErrors.CurrentProjectNotFound);
    expect(error).toMatchObject({ code: 'CURRENT_PROJECT_NOT_FOUND', status: 400 });
    await expect(app.signInWithPassword({ email: h.uniqueEmail(), password: 'x'.repeat(71) })).resolves.toMatchObject({
      status: 'error',
      error: { code: 'EMAIL_PASSWORD_MISMATCH' },
    });
    // Every call says who it is.
    const last = proxy.requests.at(-1);
    expect(last?.headers).toMatchObject({
      'x-latch-project-id': project.id,
      'x-latch-access-type': 'client',
      'x-latch-client-version': expect.stringMatching(/^latch-sdk@/),
      'x-latch-publishable-client-key': project.publishableClientKey,
    });
    expect(last?.headers['x-latch-random-nonce']).toBeTruthy();
  });
});

describe('overrideErrorStatus, for platforms that hide the body of a non-2xx answer', () => {
  function overriding(options: { projectId?: string } = {}) {
    return new ClientApp({
      projectId: options.projectId ?? project.id,
      publishableClientKey: project.publishableClientKey,
      baseUrl: proxy.url,
      tokenStore: 'memory',
      retryBaseDelayMs: 5,
      overrideErrorStatus: true,
    });
  }

  it('behind such a platform, errors still arrive as their known errors (without the option, only an unreadable answer does)', async () => {
    proxy.hideErrorBodies = true;
    // Without the option: a 400 with its body hidden is all the SDK gets.
    await expect(clientApp().updateUser({ display_name: 'x' })).rejects.toBeInstanceOf(LatchAssertionError);

    const before = proxy.requests.length;
    await expect(overriding().updateUser({ display_name: 'x' })).rejects.toBeInstanceOf(KnownErrors.CannotGetOwnUserWithoutUser);
    const missing = await overriding({ projectId: 'does-not-exist' })
      .getProject()
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(KnownErrors.CurrentProjectNotFound);
    expect(missing).toMatchObject({ code: 'CURRENT_PROJECT_NOT_FOUND', status: 400 });
    // Results keep working: a wrong password is a result error, not a throw.
    await expect(overriding().signInWithPassword({ email: h.uniqueEmail(), password: 'wrong-password-1' })).resolves.toMatchObject({
      status: 'error',
      error: { code: 'EMAIL_PASSWORD_MISMATCH' },
    });
    // Successes are untouched, and every call sent the header.
    expect((await overriding().getProject()).id).toBe(project.id);
    const sent = proxy.requests.slice(before);
    expect(sent.length).toBeGreaterThanOrEqual(4);
    for (const request of sent) expect(request.headers['x-latch-override-error-status']).toBe('true');
  });

  it('a batch of one tick settles each call on its own', async () => {
    proxy.hideErrorBodies = true;
    const app = overriding();
    const [project_, me] = await Promise.allSettled([app.getProject(), app.updateUser({ display_name: 'x' })]);
    expect(project_).toMatchObject({ status: 'fulfilled', value: { id: project.id } });
    expect(me).toMatchObject({ status: 'rejected', reason: expect.any(KnownErrors.CannotGetOwnUserWithoutUser) });
  });

  it('429 and 508 are read from x-latch-actual-status: retried as usual', async () => {
    faultFirst('projects.current', 1, {
      status: 200,
      headers: { 'x-latch-actual-status': '429', 'retry-after': '0', 'x-latch-known-error': 'RATE_LIMITED' },
      body: latchErrorBody('RATE_LIMITED', 'Too many requests.', 429),
    });
    let before = proxy.count('projects.current');
    expect((await overriding().getProject()).id).toBe(project.id);
    expect(proxy.count('projects.current') - before).toBe(2);

    faultFirst('projects.current', 1, {
      status: 200,
      headers: { 'x-latch-actual-status': '508', 'x-latch-known-error': 'INFINITE_LOOP_DETECTED' },
      body: latchErrorBody('INFINITE_LOOP_DETECTED', 'Loop.', 508),
    });
    before = proxy.count('projects.current');
    expect((await overriding().getProject()).id).toBe(project.id);
    expect(proxy.count('projects.current') - before).toBe(2);
  });
});

describe('idempotent mutations', () => {
  it('are exactly the procedures served as a DELETE on REST, plus the refresh, so network failures retry them and nothing else', () => {
    const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { type: string; meta?: { openapi?: { method?: string } } } }>;
    const mutations = Object.entries(procedures).filter(([, procedure]) => procedure._def.type === 'mutation');
    const deletes = mutations.filter(([, procedure]) => procedure._def.meta?.openapi?.method === 'DELETE').map(([path]) => path);
    expect(deletes.length).toBeGreaterThan(10);
    expect(
      mutations
        .map(([path]) => path)
        .filter(isIdempotentMutation)
        .sort(),
    ).toEqual([...deletes, 'sessions.refresh'].sort());
    // Batched calls: every call of the batch must be idempotent.
    expect(isIdempotentMutation('teams.delete')).toBe(true);
    expect(isIdempotentMutation('teams.create')).toBe(false);
  });
});
