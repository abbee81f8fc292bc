/** The forgot-password page. */
import { type FormEvent, useState } from 'react';
import { Alert, EmailField, Link, Page, SubmitForm, useFormAction } from '../components/ui.js';
import { useApp, useLatchContext, useProject } from '../hooks.js';
import { absoluteUrl, usePageLocation } from '../location.js';
import { readReturnTo, withReturnTo } from '../urls.js';
import { validateEmail } from '../validation.js';
import { NotEnabled } from './shared.js';

/** Emails a password-reset link to the password-reset page. */
export function ForgotPasswordPage() {
  const app = useApp();
  const project = useProject();
  const { urls } = useLatchContext();
  const { search } = usePageLocation();
  const [email, setEmail] = useState('');
  const [fieldError, setFieldError] = useState<string | null>(null);
  const { pending, formError, runChecked } = useFormAction();
  const [sentTo, setSentTo] = useState<string | null>(null);
  if (!project.config.credential_enabled) return <NotEnabled title="Reset your password" feature="Password sign-in" />;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const trimmed = email.trim();
    await runChecked(validateEmail(trimmed), setFieldError, async () => {
      const result = await app.sendForgotPasswordEmail(trimmed, { callbackUrl: absoluteUrl(urls.passwordReset) });
      if (result.status === 'error') return result;
      setSentTo(trimmed);
    });
  };
  return (
    <Page title="Reset your password" subtitle="We will email you a link to choose a new password.">
      {sentTo ? (
        <Alert kind="success">
          If an account uses <strong>{sentTo}</strong>, a link to reset its password is on its way. Check your inbox.
        </Alert>
      ) : (
        <SubmitForm label="Send a password reset link" onSubmit={submit} formError={formError} pending={pending} submitLabel="Send reset link">
          <EmailField value={email} onValue={setEmail} error={fieldError} required />
        </SubmitForm>
      )}
      <div className="latch-footer">
        <Link href={withReturnTo(urls.signIn, readReturnTo(search))}>Back to sign in</Link>
      </div>
    </Page>
  );
}
