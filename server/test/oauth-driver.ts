/**
 * Drives the OAuth flow over HTTP like a browser would (redirect: 'manual', cookies carried by
 * hand): the app's authorize request, the zoo's consent, the callback, and the app's token request.
 * The Chromium end-to-end run of the same flow belongs to the UI kit's tests.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { OAuthProviderId } from '../../contract/config/oauth.js';
import { type Harness, type ProjectFixture, startHarness } from './harness.js';
import { type Zoo, startZoo } from './oauth-zoo.js';

export const APP_CALLBACK = 'http://localhost:3000/handler/oauth-callback';

export interface FlowOptions {
  type?: 'authenticate' | 'link';
  token?: string;
  providerScope?: string;
  errorRedirectUrl?: string;
  afterCallbackRedirectUrl?: string;
  redirectUri?: string;
  /** Drop the flow cookie before the callback (another browser). */
  dropCookie?: boolean;
  /** Runs after the provider's consent, before the browser reaches the callback. */
  beforeCallback?: () => Promise<void>;
}

export interface FlowSteps {
  authorize: Response;
  /** The provider's answer (a redirect, or Apple's form page). */
  consent?: Response;
  callbackUrl?: string;
  callback?: Response;
  /** Replays the callback exactly (a reload). */
  reload?: () => Promise<Response>;
  cookie: string;
  code?: string;
  outerState: string;
  codeVerifier: string;
  redirectUri: string;
}

function cookieOf(response: Response): string {
  return response.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .join('; ');
}

export function authorizeUrl(h: Harness, project: ProjectFixture, provider: string, options: FlowOptions & { codeChallenge: string; state: string }): string {
  const url = new URL(`${h.url}/api/v1/auth/oauth/authorize/${provider}`);
  const params: Record<string, string | undefined> = {
    client_id: project.id,
    client_secret: project.publishableClientKey,
    redirect_uri: options.redirectUri ?? APP_CALLBACK,
    scope: 'legacy',
    state: options.state,
    grant_type: 'authorization_code',
    code_challenge: options.codeChallenge,
    code_challenge_method: 'S256',
    response_type: 'code',
    type: options.type ?? 'authenticate',
    token: options.token,
    provider_scope: options.providerScope,
    error_redirect_url: options.errorRedirectUrl,
    after_callback_redirect_url: options.afterCallbackRedirectUrl,
  };
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.toString();
}

/** Runs the flow up to the app's redirect (does not redeem the code). */
export async function runFlow(h: Harness, project: ProjectFixture, provider: string, options: FlowOptions = {}): Promise<FlowSteps> {
  const codeVerifier = randomBytes(32).toString('base64url');
  const codeChallenge = createHash('sha256').update(codeVerifier).digest('base64url');
  const outerState = randomBytes(12).toString('base64url');
  const redirectUri = options.redirectUri ?? APP_CALLBACK;
  const authorize = await fetch(authorizeUrl(h, project, provider, { ...options, codeChallenge, state: outerState }), { redirect: 'manual' });
  const steps: FlowSteps = { authorize, cookie: cookieOf(authorize), outerState, codeVerifier, redirectUri };
  if (authorize.status !== 302) return steps;
  const consent = await fetch(authorize.headers.get('location')!, { redirect: 'manual' });
  steps.consent = consent;
  const cookie = options.dropCookie ? '' : steps.cookie;
  await options.beforeCallback?.();
  if (consent.status === 302) {
    const callbackUrl = consent.headers.get('location')!;
    steps.callbackUrl = callbackUrl;
    if (!callbackUrl.startsWith(h.url)) return steps;
    const call = () => fetch(callbackUrl, { redirect: 'manual', headers: { cookie } });
    steps.callback = await call();
    steps.reload = call;
  } else if (consent.status === 200) {
    // Apple: response_mode=form_post: the page posts the fields to the callback.
    const html = await consent.text();
    const action = /action="([^"]+)"/.exec(html)![1]!;
    const form = new URLSearchParams();
    for (const [, name, value] of html.matchAll(/name="([^"]+)" value="([^"]*)"/g)) form.set(name!, value!.replace(/&quot;/g, '"'));
    const call = () =>
      fetch(action, { method: 'POST', redirect: 'manual', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
    steps.callbackUrl = action;
    steps.callback = await call();
    steps.reload = call;
  }
  const location = steps.callback?.headers.get('location');
  if (steps.callback?.status === 302 && location?.startsWith(redirectUri)) steps.code = new URL(location).searchParams.get('code') ?? undefined;
  return steps;
}

export async function redeem(
  h: Harness,
  project: ProjectFixture,
  steps: Pick<FlowSteps, 'code' | 'codeVerifier' | 'redirectUri'>,
  overrides: Record<string, string> = {},
) {
  return h.call('/auth/oauth/token', {
    form: {
      grant_type: 'authorization_code',
      code: steps.code ?? '',
      code_verifier: steps.codeVerifier,
      redirect_uri: steps.redirectUri,
      client_id: project.id,
      client_secret: project.publishableClientKey,
      ...overrides,
    },
  });
}

/** The whole flow: sign-in result of the token endpoint. */
export async function signInWith(h: Harness, project: ProjectFixture, provider: string, options: FlowOptions = {}) {
  const steps = await runFlow(h, project, provider, options);
  if (!steps.code) throw new Error(`the flow did not reach the app: ${steps.authorize.status} ${steps.callback?.status} ${await steps.callback?.text()}`);
  const res = await redeem(h, project, steps);
  if (res.status !== 200) throw new Error(`token: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as {
    access_token: string;
    refresh_token: string;
    user_id: string;
    is_new_user: boolean;
    id_token: string;
    after_callback_redirect_url: string | null;
  };
}

/**
 * The provider zoo and a server whose providers' endpoints are the zoo's; with `sharedGitHub`, the
 * server's shared GitHub keys are the zoo's GitHub client (projects that use `type: 'shared'`).
 */
export async function startZooHarness({ sharedGitHub = false } = {}): Promise<{ zoo: Zoo; h: Harness }> {
  const zoo = await startZoo();
  const h = await startHarness({ oauth: { shared: sharedGitHub ? { github: zoo.clients.github! } : {}, endpointOverrides: zoo.overrides() } });
  return { zoo, h };
}

/** Closes what startZooHarness started (or the part of it that started): the server, then the zoo. */
export async function stopZooHarness({ zoo, h }: { zoo?: Zoo; h?: Harness }): Promise<void> {
  await h?.close();
  await zoo?.close();
}

/** A project's `oauth_providers` entry for the zoo's client of `id` (own keys, `type: 'standard'`). */
export function zooProvider(zoo: Zoo, id: OAuthProviderId, extra: Record<string, unknown> = {}) {
  const client = zoo.clients[id]!;
  return {
    id,
    enabled: true,
    type: 'standard',
    client_id: client.clientId,
    client_secret: id === 'apple' ? zoo.appleClientSecret : client.clientSecret,
    ...extra,
  };
}
