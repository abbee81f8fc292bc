import { type FormEvent, type ReactNode, useState } from 'react';
import { z } from 'zod';
import { passwordSignUpSchema } from '../../contract/schemas/auth.js';
import { emailSchema } from '../../contract/validation/schemas.js';
import { KnownErrors } from '../../sdk/index.js';
import { internalApp } from '../api.js';
import { navigate } from '../components/router.js';
import { type Action, CodeField, ErrorMessage, TextField, useFormAction } from '../components/ui.js';

/** The console's own page that takes the emailed reset code (routes/password-reset.tsx). */
export const PASSWORD_RESET_PATH = '/password-reset';

const forgotSchema = z.object({ email: emailSchema });
const totpSchema = z.object({ code: z.string().trim().min(1, 'Enter the code from your authenticator app, or a recovery code.') });

export function AuthFrame({ children }: { children: ReactNode }) {
  return (
    <div className="auth-screen">
      <div className="card auth-card">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true" /> Latch
        </div>
        {children}
      </div>
    </div>
  );
}

/** An auth screen's form: submitting runs `onSubmit` in the page (the server's schema checks the fields, not the browser). */
export function AuthForm({ onSubmit, children }: { onSubmit: () => void; children: ReactNode }) {
  return (
    <form
      className="form"
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
      noValidate
    >
      {children}
    </form>
  );
}

/** An auth form's submit: the action's error above the button, which says `pendingLabel` while the action runs. */
export function AuthSubmit({
  action,
  errorTitle,
  label,
  pendingLabel,
}: {
  action: Action & { pending: boolean };
  errorTitle: string;
  label: string;
  pendingLabel: string;
}) {
  return (
    <>
      <ErrorMessage error={action.error} title={errorTitle} />
      <button type="submit" className="button primary" disabled={action.pending}>
        {action.pending ? pendingLabel : label}
      </button>
    </>
  );
}

function BackToSignIn({ onClick }: { onClick: () => void }) {
  return (
    <button type="button" className="button link" onClick={onClick}>
      Back to sign-in
    </button>
  );
}

/**
 * Owner sign-up and sign-in, on the internal project. The form checks the server's own schema
 * first; what only the server knows (email taken, wrong password, sign-up disabled) comes back
 * as its catalogued message. An owner with two-factor authentication is asked for the code next;
 * a forgotten password is reset through an emailed link to this console's /password-reset page.
 */
