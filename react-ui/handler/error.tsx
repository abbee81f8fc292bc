/** The error page. */
import { Alert, Link, Page } from '../components/ui.js';
import { useLatchContext } from '../hooks.js';
import { usePageLocation } from '../location.js';

/**
 * The error page. It shows an error code from the query when it looks like one, never free text
 * from the URL: a crafted link must not put its own words on a page of your app.
 */
export function ErrorPage() {
  const { urls } = useLatchContext();
  const { search } = usePageLocation();
  const code = new URLSearchParams(search).get('error_code') ?? new URLSearchParams(search).get('error');
  const shownCode = code && /^[A-Za-z0-9_]{1,64}$/.test(code) ? code : null;
  return (
    <Page title="Something went wrong">
      <Alert kind="error">
        An error occurred while signing you in. Please try again.
        {shownCode ? (
          <>
            {' '}
            (<code>{shownCode}</code>)
          </>
        ) : null}
      </Alert>
      <div className="latch-footer">
        <Link href={urls.signIn}>Back to sign in</Link>
        <Link href={urls.home}>Go home</Link>
      </div>
    </Page>
  );
}
