/**
 * The OAuth callback page (spec section 2): completes the flow the provider buttons (or
 * `linkOAuthAccount`) started, then sends the user on: a new user to after-sign-up, any other user
 * to after-sign-in (or `after_auth_return_to`), a linked account to `afterCallbackRedirectUrl`.
 * A reloaded or foreign callback (no state cookie in this browser) is only a warning in the SDK;
 * here it is a clear message with a way back, never a crash. When the server asks for a second
 * factor, the attempt code goes to session storage and the user to the mfa page.
 */
import { Alert, Link, Page, errorMessage } from '../components/ui.js';
import { type OAuthCallbackResult, KnownErrors } from '../../sdk/index.js';
import { useApp, useContinueToMfa, useLatchContext } from '../hooks.js';
import { usePageLocation } from '../location.js';
import { type LatchUrls, afterAuthUrl, isRelativeUrl, readReturnTo } from '../urls.js';
import { useOnce } from './shared.js';

/** The spec's alert for an invalid TOTP code met on the OAuth callback (section 8). */
export const OAUTH_INVALID_TOTP_MESSAGE = 'Invalid TOTP code. Please try signing in again.';

/** Shown when there is nothing this browser can complete (a reload, another browser, an old link). */
export const OAUTH_NOTHING_TO_COMPLETE_MESSAGE =
  'This sign-in cannot be completed here: the page was reloaded, opened in another browser, or the sign-in is more than an hour old. Please sign in again.';

type Outcome =
  { kind: 'done'; to: string; navigated: boolean } | { kind: 'nothing' } | { kind: 'error'; message: string } | { kind: 'mfa'; to: string; navigated: boolean };

// The SDK strips code and state from the address bar, so the page's search changes under it: the
// call is keyed by the first state this page load saw, and later renders reuse that call.
let firstKey: string | null = null;

/**
 * Where a completed flow goes (spec section 2): a linked account to its `afterCallbackRedirectUrl`
 * (when on this site: redirects are relative only), a new user to after-sign-up, any other user to
 * after-sign-in; `after_auth_return_to` (given relative) wins for sign-ins.
 *
 * @example
 * oauthCallbackTarget({ type: 'authenticate', is_new_user: true, after_callback_redirect_url: null }, urls, null, location.origin) // urls.afterSignUp
 */
export function oauthCallbackTarget(
  result: Pick<OAuthCallbackResult, 'type' | 'is_new_user' | 'after_callback_redirect_url'>,
  urls: Pick<LatchUrls, 'afterSignIn' | 'afterSignUp'>,
  returnTo: string | null,
  origin: string,
): string {
  if (result.type === 'link') {
    const given = result.after_callback_redirect_url;
    if (!given) return urls.afterSignIn;
    if (isRelativeUrl(given)) return given;
    try {
      const url = new URL(given);
      // The redirect rule allows relative URLs only: a same-origin absolute URL becomes one.
      if (url.origin === origin) return `${url.pathname}${url.search}${url.hash}`;
    } catch {
      // not a URL: after-sign-in
    }
    return urls.afterSignIn;
  }
  return returnTo ?? afterAuthUrl(result.is_new_user ? 'sign-up' : 'sign-in', urls, '');
}

/**
 * The oauth-callback page.
 *
 * @example
 * <OAuthCallbackPage /> // or let <LatchHandler /> serve it at /handler/oauth-callback
 */
export function OAuthCallbackPage() {
  const app = useApp();
  const { urls, navigate } = useLatchContext();
  const continueToMfa = useContinueToMfa();
  const { search } = usePageLocation();
  const params = new URLSearchParams(search);
  const state = params.get('state');
  const key = state ? `oauth:${state}` : (firstKey ?? `oauth:none:${search}`);
  firstKey ??= key;
  const outcome = useOnce<Outcome>(key, async () => {
    // The return location is read before the SDK cleans the address bar (it keeps it, but be sure).
    const returnTo = readReturnTo(search);
    try {
      const result = await app.callOAuthCallback();
      if (!result) return { kind: 'nothing' };
      const to = oauthCallbackTarget(result, urls, returnTo, window.location.origin);
      return { kind: 'done', to, navigated: await navigate(to) };
    } catch (error) {
      if (error instanceof KnownErrors.MultiFactorAuthenticationRequired) {
        return { kind: 'mfa', ...(await continueToMfa(error.details.attempt_code, returnTo)) };
      }
      if (error instanceof KnownErrors.InvalidTotpCode) return { kind: 'error', message: OAUTH_INVALID_TOTP_MESSAGE };
      return { kind: 'error', message: errorMessage(error) };
    }
  });

  return (
    <Page title="Signing in">
      {outcome.kind === 'done' ? (
        <Alert kind="success">
          You are signed in. <Link href={outcome.to}>Continue</Link>
        </Alert>
      ) : outcome.kind === 'mfa' ? (
        <Alert kind="info">
          Your account asks for a second factor. <Link href={outcome.to}>Continue</Link>
        </Alert>
      ) : (
        <>
          <Alert kind="error">{outcome.kind === 'nothing' ? OAUTH_NOTHING_TO_COMPLETE_MESSAGE : outcome.message}</Alert>
          <div className="latch-footer">
            <Link href={urls.signIn}>Back to sign in</Link>
            <Link href={urls.home}>Go home</Link>
          </div>
        </>
      )}
    </Page>
  );
}
