/**
 * The callback pages of the emailed links (spec section 2): each takes the `code` of its link and
 * calls the call the spec names: email verification → verify, password reset → check-code then
 * reset, magic link → one-time-code sign-in, team invitation → accept.
 */
import { type FormEvent, useState } from 'react';
import { KnownErrors } from '../../sdk/index.js';
import { Alert, Button, Field, Link, Page, errorMessage } from '../components/ui.js';
import { useApp, useLatchContext, useUser } from '../hooks.js';
import { usePageLocation } from '../location.js';
import { afterAuthUrl, currentRelativeUrl, readReturnTo, withReturnTo } from '../urls.js';
import { validateForm, validatePassword, validatePasswordConfirmation } from '../validation.js';
import { MissingCode, useDelayedRedirect, useOnce } from './shared.js';

function useCode(name = 'code'): string | null {
  const { search } = usePageLocation();
  return new URLSearchParams(search).get(name);
}

/** Verifies the email of the link, then goes on (to the link's `after_auth_return_to`, else home) after 2000 ms. */
export function EmailVerificationPage() {
  const code = useCode();
  if (!code) return <MissingCode title="Verify your email" />;
  return <EmailVerification code={code} />;
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

/** Checks the reset code, asks for a new password (twice), resets, then goes to sign-in after 2000 ms. */
export function PasswordResetPage() {
  const code = useCode();
  if (!code) return <MissingCode title="Choose a new password" />;
  return <PasswordReset code={code} />;
}

function PasswordReset({ code }: { code: string }) {
  const app = useApp();
  const { urls } = useLatchContext();
  const check = useOnce(`reset-check:${code}`, () => app.verifyPasswordResetCode(code));
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [errors, setErrors] = useState<{ password?: string; confirmation?: string }>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const [done, setDone] = useState(false);
  useDelayedRedirect(done ? urls.signIn : null);

  if (check.status === 'error') {
    return (
      <Page title="Choose a new password">
        <Alert kind="error">{check.error.message}</Alert>
        <div className="latch-footer">
          <Link href={urls.forgotPassword}>Send a new link</Link>
        </div>
      </Page>
    );
  }
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found = validateForm({ password: () => validatePassword(password), confirmation: () => validatePasswordConfirmation(password, confirmation) });
    setErrors(found);
    setFormError(null);
    if (Object.keys(found).length) return;
    setPending(true);
    try {
      const result = await app.resetPassword({ code, password });
      if (result.status === 'error') return setFormError(result.error.message);
      setDone(true);
    } catch (error) {
      setFormError(errorMessage(error));
    } finally {
      setPending(false);
    }
  };
  return (
    <Page title="Choose a new password">
      {done ? (
        <Alert kind="success">
          Your password is reset. Sign in with the new one. <Link href={urls.signIn}>Sign in</Link>
        </Alert>
      ) : (
        <form className="latch-form" onSubmit={submit} noValidate aria-label="Choose a new password">
          {formError ? <Alert kind="error">{formError}</Alert> : null}
          <Field label="New password" type="password" name="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} error={errors.password} required />
          <Field
            label="Repeat new password"
            type="password"
            name="password-confirmation"
            autoComplete="new-password"
            value={confirmation}
            onChange={(e) => setConfirmation(e.target.value)}
            error={errors.confirmation}
            required
          />
          <Button type="submit" block loading={pending}>
            Reset password
          </Button>
        </form>
      )}
    </Page>
  );
}

/** Signs in with the magic link's code; a new user goes to after-sign-up, others to after-sign-in. */
export function MagicLinkCallbackPage() {
  const code = useCode();
  if (!code) return <MissingCode title="Signing in" />;
  return <MagicLinkCallback code={code} />;
}

function MagicLinkCallback({ code }: { code: string }) {
  const app = useApp();
  const { urls, navigate } = useLatchContext();
  const { search } = usePageLocation();
  const result = useOnce(`magic:${code}`, async () => {
    const signIn = await app.signInWithMagicLink(code);
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

/** Shows the invited team; a signed-in user accepts (signed-out users sign in first and come back). */
export function TeamInvitationPage() {
  const code = useCode();
  if (!code) return <MissingCode title="Team invitation" />;
  return <TeamInvitation code={code} />;
}

function TeamInvitation({ code }: { code: string }) {
  const app = useApp();
  const user = useUser();
  const { urls } = useLatchContext();
  const location = usePageLocation();
  const details = useOnce(`invitation:${code}`, () => app.getTeamInvitationDetails(code));
  const [state, setState] = useState<'idle' | 'pending' | 'accepted' | 'ignored' | { error: string }>('idle');
  useDelayedRedirect(state === 'accepted' ? urls.home : null);

  if (details.status === 'error') {
    return (
      <Page title="Team invitation">
        <Alert kind="error">{details.error.message}</Alert>
      </Page>
    );
  }
  const team = details.data.team_display_name;
  if (!user) {
    const here = currentRelativeUrl(location);
    return (
      <Page title="Team invitation" subtitle={`You are invited to join ${team}.`}>
        <Alert kind="info">Sign in or create an account to accept the invitation.</Alert>
        <div className="latch-row">
          <Link href={withReturnTo(urls.signIn, here)} className="latch-button">
            Sign in
          </Link>
          <Link href={withReturnTo(urls.signUp, here)} className="latch-button latch-button-secondary">
            Sign up
          </Link>
        </div>
      </Page>
    );
  }
  const accept = async () => {
    setState('pending');
    try {
      const result = await app.acceptTeamInvitation(code);
      if (result.status === 'error') return setState({ error: result.error.message });
      await app.selectTeam(result.data.team_id);
      setState('accepted');
    } catch (error) {
      setState({ error: errorMessage(error) });
    }
  };
  return (
    <Page title="Team invitation" subtitle={`You are invited to join ${team}.`}>
      {state === 'accepted' ? (
        <Alert kind="success">
          You joined {team}. <Link href={urls.home}>Continue</Link>
        </Alert>
      ) : state === 'ignored' ? (
        <Alert kind="info">
          Invitation ignored. <Link href={urls.home}>Go home</Link>
        </Alert>
      ) : (
        <>
          {typeof state === 'object' ? <Alert kind="error">{state.error}</Alert> : null}
          <div className="latch-row">
            <Button onClick={accept} loading={state === 'pending'}>
              Join {team}
            </Button>
            <Button variant="secondary" onClick={() => setState('ignored')} disabled={state === 'pending'}>
              Ignore
            </Button>
          </div>
        </>
      )}
    </Page>
  );
}
