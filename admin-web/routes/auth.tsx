import { type FormEvent, useState } from 'react';
import { passwordSignUpSchema } from '../../contract/schemas/auth.js';
import { internalApp } from '../api.js';
import { navigate } from '../components/router.js';
import { ErrorMessage, Field, useFormAction } from '../components/ui.js';

/**
 * Owner sign-up and sign-in, on the internal project. The form checks the server's own schema
 * first; what only the server knows (email taken, wrong password, sign-up disabled) comes back
 * as its catalogued message.
 */
export function AuthPage({ mode }: { mode: 'sign-in' | 'sign-up' }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const auth = useFormAction(passwordSignUpSchema, async (input: { email: string; password: string }) => {
    const result = mode === 'sign-up' ? await internalApp.signUpWithPassword(input) : await internalApp.signInWithPassword(input);
    // On success the session changes and the console renders the page that was asked for
    // (a deep link survives signing in); /sign-in and /sign-up themselves go on to /projects.
    if (result.status === 'error') throw result.error;
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void auth.submit({ email, password });
  };

  const switchTo = (next: 'sign-in' | 'sign-up') => {
    auth.clear();
    navigate(next === 'sign-up' ? '/sign-up' : '/sign-in');
  };

  return (
    <div className="auth-screen">
      <div className="card auth-card">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true" /> Latch
        </div>
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
          <p className="muted" style={{ margin: 0 }}>
            {mode === 'sign-up' ? 'Create an owner account to manage your projects.' : 'Sign in to manage your projects.'}
          </p>
          <Field label="Email" error={auth.errors.email}>
            {(props) => <input {...props} type="email" autoComplete="email" value={email} onChange={(event) => setEmail(event.target.value)} autoFocus />}
          </Field>
          <Field label="Password" error={auth.errors.password} hint={mode === 'sign-up' ? 'At least 8 characters.' : undefined}>
            {(props) => (
              <input
                {...props}
                type="password"
                autoComplete={mode === 'sign-up' ? 'new-password' : 'current-password'}
                value={password}
                onChange={(event) => setPassword(event.target.value)}
              />
            )}
          </Field>
          <ErrorMessage error={auth.error} title={mode === 'sign-up' ? 'Could not create the account' : 'Could not sign in'} />
          <button type="submit" className="button primary" disabled={auth.pending}>
            {auth.pending ? 'Please wait…' : mode === 'sign-up' ? 'Create account' : 'Sign in'}
          </button>
        </form>
      </div>
    </div>
  );
}
