/**
 * The small handler pages: sign-out, forgot-password, error, and the routes whose features land
 * later (OAuth callback, MFA, CLI confirmation), which say so plainly.
 */
import { type FormEvent, useEffect, useState } from 'react';
import { Alert, Button, Field, Link, Loading, Page, errorMessage } from '../components/ui.js';
import { useApp, useLatchContext, useProject } from '../hooks.js';
import { absoluteUrl, usePageLocation } from '../location.js';
import { readReturnTo, withReturnTo } from '../urls.js';
import { validateEmail } from '../validation.js';
import { NotEnabled } from './shared.js';

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

/** Emails a password-reset link to the password-reset page. */
export function ForgotPasswordPage() {
  const app = useApp();
  const project = useProject();
  const { urls } = useLatchContext();
  const { search } = usePageLocation();
  const [email, setEmail] = useState('');
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  if (!project.config.credential_enabled) return <NotEnabled title="Reset your password" feature="Password sign-in" />;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const trimmed = email.trim();
    const invalid = validateEmail(trimmed);
    setFieldError(invalid);
    setFormError(null);
    if (invalid) return;
    setPending(true);
    try {
      const result = await app.sendForgotPasswordEmail(trimmed, { callbackUrl: absoluteUrl(urls.passwordReset) });
      if (result.status === 'error') return setFormError(result.error.message);
      setSentTo(trimmed);
    } catch (error) {
      setFormError(errorMessage(error));
    } finally {
      setPending(false);
    }
  };
  return (
    <Page title="Reset your password" subtitle="We will email you a link to choose a new password.">
      {sentTo ? (
        <Alert kind="success">
          If an account uses <strong>{sentTo}</strong>, a link to reset its password is on its way. Check your inbox.
        </Alert>
      ) : (
        <form className="latch-form" onSubmit={submit} noValidate aria-label="Send a password reset link">
          {formError ? <Alert kind="error">{formError}</Alert> : null}
          <Field label="Email" type="email" name="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} error={fieldError} required />
          <Button type="submit" block loading={pending}>
            Send reset link
          </Button>
        </form>
      )}
      <div className="latch-footer">
        <Link href={withReturnTo(urls.signIn, readReturnTo(search))}>Back to sign in</Link>
      </div>
    </Page>
  );
}

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

/** OAuth lands with its own issue; until then, the callback says it is not enabled. */
export function OAuthCallbackPage() {
  return <NotEnabled title="Signing in" feature="OAuth sign-in" />;
}

/**
 * Multi-factor sign-in lands with its own issue. A password sign-in that the server answers with
 * MULTI_FACTOR_AUTHENTICATION_REQUIRED already stores the attempt code (session storage, key
 * ending in `mfa_attempt_code`) and comes here; until the TOTP form lands, this says so.
 */
export function MfaPage() {
  return <NotEnabled title="Multi-factor authentication" feature="Multi-factor authentication" />;
}

/** CLI login confirmation (query `login_code`) lands with the CLI issue. */
export function CliAuthConfirmPage() {
  return <NotEnabled title="Confirm CLI sign-in" feature="CLI sign-in" />;
}
