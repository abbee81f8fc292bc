/** The password-reset page: the link's `code` goes to check-code, then with the new password to reset. */
import { type FormEvent, useState } from 'react';
import { Alert, Link, NewPasswordFields, NoticePage, Page, SubmitForm, useFormAction, useNewPassword } from '../components/ui.js';
import { useApp, useLatchContext } from '../hooks.js';
import { validateForm, validatePassword, validatePasswordConfirmation } from '../validation.js';
import { CodePage, useDelayedRedirect, useOnce } from './shared.js';

/** Checks the reset code, asks for a new password (twice), resets, then goes to sign-in after 2000 ms. */
export function PasswordResetPage() {
  return <CodePage title="Choose a new password">{(code) => <PasswordReset code={code} />}</CodePage>;
}

function PasswordReset({ code }: { code: string }) {
  const app = useApp();
  const { urls } = useLatchContext();
  const check = useOnce(`reset-check:${code}`, () => app.verifyPasswordResetCode(code));
  const newPassword = useNewPassword();
  const [errors, setErrors] = useState<{ password?: string; confirmation?: string }>({});
  const { pending, formError, runValidated } = useFormAction();
  const [done, setDone] = useState(false);
  useDelayedRedirect(done ? urls.signIn : null);

  if (check.status === 'error') {
    return (
      <NoticePage title="Choose a new password" kind="error" href={urls.forgotPassword} linkLabel="Send a new link">
        {check.error.message}
      </NoticePage>
    );
  }
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found = validateForm({
      password: () => validatePassword(newPassword.password),
      confirmation: () => validatePasswordConfirmation(newPassword.password, newPassword.confirmation),
    });
    await runValidated(found, setErrors, async () => {
      const result = await app.resetPassword({ code, password: newPassword.password });
      if (result.status === 'error') return result;
      setDone(true);
    });
  };
  return (
    <Page title="Choose a new password">
      {done ? (
        <Alert kind="success">
          Your password is reset. Sign in with the new one. <Link href={urls.signIn}>Sign in</Link>
        </Alert>
      ) : (
        <SubmitForm label="Choose a new password" onSubmit={submit} formError={formError} pending={pending} submitLabel="Reset password">
          <NewPasswordFields label="New password" name="password" value={newPassword} errors={errors} required />
        </SubmitForm>
      )}
    </Page>
  );
}
