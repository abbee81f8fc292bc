import { useState } from 'react';
import { z } from 'zod';
import { internalApp } from '../api.js';
import { Link } from '../components/router.js';
import { ErrorMessage, TextField, useFormAction } from '../components/ui.js';
import { AuthForm, AuthFrame, AuthSubmit } from './auth.js';

/** A new password and its repetition; the length rules are the server's (PASSWORD_TOO_SHORT / _LONG come back with their limits). */
export const newPasswordSchema = z
  .object({ password: z.string().min(1, 'Enter a new password.'), confirmation: z.string() })
  .refine((value) => value.password === value.confirmation, { path: ['confirmation'], message: 'Passwords do not match.' });

/** A new password and its repetition (newPasswordSchema's fields), each with its error. */
export function NewPasswordFields({
  errors,
  password,
  onPassword,
  confirmation,
  onConfirmation,
  autoFocus,
}: {
  errors: Record<string, string>;
  password: string;
  onPassword: (value: string) => void;
  confirmation: string;
  onConfirmation: (value: string) => void;
  autoFocus?: boolean;
}) {
  return (
    <>
      <TextField
        label="New password"
        error={errors.password}
        type="password"
        autoComplete="new-password"
        value={password}
        onValue={onPassword}
        autoFocus={autoFocus}
      />
      <TextField
        label="Repeat new password"
        error={errors.confirmation}
        type="password"
        autoComplete="new-password"
        value={confirmation}
        onValue={onConfirmation}
      />
    </>
  );
}

/**
 * Where the emailed reset link of an owner lands (`/password-reset?code=…`), signed in or not: a
 * new password for the internal-project account. Every session of that owner ends, so they sign in
 * again with it.
 */
export function PasswordResetPage() {
  const code = new URLSearchParams(window.location.search).get('code') ?? '';
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [done, setDone] = useState(false);
  const reset = useFormAction(newPasswordSchema, async (input: { password: string; confirmation: string }) => {
    const result = await internalApp.resetPassword({ code, password: input.password });
    if (result.status === 'error') throw result.error;
    setDone(true);
  });
  return (
    <AuthFrame>
      <h1 style={{ fontSize: '1.1rem', marginTop: 0 }}>Choose a new password</h1>
      {done ? (
        <div className="stack">
          <div className="alert alert-ok" role="status">
            Your password is changed. Sign in with it.
          </div>
          <a className="button primary" href="/sign-in">
            Sign in
          </a>
        </div>
      ) : !code ? (
        <div className="stack">
          <ErrorMessage error={new Error('This link has no reset code. Open the link from the email again.')} title="Broken link" />
          <Link href="/sign-in">Back to sign-in</Link>
        </div>
      ) : (
        <AuthForm onSubmit={() => void reset.submit({ password, confirmation })}>
          <NewPasswordFields
            errors={reset.errors}
            password={password}
            onPassword={setPassword}
            confirmation={confirmation}
            onConfirmation={setConfirmation}
            autoFocus
          />
          <AuthSubmit action={reset} errorTitle="Could not reset the password" label="Set new password" pendingLabel="Saving…" />
        </AuthForm>
      )}
    </AuthFrame>
  );
}
