import { describe, expect, it } from 'vitest';
import { hashSecret } from '../server/crypto/tokens.js';
import { type ProjectFixture, useHarness } from '../server/test/harness.js';
import { ClientApp, KnownErrors } from './index.js';
import type { CliLoginRequestInfo } from './features/cli.js';

/**
 * `promptCliLogin` against a real server (spec section 4, "CLI login"): success, and the spec's
 * exact texts for expired, used and timed out; a poll the server finds too fast is waited out.
 * Time is moved in the database (the server's clock is its now()), never waited for.
 */

const h = useHarness();

const cliApp = (project: ProjectFixture) =>
  new ClientApp({ projectId: project.id, publishableClientKey: project.publishableClientKey, baseUrl: h.url, tokenStore: 'memory' });

/** A browser app signed in as a fresh user. */
async function browserApp(project: ProjectFixture) {
  const user = await h.signUpUser(project);
  const app = new ClientApp({
    projectId: project.id,
    publishableClientKey: project.publishableClientKey,
    baseUrl: h.url,
    tokenStore: { accessToken: user.accessToken, refreshToken: user.refreshToken },
  });
  return { app, user };
}

const loginCodeOf = (url: string) => new URL(url).searchParams.get('login_code')!;

describe('promptCliLogin', () => {
  it('prints the confirm link, polls until approved, and returns a refresh token of a new session', async () => {
    const project = await h.createProject({ displayName: 'Acme CLI' });
    const { app: browser, user } = await browserApp(project);
    const seen: CliLoginRequestInfo[] = [];
    const result = await cliApp(project).promptCliLogin({
      appUrl: 'https://app.example.com/',
      waitTimeMillis: 50,
      promptLink: async (url, request) => {
        seen.push(request);
        expect(url).toBe(request.url);
        expect(url.startsWith('https://app.example.com/handler/cli-auth-confirm?login_code=')).toBe(true);
        const details = await browser.getCliLoginRequest(loginCodeOf(url));
        expect(details.status === 'ok' && details.data.projectDisplayName).toBe('Acme CLI');
        expect((await browser.approveCliLogin(loginCodeOf(url))).status).toBe('ok');
      },
    });
    expect(seen).toHaveLength(1);
    expect(result.status).toBe('ok');
    const token = result.status === 'ok' ? result.data : '';
    expect(token).not.toBe(user.refreshToken);
    const signedIn = new ClientApp({
      projectId: project.id,
      publishableClientKey: project.publishableClientKey,
      baseUrl: h.url,
      tokenStore: { refreshToken: token },
    });
    expect((await signedIn.getUser({ or: 'throw' })).id).toBe(user.userId);

    // The same polling code again: used, with the spec's text.
    const again = await cliApp(project).promptCliLogin({ appUrl: 'https://app.example.com', pollingCode: seen[0]!.pollingCode, waitTimeMillis: 50 });
    expect(again.status === 'error' && again.error).toBeInstanceOf(KnownErrors.CliAuthUsedError);
    expect(again.status === 'error' && again.error.message).toBe('This authentication token has already been used.');
    // The confirm page's calls on a spent code: a result error too.
    const spent = await browser.approveCliLogin(loginCodeOf(seen[0]!.url));
    expect(spent.status === 'error' && spent.error).toBeInstanceOf(KnownErrors.CliAuthUsedError);
  });

  it("ends with 'CLI authentication request expired. Please try again.' when the request expires", async () => {
    const project = await h.createProject();
    const result = await cliApp(project).promptCliLogin({
      appUrl: 'https://app.example.com',
      waitTimeMillis: 50,
      promptLink: async (_url, request) => {
        await h.latch.deps.db
          .updateTable('cli_auth_attempts')
          .set({ expires_at: new Date(Date.now() - 1000) })
          .where('polling_code_hash', '=', hashSecret(request.pollingCode))
          .execute();
      },
    });
    expect(result.status === 'error' && result.error).toBeInstanceOf(KnownErrors.CliAuthExpiredError);
    expect(result.status === 'error' && result.error.message).toBe('CLI authentication request expired. Please try again.');
  });

  it("ends with 'Timed out waiting for CLI authentication.' after maxAttempts, and waits out RATE_LIMITED", async () => {
    const project = await h.createProject();
    let polls = 0;
    const result = await cliApp(project).promptCliLogin({
      appUrl: 'https://app.example.com',
      // Faster than the server's one poll a second per code: the second poll is refused with
      // RATE_LIMITED, which the SDK waits out (Retry-After) rather than failing.
      waitTimeMillis: 10,
      maxAttempts: 3,
      promptLink: () => void polls++,
    });
    expect(polls).toBe(1);
    expect(result.status === 'error' && result.error).toBeInstanceOf(KnownErrors.CliAuthError);
    expect(result.status === 'error' && result.error.message).toBe('Timed out waiting for CLI authentication.');
  });

  it('polls every 2000 ms when no waitTimeMillis is given', async () => {
    const project = await h.createProject();
    const polls: number[] = [];
    const app = new ClientApp({
      projectId: project.id,
      publishableClientKey: project.publishableClientKey,
      baseUrl: h.url,
      tokenStore: 'memory',
      fetch: (input, init) => {
        const url = String(input instanceof Request ? input.url : input);
        if (url.includes('cliPoll') || url.includes('/auth/cli/poll')) polls.push(performance.now());
        return fetch(input, init);
      },
    });
    const result = await app.promptCliLogin({ appUrl: 'https://app.example.com', maxAttempts: 2, promptLink: () => undefined });
    expect(result.status === 'error' && result.error.message).toBe('Timed out waiting for CLI authentication.');
    expect(polls).toHaveLength(2);
    const gap = polls[1]! - polls[0]!;
    // The default wait (CLI_POLL_DEFAULT_WAIT_MILLIS), plus one request's time at most.
    expect(gap).toBeGreaterThanOrEqual(1990);
    expect(gap).toBeLessThan(3000);
  });

  it('a denied request ends in CliAuthError; an unknown polling code in InvalidPollingCode', async () => {
    const project = await h.createProject();
    const { app: browser } = await browserApp(project);
    const result = await cliApp(project).promptCliLogin({
      appUrl: 'https://app.example.com',
      waitTimeMillis: 50,
      promptLink: async (url) => void expect((await browser.denyCliLogin(loginCodeOf(url))).status).toBe('ok'),
    });
    expect(result.status === 'error' && result.error).toBeInstanceOf(KnownErrors.CliAuthError);
    const unknown = await cliApp(project).promptCliLogin({ appUrl: 'https://app.example.com', pollingCode: 'no-such-code' });
    expect(unknown.status === 'error' && unknown.error).toBeInstanceOf(KnownErrors.InvalidPollingCode);
  });
});
