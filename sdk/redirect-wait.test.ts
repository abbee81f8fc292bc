import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClientApp } from './client-app.js';

/**
 * Redirect wait (spec section 9): after asking the host to redirect, the SDK waits 2000 ms for the
 * page to leave before it gives up. Fake timers, so the test pins the wait without sleeping.
 */

afterEach(() => {
  vi.useRealTimers();
});

describe('redirect wait', () => {
  it('redirectToSignIn waits 2000 ms for the page to leave, then throws', async () => {
    vi.useFakeTimers();
    const redirected: string[] = [];
    const app = new ClientApp({
      projectId: '00000000-0000-4000-8000-000000000000',
      publishableClientKey: 'pck_test',
      baseUrl: 'http://127.0.0.1:9',
      tokenStore: 'memory',
      urls: { signIn: '/login' },
      redirectMethod: (url) => void redirected.push(url),
    });
    let settled: 'pending' | 'rejected' = 'pending';
    const done = app.redirectToSignIn().catch((error: Error) => {
      settled = 'rejected';
      return error;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(redirected).toEqual(['/login']);
    await vi.advanceTimersByTimeAsync(1999);
    expect(settled).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toBe('rejected');
    expect(((await done) as Error).message).toBe('Redirected to /login, but the page did not leave.');
  });
});
