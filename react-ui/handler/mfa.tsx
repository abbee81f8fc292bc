/**
 * The multi-factor page: a first factor answered MULTI_FACTOR_AUTHENTICATION_REQUIRED, the form
 * stored its attempt code in session storage (key ending in `mfa_attempt_code`) and came here.
 * The user types the code from their authenticator, or one of their recovery codes; the
 * first step's newUser flag picks after-sign-up or after-sign-in (spec section 2).
 */
import { type FormEvent, useState } from 'react';
import { KnownErrors } from '../../sdk/index.js';
import { Alert, Button, Field, Link, NoticePage, Page, SubmitForm, TotpCodeField, useFormAction } from '../components/ui.js';
import { useApp, useLatchContext } from '../hooks.js';
import { usePageLocation } from '../location.js';
import { afterAuthUrl, mfaAttemptCodeKey } from '../urls.js';

/** The attempt code is over for good (used, expired, out of tries): only a new sign-in helps. */
const ATTEMPT_OVER = [
  KnownErrors.VerificationCodeNotFound,
  KnownErrors.VerificationCodeExpired,
  KnownErrors.VerificationCodeAlreadyUsed,
  KnownErrors.VerificationCodeMaxAttemptsReached,
];

/** Reads the stored attempt code (null outside a browser or when none is waiting). */
function storedAttemptCode(projectId: string): string | null {
  try {
    return sessionStorage.getItem(mfaAttemptCodeKey(projectId));
  } catch {
    return null;
  }
}

/** Asks for the second factor and finishes the sign-in. */
export function MfaPage() {
  const app = useApp();
  const { urls, navigate } = useLatchContext();
  const { search } = usePageLocation();
  const [attemptCode, setAttemptCode] = useState(() => storedAttemptCode(app.projectId));
  const [useRecovery, setUseRecovery] = useState(false);
  const [code, setCode] = useState('');
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const { pending, formError, setFormError, run } = useFormAction();

  if (done) {
    return (
      <Page title="Two-factor authentication">
        <Alert kind="success">
          You are signed in. <Link href={done}>Continue</Link>
        </Alert>
      </Page>
    );
  }
  if (!attemptCode) {
    return (
      <NoticePage title="Two-factor authentication" kind="info" href={urls.signIn} linkLabel="Back to sign in">
        No sign-in is waiting for a second factor. Sign in first.
      </NoticePage>
    );
  }

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const typed = useRecovery ? code.trim() : code.replace(/\s/g, '');
    const invalid = useRecovery
      ? typed
        ? null
        : 'Enter one of your recovery codes.'
      : /^\d{6}$/.test(typed)
        ? null
        : 'Enter the 6-digit code from your authenticator app.';
    setFieldError(invalid);
    setFormError(null);
    if (invalid) return;
    await run(async () => {
      const result = await app.signInWithMfa(useRecovery ? { attemptCode, recoveryCode: typed } : { attemptCode, totp: typed });
      if (result.status === 'error') {
        if (ATTEMPT_OVER.some((cls) => result.error instanceof cls)) {
          sessionStorage.removeItem(mfaAttemptCodeKey(app.projectId));
          setAttemptCode(null);
        }
        return result;
      }
      sessionStorage.removeItem(mfaAttemptCodeKey(app.projectId));
      const to = afterAuthUrl(result.data.is_new_user ? 'sign-up' : 'sign-in', urls, search);
      if (!(await navigate(to))) setDone(to);
      return undefined;
    });
  };

  return (
    <Page
      title="Two-factor authentication"
      subtitle={useRecovery ? 'Enter one of the recovery codes you saved.' : 'Enter the 6-digit code from your authenticator app.'}
    >
      <SubmitForm
        label="Two-factor authentication"
        onSubmit={submit}
        formError={formError}
        pending={pending}
        submitLabel="Verify"
        extra={
          <Button variant="secondary" block onClick={() => (setUseRecovery(!useRecovery), setCode(''), setFieldError(null), setFormError(null))}>
            {useRecovery ? 'Use your authenticator app' : 'Use a recovery code'}
          </Button>
        }
      >
        {useRecovery ? (
          <Field
            label="Recovery code"
            name="recovery-code"
            autoComplete="off"
            value={code}
            onChange={(e) => setCode(e.target.value)}
            error={fieldError ?? undefined}
          />
        ) : (
          <TotpCodeField label="Authentication code" value={code} onValue={setCode} error={fieldError} />
        )}
      </SubmitForm>
      <div className="latch-footer">
        <Link href={urls.signIn}>Back to sign in</Link>
      </div>
    </Page>
  );
}
