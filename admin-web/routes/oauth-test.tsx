/**
 * "Test this provider": runs the project's real OAuth flow for one provider in a popup, from the
 * console. The console has no publishable key of the project, so the test makes one that expires
 * in 10 minutes (listed with the project's keys as "OAuth provider test"), starts the flow with it
 * (the verifier kept in this origin's localStorage, keyed by the state), and the popup comes back
 * to the console's `/oauth-test-callback` page, which exchanges the code, signs the test session
 * out again and posts the outcome to the console window.
 *
 * The popup signs in (or up) the tester's provider account as a user of the project: that is what
 * proves the provider works end to end. The callback URL must be trusted by the project (a
 * localhost console is, while the project allows localhost).
 */
import { useEffect, useState } from 'react';
import { isTrustedRedirectUrl } from '../../contract/validation/urls.js';
import { type AdminApp, type AdminProject, ClientApp } from '../../sdk/index.js';
import { errorMessage } from '../api.js';

/** The console page the test popup returns to (outside the signed-in routes). */
export const OAUTH_TEST_CALLBACK_PATH = '/oauth-test-callback';
const STORAGE_PREFIX = 'latch-console-oauth-test:';
const MESSAGE_TYPE = 'latch-oauth-test';
const TEST_KEY_LIFETIME_MS = 10 * 60 * 1000;

/** What the popup reports back. */
export type OAuthTestOutcome = { ok: true; userId: string; isNewUser: boolean } | { ok: false; message: string };

interface PendingTest {
  projectId: string;
  publishableClientKey: string;
  codeVerifier: string;
  redirectUri: string;
}

/** The provider's callback URL at this Latch server: what the provider's app settings must list. */
export function providerCallbackUrl(origin: string, provider: string): string {
  return `${origin}/api/v1/auth/oauth/callback/${provider}`;
}

/** Whether the project trusts the console's test callback page (else the flow would be refused). */
export function consoleCallbackTrusted(project: AdminProject, origin: string): boolean {
  return isTrustedRedirectUrl(`${origin}${OAUTH_TEST_CALLBACK_PATH}`, {
    domains: project.config.domains,
    allowLocalhost: project.config.allow_localhost,
    productionMode: project.is_production_mode,
  });
}

/** Starts a test: the popup must be opened in the click's own task (browsers block it later), so it is opened first and pointed at the flow when ready. */
export async function startOAuthTest(admin: AdminApp, provider: string, popup: Window): Promise<void> {
  const key = await admin.createInternalApiKey({
    description: `OAuth provider test (${provider}, console)`,
    has_publishable_client_key: true,
    has_secret_server_key: false,
    has_super_secret_admin_key: false,
    expires_at_millis: Date.now() + TEST_KEY_LIFETIME_MS,
  });
  const publishableClientKey = key.publishable_client_key;
  if (!publishableClientKey) throw new Error('The test key was made without a publishable client key.');
  const app = new ClientApp({ projectId: admin.projectId, publishableClientKey, baseUrl: window.location.origin, tokenStore: 'memory' });
  const start = await app.signInWithOAuth(provider, { callbackUrl: `${window.location.origin}${OAUTH_TEST_CALLBACK_PATH}`, returnUrl: true });
  const pending: PendingTest = { projectId: admin.projectId, publishableClientKey, codeVerifier: start.codeVerifier, redirectUri: start.redirectUri };
  localStorage.setItem(STORAGE_PREFIX + start.state, JSON.stringify(pending));
  popup.location.href = start.url;
}

/** Waits for the popup's outcome (resolves once; the listener is removed by the returned function). */
export function onOAuthTestOutcome(listener: (outcome: OAuthTestOutcome) => void): () => void {
  const handler = (event: MessageEvent) => {
    if (event.origin !== window.location.origin) return;
    const data = event.data as { type?: string; outcome?: OAuthTestOutcome } | null;
    if (data?.type === MESSAGE_TYPE && data.outcome) listener(data.outcome);
  };
  window.addEventListener('message', handler);
  return () => window.removeEventListener('message', handler);
}

async function completeTest(): Promise<OAuthTestOutcome> {
  const url = window.location.href;
  const params = new URL(url).searchParams;
  const state = params.get('state');
  const stored = state ? localStorage.getItem(STORAGE_PREFIX + state) : null;
  if (state) localStorage.removeItem(STORAGE_PREFIX + state);
  if (params.get('error')) {
    // Only the code: the URL's free text is not shown (anyone can craft this page's URL).
    const code = params.get('error') ?? '';
    return { ok: false, message: `The provider or Latch refused the sign-in (${/^[A-Za-z0-9_]{1,64}$/.test(code) ? code : 'error'}).` };
  }
  if (!stored) return { ok: false, message: 'This test was not started from this browser, or was already completed.' };
  const pending = JSON.parse(stored) as PendingTest;
  const app = new ClientApp({
    projectId: pending.projectId,
    publishableClientKey: pending.publishableClientKey,
    baseUrl: window.location.origin,
    tokenStore: 'memory',
  });
  try {
    const result = await app.callOAuthCallback({ url, codeVerifier: pending.codeVerifier, redirectUri: pending.redirectUri });
    if (!result) return { ok: false, message: 'The provider did not send a code back.' };
    // A test, not a sign-in: end the session it made.
    await app.signOut().catch(() => undefined);
    return { ok: true, userId: result.user_id, isNewUser: result.is_new_user };
  } catch (error) {
    return { ok: false, message: errorMessage(error) };
  }
}

// The code is spent once: StrictMode's second effect run must reuse the first completion.
let completion: Promise<OAuthTestOutcome> | null = null;

/** The popup's landing page: completes the flow, tells the console window, and says what happened. */
export function OAuthTestCallbackPage() {
  const [outcome, setOutcome] = useState<OAuthTestOutcome | null>(null);
  useEffect(() => {
    let cancelled = false;
    completion ??= completeTest().then((result) => {
      (window.opener as Window | null)?.postMessage({ type: MESSAGE_TYPE, outcome: result }, window.location.origin);
      return result;
    });
    void completion.then((result) => {
      if (!cancelled) setOutcome(result);
    });
    return () => {
      cancelled = true;
    };
  }, []);
  return (
    <div className="auth-screen">
      <div className="card auth-card stack" role={outcome && !outcome.ok ? 'alert' : 'status'}>
        <h1>OAuth provider test</h1>
        {!outcome ? (
          <p>Completing the sign-in…</p>
        ) : outcome.ok ? (
          <p>
            The provider works: signed in as user <code>{outcome.userId}</code>
            {outcome.isNewUser ? ' (a new user)' : ''}. You can close this window.
          </p>
        ) : (
          <p>{outcome.message}</p>
        )}
      </div>
    </div>
  );
}
