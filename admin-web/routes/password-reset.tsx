import { type FormEvent, useState } from 'react';
import { z } from 'zod';
import { internalApp } from '../api.js';
import { Link } from '../components/router.js';
import { ErrorMessage, Field, useFormAction } from '../components/ui.js';

/** A new password and its repetition; the length rules are the server's (PASSWORD_TOO_SHORT / _LONG come back with their limits). */
export const newPasswordSchema = z
  .object({ password: z.string().min(1, 'Enter a new password.'), confirmation: z.string() })
  .refine((value) => value.password === value.confirmation, { path: ['confirmation'], message: 'Passwords do not match.' });

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
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void reset.submit({ password, confirmation });
  };
  return (
    <div className="auth-screen">
      <div className="card auth-card">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true" /> Latch
        </div>
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
          <form className="form" onSubmit={submit} noValidate>
            <Field label="New password" error={reset.errors.password}>
              {(props) => (
                <input
                  {...props}
                  type="password"
                  autoComplete="new-password"
                  value={password}
                  onChange={(event) => setPassword(event.target.value)}
                  autoFocus
                />
              )}
            </Field>
            <Field label="Repeat new password" error={reset.errors.confirmation}>
              {(props) => (
                <input {...props} type="password" autoComplete="new-password" value={confirmation} onChange={(event) => setConfirmation(event.target.value)} />
              )}
            </Field>
            <ErrorMessage error={reset.error} title="Could not reset the password" />
            <button type="submit" className="button primary" disabled={reset.pending}>
              {reset.pending ? 'Saving…' : 'Set new password'}
            </button>
          </form>
        )}
      </div>
    </div>
  );
}