export function AuthPage({ mode, notice }: { mode: 'sign-in' | 'sign-up'; notice?: ReactNode }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [forgot, setForgot] = useState(false);
  const [attemptCode, setAttemptCode] = useState<string | null>(null);
  const auth = useFormAction(passwordSignUpSchema, async (input: { email: string; password: string }) => {
    try {
      const result = mode === 'sign-up' ? await internalApp.signUpWithPassword(input) : await internalApp.signInWithPassword(input);
      // On success the session changes and the console renders the page that was asked for
      // (a deep link survives signing in); /sign-in and /sign-up themselves go on to /projects.
      if (result.status === 'error') throw result.error;
    } catch (error) {
      if (error instanceof KnownErrors.MultiFactorAuthenticationRequired) {
        setAttemptCode(error.details.attempt_code);
        return;
      }
      throw error;
    }
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void auth.submit({ email, password });
  };

  const switchTo = (next: 'sign-in' | 'sign-up') => {
    auth.clear();
    setForgot(false);
    navigate(next === 'sign-up' ? '/sign-up' : '/sign-in');
  };

  if (attemptCode) return <MfaStep attemptCode={attemptCode} onCancel={() => setAttemptCode(null)} />;
  if (forgot) return <ForgotPassword initialEmail={email} onBack={() => setForgot(false)} />;

  return (
    <AuthFrame>
      <div className="tabs" role="tablist" aria-label="Account">
        <button type="button" role="tab" className="tab" aria-selected={mode === 'sign-in'} onClick={() => switchTo('sign-in')}>
          Sign in
        </button>
        <button type="button" role="tab" className="tab" aria-selected={mode === 'sign-up'} onClick={() => switchTo('sign-up')}>
          Create account
        </button>
      </div>
      <form className="form" onSubmit={submit} noValidate>
        <h1 className="visually-hidden">{mode === 'sign-up' ? 'Create your owner account' : 'Sign in to Latch'}</h1>
        {notice}
        <p className="muted" style={{ margin: 0 }}>
          {mode === 'sign-up' ? 'Create an owner account to manage your projects.' : 'Sign in to manage your projects.'}
        </p>
        <TextField label="Email" error={auth.errors.email} type="email" autoComplete="email" value={email} onValue={setEmail} autoFocus />
        <TextField
          label="Password"
          error={auth.errors.password}
          hint={mode === 'sign-up' ? 'At least 8 characters.' : undefined}
          type="password"
          autoComplete={mode === 'sign-up' ? 'new-password' : 'current-password'}
          value={password}
          onValue={setPassword}
        />
        <AuthSubmit
          action={auth}
          errorTitle={mode === 'sign-up' ? 'Could not create the account' : 'Could not sign in'}
          label={mode === 'sign-up' ? 'Create account' : 'Sign in'}
          pendingLabel="Please wait…"
        />
        {mode === 'sign-in' ? (
          <button
            type="button"
            className="button link"
            onClick={() => {
              auth.clear();
              setForgot(true);
            }}
          >
            Forgot your password?
          </button>
        ) : null}
      </form>
    </AuthFrame>
  );
}

/** The second step of a sign-in for an owner with two-factor authentication. */
function MfaStep({ attemptCode, onCancel }: { attemptCode: string; onCancel: () => void }) {
  const [code, setCode] = useState('');
  const verify = useFormAction(totpSchema, async (input: { code: string }) => {
    const value = input.code.replace(/\s+/g, '');
    // Six digits is a TOTP code; anything else is taken as a recovery code.
    const result = /^\d{6}$/.test(value)
      ? await internalApp.signInWithMfa({ attemptCode, totp: value })
      : await internalApp.signInWithMfa({ attemptCode, recoveryCode: input.code.trim() });
    if (result.status === 'error') throw result.error;
  });
  return (
    <AuthFrame>
      <AuthForm onSubmit={() => void verify.submit({ code })}>
        <h1 style={{ fontSize: '1.1rem', margin: 0 }}>Two-factor authentication</h1>
        <p className="muted" style={{ margin: 0 }}>
          Enter the 6-digit code from your authenticator app, or one of your recovery codes.
        </p>
        <CodeField label="Code" error={verify.errors.code} value={code} onValue={setCode} autoFocus />
        <AuthSubmit action={verify} errorTitle="Could not sign in" label="Verify" pendingLabel="Checking…" />
        <BackToSignIn onClick={onCancel} />
      </AuthForm>
    </AuthFrame>
  );
}

/** Emails a reset link to this console's /password-reset page (the same answer whether or not the address has an account). */
function ForgotPassword({ initialEmail, onBack }: { initialEmail: string; onBack: () => void }) {
  const [email, setEmail] = useState(initialEmail);
  const [sentTo, setSentTo] = useState<string | null>(null);
  const send = useFormAction(forgotSchema, async (input: { email: string }) => {
    const result = await internalApp.sendForgotPasswordEmail(input.email, { callbackUrl: `${window.location.origin}${PASSWORD_RESET_PATH}` });
    if (result.status === 'error') throw result.error;
    setSentTo(input.email);
  });
  return (
    <AuthFrame>
      <AuthForm
        onSubmit={() => {
          setSentTo(null);
          void send.submit({ email: email.trim() });
        }}
      >
        <h1 style={{ fontSize: '1.1rem', margin: 0 }}>Reset your password</h1>
        <p className="muted" style={{ margin: 0 }}>
          We email you a link to choose a new password.
        </p>
        <TextField label="Email" error={send.errors.email} type="email" autoComplete="email" value={email} onValue={setEmail} autoFocus />
        {sentTo ? (
          <div className="alert alert-ok" role="status">
            If {sentTo} has an owner account, a reset link is on its way. It works for a limited time.
          </div>
        ) : null}
        <AuthSubmit action={send} errorTitle="Could not send the email" label="Send reset link" pendingLabel="Sending…" />
        <BackToSignIn onClick={onBack} />
      </AuthForm>
    </AuthFrame>
  );
}
