/** The magic-link callback: the link's `code` goes to the one-time-code sign-in call. */
import { Alert, Link, Page } from '../components/ui.js';
import { useApp, useContinueToMfa, useLatchContext } from '../hooks.js';
import { usePageLocation } from '../location.js';
import { KnownErrors } from '../../sdk/index.js';
import { afterAuthUrl, readReturnTo } from '../urls.js';
import { CodePage, useOnce } from './shared.js';

/** Signs in with the magic link's code; a new user goes to after-sign-up, others to after-sign-in. */
export function MagicLinkCallbackPage() {
  return <CodePage title="Signing in">{(code) => <MagicLinkCallback code={code} />}</CodePage>;
}

function MagicLinkCallback({ code }: { code: string }) {
  const app = useApp();
  const { urls, navigate } = useLatchContext();
  const continueToMfa = useContinueToMfa();
  const { search } = usePageLocation();
  const result = useOnce(`magic:${code}`, async () => {
    let signIn;
    try {
      signIn = await app.signInWithMagicLink(code);
    } catch (error) {
      if (!(error instanceof KnownErrors.MultiFactorAuthenticationRequired)) throw error;
      // MFA on: the link was the first factor; the mfa route asks for the second (spec section 2).
      return { status: 'mfa' as const, ...(await continueToMfa(error.details.attempt_code, readReturnTo(search))) };
    }
    if (signIn.status === 'ok') {
      const to = afterAuthUrl(signIn.data.is_new_user ? 'sign-up' : 'sign-in', urls, search);
      return { ...signIn, to, navigated: await navigate(to) };
    }
    return signIn;
  });
  return (
    <Page title="Signing in">
      {result.status === 'ok' ? (
        <Alert kind="success">
          You are signed in. <Link href={result.to}>Continue</Link>
        </Alert>
      ) : result.status === 'mfa' ? (
        <Alert kind="info">
          Your account needs a second factor. <Link href={result.to}>Continue</Link>
        </Alert>
      ) : (
        <>
          <Alert kind="error">{result.error.message}</Alert>
          <div className="latch-footer">
            <Link href={urls.signIn}>Back to sign in</Link>
          </div>
        </>
      )}
    </Page>
  );
}
