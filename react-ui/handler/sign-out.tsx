/** The sign-out page. */
import { useEffect, useState } from 'react';
import { Alert, Link, Loading, Page, errorMessage } from '../components/ui.js';
import { useApp, useLatchContext } from '../hooks.js';

/** Signs out, then goes to after-sign-out. */
export function SignOutPage() {
  const app = useApp();
  const { urls, navigate } = useLatchContext();
  const [state, setState] = useState<'pending' | 'done' | { error: string }>('pending');
  useEffect(() => {
    let cancelled = false;
    // Signing out twice (React's double effects in development) is harmless: the SDK ignores an ended session.
    app.signOut().then(
      async () => {
        if (!cancelled && !(await navigate(urls.afterSignOut))) setState('done');
      },
      (error: unknown) => !cancelled && setState({ error: errorMessage(error) }),
    );
    return () => {
      cancelled = true;
    };
  }, [app, navigate, urls.afterSignOut]);
  return (
    <Page title="Sign out">
      {state === 'pending' ? <Loading label="Signing out…" /> : null}
      {state === 'done' ? (
        <Alert kind="success">
          You are signed out. <Link href={urls.afterSignOut}>Continue</Link>
        </Alert>
      ) : null}
      {typeof state === 'object' ? <Alert kind="error">{state.error}</Alert> : null}
    </Page>
  );
}
