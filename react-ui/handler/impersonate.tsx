/**
 * /handler/impersonate?code=…: the page the console opens in a new tab to impersonate a user
 * (README "Impersonation"). Exchanges the single-use code for an impersonation session, marks this
 * tab as impersonating (session storage: the banner shows in this tab only), then goes to
 * after-sign-in.
 */
import { Alert, Link, Page } from '../components/ui.js';
import { markImpersonating } from '../components/impersonation-banner.js';
import { useApp, useLatchContext } from '../hooks.js';
import { KnownError } from '../../sdk/index.js';
import { CodePage, useDelayedRedirect, useOnce } from './shared.js';

export function ImpersonatePage() {
  return <CodePage title="Impersonation">{(code) => <Impersonate code={code} />}</CodePage>;
}

function Impersonate({ code }: { code: string }) {
  const app = useApp();
  const { urls } = useLatchContext();
  const result = useOnce(`impersonate:${code}`, async () => {
    try {
      const signIn = await app.signInWithImpersonationCode(code);
      markImpersonating(app.projectId, signIn.user_id);
      return { ok: true as const };
    } catch (error) {
      // A used or expired code (60 seconds), or one of another project: say so, do not crash.
      if (error instanceof KnownError) return { ok: false as const, message: error.message };
      throw error;
    }
  });
  useDelayedRedirect(result.ok ? urls.afterSignIn : null);
  return (
    <Page title="Impersonation">
      {result.ok ? (
        <Alert kind="success">
          You are now signed in as this user. <Link href={urls.afterSignIn}>Continue</Link>
        </Alert>
      ) : (
        <>
          <Alert kind="error">{result.message} Impersonation links work once, for 60 seconds: start again from the console.</Alert>
          <div className="latch-footer">
            <Link href={urls.home}>Go home</Link>
          </div>
        </>
      )}
    </Page>
  );
}
