/** The email-verification page: the link's `code` goes to the contact-channel verify call. */
import { KnownErrors } from '../../sdk/index.js';
import { Alert, Link, Page } from '../components/ui.js';
import { useApp, useLatchContext } from '../hooks.js';
import { usePageLocation } from '../location.js';
import { readReturnTo } from '../urls.js';
import { CodePage, useDelayedRedirect, useOnce } from './shared.js';

/** Verifies the email of the link, then goes on (to the link's `after_auth_return_to`, else home) after 2000 ms. */
export function EmailVerificationPage() {
  return <CodePage title="Verify your email">{(code) => <EmailVerification code={code} />}</CodePage>;
}

function EmailVerification({ code }: { code: string }) {
  const app = useApp();
  const { urls } = useLatchContext();
  const { search } = usePageLocation();
  const result = useOnce(`verify:${code}`, () => app.verifyEmail(code));
  const verified = result.status === 'ok' || result.error instanceof KnownErrors.EmailAlreadyVerified;
  const next = readReturnTo(search) ?? urls.home;
  useDelayedRedirect(verified ? next : null);
  return (
    <Page title="Verify your email">
      {verified ? (
        <Alert kind="success">
          Your email is verified. Taking you back… <Link href={next}>Continue now</Link>
        </Alert>
      ) : (
        <Alert kind="error">{result.status === 'error' ? result.error.message : ''}</Alert>
      )}
    </Page>
  );
}
