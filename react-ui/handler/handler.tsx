import { type ReactNode, Suspense } from 'react';
import { SignIn, SignUp } from '../components/auth-forms.js';
import { AccountSettings } from '../components/account-settings.js';
import { Link, Loading, Page } from '../components/ui.js';
import { useLatchContext } from '../hooks.js';
import { LocationContext, type PageLocation, usePageLocation } from '../location.js';
import { type HandlerRoute, parseHandlerRoute } from '../urls.js';
import { CliAuthConfirmPage } from './cli-auth-confirm.js';
import { EmailVerificationPage } from './email-verification.js';
import { ErrorPage } from './error.js';
import { ForgotPasswordPage } from './forgot-password.js';
import { ImpersonatePage } from './impersonate.js';
import { MagicLinkCallbackPage } from './magic-link-callback.js';
import { MfaPage } from './mfa.js';
import { OAuthCallbackPage } from './oauth-callback.js';
import { PasswordResetPage } from './password-reset.js';
import { PageErrorBoundary } from './shared.js';
import { SignOutPage } from './sign-out.js';
import { TeamInvitationPage } from './team-invitation.js';

// One file per route in this folder; sign-in, sign-up and account settings are the components
// of the same names (components/), which hosts can also embed in their own pages.
const PAGES: Record<HandlerRoute, () => ReactNode> = {
  'sign-in': () => <SignIn />,
  'sign-up': () => <SignUp />,
  'sign-out': () => <SignOutPage />,
  'email-verification': () => <EmailVerificationPage />,
  'password-reset': () => <PasswordResetPage />,
  'forgot-password': () => <ForgotPasswordPage />,
  'oauth-callback': () => <OAuthCallbackPage />,
  'magic-link-callback': () => <MagicLinkCallbackPage />,
  'account-settings': () => <AccountSettings />,
  error: () => <ErrorPage />,
  'team-invitation': () => <TeamInvitationPage />,
  mfa: () => <MfaPage />,
  'cli-auth-confirm': () => <CliAuthConfirmPage />,
  impersonate: () => <ImpersonatePage />,
};

export interface LatchHandlerProps {
  /**
   * The page's location, for frameworks that own it (server rendering, a router). Default:
   * `window.location`, followed through back/forward and 'history' navigation.
   */
  location?: PageLocation;
}

/**
 * Serves every handler route under the provider's handler path (default `/handler`): sign-in,
 * sign-up, sign-out, email-verification, password-reset, forgot-password, oauth-callback,
 * magic-link-callback, account-settings, error, team-invitation, mfa, cli-auth-confirm and
 * impersonate (beyond the spec: the console's impersonation links).
 * Mount it on every path under the handler path; no router library is needed.
 *
 * @example
 * function App() {
 *   if (location.pathname.startsWith('/handler/')) return <LatchHandler />;
 *   return <Home />;
 * }
 */
export function LatchHandler({ location }: LatchHandlerProps) {
  const content = <HandlerRoutes />;
  return location ? <LocationContext.Provider value={location}>{content}</LocationContext.Provider> : content;
}

function HandlerRoutes() {
  const { urls } = useLatchContext();
  const { pathname } = usePageLocation();
  const route = parseHandlerRoute(pathname, urls.handler);
  if (!route) {
    return (
      <Page title="Page not found">
        <p className="latch-hint">There is no page at {pathname}.</p>
        <div className="latch-footer">
          <Link href={urls.home}>Go home</Link>
        </div>
      </Page>
    );
  }
  return (
    // Keyed by route so an error on one page does not stick to the next.
    <PageErrorBoundary key={route}>
      <Suspense fallback={<Page title="Loading">{<Loading />}</Page>}>{PAGES[route]()}</Suspense>
    </PageErrorBoundary>
  );
}
