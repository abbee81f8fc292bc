/**
 * Sign-in and sign-up: email + password, and magic link / one-time code, showing only the methods
 * the project enables (read from `GET /projects/current`). Each form checks its fields with the
 * spec's messages before calling the SDK, shows the server's message when it refuses, and on
 * success goes to `after_auth_return_to` or the after-sign-in / after-sign-up page.
 */
import { type FormEvent, type ReactNode, useEffect, useRef, useState } from 'react';
import { KnownErrors } from '../../sdk/index.js';
import { useApp, useContinueToMfa, useLatchContext, useProject, useUser } from '../hooks.js';
import { absoluteUrl, usePageLocation } from '../location.js';
import { afterAuthUrl, readReturnTo, withReturnTo } from '../urls.js';
import { validateEmail, validateForm, validateOneTimeCode, validatePassword, validatePasswordConfirmation } from '../validation.js';
import { OAuthButtons } from './oauth-buttons.js';
import { Alert, Button, CurrentPasswordField, EmailField, Field, Link, NewPasswordFields, Page, SubmitForm, useFormAction, useNewPassword } from './ui.js';
import { useRunAsync } from '../async-errors.js';

type Kind = 'sign-in' | 'sign-up';

/** Navigates after a successful sign-in or sign-up; with redirect method 'none', says where to go instead. */
function useFinishAuth(kind: Kind) {
  const { urls, navigate } = useLatchContext();
  const { search } = usePageLocation();
  const [manual, setManual] = useState<string | null>(null);
  const finish = async (isNewUser: boolean) => {
    const to = afterAuthUrl(isNewUser ? 'sign-up' : kind === 'sign-up' ? 'sign-up' : 'sign-in', urls, search);
    if (!(await navigate(to))) setManual(to);
  };
  return { finish, manual };
}

/**
 * Runs a first factor's sign-in; when the user has MFA on (MultiFactorAuthenticationRequired) it
 * keeps the attempt code in session storage and goes to the mfa route, keeping the return
 * location (spec section 2). Resolves to undefined then.
 */
export function useMfaRedirect() {
  const continueToMfa = useContinueToMfa();
  const { search } = usePageLocation();
  return async <T,>(signIn: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await signIn();
    } catch (error) {
      if (!(error instanceof KnownErrors.MultiFactorAuthenticationRequired)) throw error;
      await continueToMfa(error.details.attempt_code, readReturnTo(search));
      return undefined;
    }
  };
}

function Done({ to }: { to: string }) {
  return (
    <Alert kind="success">
      You are signed in. <Link href={to}>Continue</Link>
    </Alert>
  );
}

/**
 * Email + password sign-in, on its own (without the page around it).
 *
 * @example
 * <PasswordSignInForm />
 */
export function PasswordSignInForm() {
  const app = useApp();
  const withMfa = useMfaRedirect();
  const passkeys = useProject().config.passkey_enabled;
  const { finish, manual } = useFinishAuth('sign-in');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<{ email?: string; password?: string }>({});
  const { pending, formError, runValidated } = useFormAction();
  if (manual) return <Done to={manual} />;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const trimmed = email.trim();
    const found = validateForm({ email: () => validateEmail(trimmed), password: () => validatePassword(password) });
    await runValidated(found, setErrors, async () => {
      const result = await withMfa(() => app.signInWithPassword({ email: trimmed, password }));
      if (result?.status === 'error') return result;
      if (result) await finish(result.data.is_new_user);
      return undefined;
    });
  };

  return (
    <SubmitForm label="Sign in with email and password" onSubmit={submit} formError={formError} pending={pending} submitLabel="Sign in">
      {/* With passkeys on, the browser offers them in this field's autofill (PasskeySignIn starts the request). */}
      <EmailField value={email} onValue={setEmail} error={errors.email} required autoComplete={passkeys ? 'username webauthn' : 'email'} />
      <CurrentPasswordField label="Password" name="password" value={password} onValue={setPassword} error={errors.password} required />
    </SubmitForm>
  );
}

/**
 * Email + password + confirmation sign-up; the verification email links back with the return location.
 *
 * @example
 * <PasswordSignUpForm />
 */
export function PasswordSignUpForm() {
  const app = useApp();
  const { urls } = useLatchContext();
  const { search } = usePageLocation();
  const withMfa = useMfaRedirect();
  const { finish, manual } = useFinishAuth('sign-up');
  const [email, setEmail] = useState('');
  const newPassword = useNewPassword();
  const [errors, setErrors] = useState<{ email?: string; password?: string; confirmation?: string }>({});
  const { pending, formError, runValidated } = useFormAction();
  if (manual) return <Done to={manual} />;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const trimmed = email.trim();
    const found = validateForm({
      email: () => validateEmail(trimmed),
      password: () => validatePassword(newPassword.password),
      confirmation: () => validatePasswordConfirmation(newPassword.password, newPassword.confirmation),
    });
    await runValidated(found, setErrors, async () => {
      // An anonymous user with MFA on is upgraded, then asked for the second factor.
      const result = await withMfa(() =>
        app.signUpWithPassword({
          email: trimmed,
          password: newPassword.password,
          verification_callback_url: absoluteUrl(withReturnTo(urls.emailVerification, readReturnTo(search))),
        }),
      );
      if (result?.status === 'error') return result;
      if (result) await finish(true);
      return undefined;
    });
  };

  return (
    <SubmitForm label="Sign up with email and password" onSubmit={submit} formError={formError} pending={pending} submitLabel="Sign up">
      <EmailField value={email} onValue={setEmail} error={errors.email} required />
      <NewPasswordFields label="Password" name="password" value={newPassword} errors={errors} required />
    </SubmitForm>
  );
}

/**
 * Magic link and one-time code: emails a link and a 6-character code; the user follows the link
 * (the magic-link-callback page) or types the code here. A new address gets an account when the
 * project allows sign-up, so this form serves sign-in and sign-up alike.
 *
 * @example
 * <MagicLinkForm kind="sign-in" />
 */
export function MagicLinkForm({ kind }: { kind: Kind }) {
  const app = useApp();
  const { urls } = useLatchContext();
  const { search } = usePageLocation();
  const withMfa = useMfaRedirect();
  const { finish, manual } = useFinishAuth(kind);
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState<{ email: string; nonce: string } | null>(null);
  const [code, setCode] = useState('');
  const [fieldError, setFieldError] = useState<string | null>(null);
  const { pending, formError, setFormError, run, runChecked } = useFormAction();
  if (manual) return <Done to={manual} />;

  const send = async (event: FormEvent) => {
    event.preventDefault();
    const trimmed = email.trim();
    await runChecked(validateEmail(trimmed), setFieldError, async () => {
      const result = await app.sendMagicLinkEmail(trimmed, { callbackUrl: absoluteUrl(withReturnTo(urls.magicLinkCallback, readReturnTo(search))) });
      if (result.status === 'error') return result;
      setSent({ email: trimmed, nonce: result.data.nonce });
    });
  };

  const verify = async (event: FormEvent) => {
    event.preventDefault();
    const invalid = validateOneTimeCode(code);
    setFieldError(invalid);
    setFormError(null);
    if (invalid || !sent) return;
    await run(async () => {
      // Codes are upper-case letters and digits: accept what people type (lower case, spaces, a dash).
      const result = await withMfa(() => app.signInWithMagicLink(code.replace(/[\s-]/g, '').toUpperCase(), { nonce: sent.nonce }));
      if (result?.status === 'error') return result;
      if (result) await finish(result.data.is_new_user);
      return undefined;
    });
  };

  if (sent) {
    return (
      <SubmitForm
        label="Enter the code from the email"
        onSubmit={verify}
        formError={formError}
        pending={pending}
        submitLabel={kind === 'sign-up' ? 'Sign up' : 'Sign in'}
        notice={
          <Alert kind="info">
            We sent a sign-in link and a code to <strong>{sent.email}</strong>. Follow the link, or type the code here.
          </Alert>
        }
        extra={
          <Button variant="secondary" block onClick={() => (setSent(null), setCode(''), setFormError(null))}>
            Use another email
          </Button>
        }
      >
        <Field
          label="Code"
          name="code"
          autoComplete="one-time-code"
          // The send button this replaces had focus: put it where the next step is.
          autoFocus
          inputMode="text"
          maxLength={8}
          value={code}
          onChange={(e) => setCode(e.target.value)}
          error={fieldError}
          required
        />
      </SubmitForm>
    );
  }
  return (
    <SubmitForm label="Get a sign-in link by email" onSubmit={send} formError={formError} pending={pending} submitLabel="Email me a link">
      <EmailField value={email} onValue={setEmail} error={fieldError} required />
    </SubmitForm>
  );
}

/** Two methods on one card: tabs with the ARIA tabs pattern (arrow keys move between them). */
function MethodTabs({ tabs }: { tabs: { id: string; label: string; content: ReactNode }[] }) {
  const [selected, setSelected] = useState(tabs[0]?.id ?? '');
  if (tabs.length === 1) return <>{tabs[0]?.content}</>;
  const move = (delta: number) => {
    const index = tabs.findIndex((tab) => tab.id === selected);
    const next = tabs[(index + delta + tabs.length) % tabs.length];
    if (next) {
      setSelected(next.id);
      document.getElementById(`latch-tab-${next.id}`)?.focus();
    }
  };
  return (
    <>
      <div className="latch-tabs" role="tablist" aria-label="Sign-in method">
        {tabs.map((tab) => (
          <button
            key={tab.id}
            type="button"
            role="tab"
            className="latch-tab"
            id={`latch-tab-${tab.id}`}
            aria-selected={tab.id === selected}
            aria-controls={`latch-tabpanel-${tab.id}`}
            tabIndex={tab.id === selected ? 0 : -1}
            onClick={() => setSelected(tab.id)}
            onKeyDown={(e) => {
              if (e.key === 'ArrowRight') move(1);
              if (e.key === 'ArrowLeft') move(-1);
            }}
          >
            {tab.label}
          </button>
        ))}
      </div>
      {tabs.map((tab) =>
        tab.id === selected ? (
          <div key={tab.id} role="tabpanel" id={`latch-tabpanel-${tab.id}`} aria-labelledby={`latch-tab-${tab.id}`}>
            {tab.content}
          </div>
        ) : null,
      )}
    </>
  );
}

/** The passkey sign-in's outcome: signed in, sent to the mfa page, or a message to show (null: nothing to say). */
function usePasskeySignIn() {
  const app = useApp();
  const continueToMfa = useContinueToMfa();
  const { search } = usePageLocation();
  const { finish, manual } = useFinishAuth('sign-in');
  /** Resolves to the message to show, null for none, or 'done' once the visitor is signed in (or sent on to the mfa page). */
  const signIn = async (autofill: boolean): Promise<string | null | 'done'> => {
    const result = await app.signInWithPasskey({ autofill });
    if (result.status === 'ok') {
      await finish(result.data.is_new_user);
      return 'done';
    }
    const error = result.error;
    if (error instanceof KnownErrors.MultiFactorAuthenticationRequired) {
      await continueToMfa(error.details.attempt_code, readReturnTo(search));
      return 'done';
    }
    // A pending autofill request is aborted whenever another passkey request starts: not a failure.
    if (error instanceof KnownErrors.PasskeyWebAuthnError && error.details.code === 'ERROR_CEREMONY_ABORTED' && autofill) return null;
    return error.message;
  };
  return { signIn, manual };
}

/** How often a waiting autofill request is renewed: its challenge lives 120 s on the server. */
const PASSKEY_AUTOFILL_RENEW_MS = 100_000;

/**
 * Passkey sign-in (when the project has passkeys on): a "Sign in with a passkey" button, and the
 * browser's autofill, which offers the user's passkeys in the email field (its autocomplete is
 * "username webauthn") while the page is open.
 *
 * @example
 * <PasskeySignIn />
 */
export function PasskeySignIn() {
  const app = useApp();
  const { signIn, manual } = usePasskeySignIn();
  const runAsync = useRunAsync();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const live = useRef(true);
  const done = useRef(false);

  const startAutofill = useRef<() => void>(() => undefined);
  startAutofill.current = () => {
    if (done.current || !document.querySelector("input[autocomplete$='webauthn']")) return;
    runAsync(async () => {
      const supported = await app.passkeyAutofillSupported();
      if (!supported || !live.current || done.current) return;
      const outcome = await signIn(true);
      if (outcome === 'done') done.current = true;
      else if (outcome && live.current) setError(outcome);
    });
  };

  useEffect(() => {
    live.current = true;
    startAutofill.current();
    const renew = setInterval(() => startAutofill.current(), PASSKEY_AUTOFILL_RENEW_MS);
    return () => {
      live.current = false;
      clearInterval(renew);
      app.cancelPasskeyRequest();
    };
  }, [app]);

  if (manual) return <Done to={manual} />;
  const click = async () => {
    setError(null);
    setPending(true);
    try {
      const outcome = await signIn(false);
      if (outcome === 'done') done.current = true;
      else if (live.current) setError(outcome);
    } finally {
      if (live.current) setPending(false);
    }
    // The button's request replaced the autofill one: offer autofill again (unless signed in).
    if (live.current && !done.current) startAutofill.current();
  };
  return (
    <div className="latch-passkey">
      <div className="latch-divider">or</div>
      {error ? <Alert kind="error">{error}</Alert> : null}
      <Button variant="secondary" block loading={pending} onClick={() => void click()}>
        Sign in with a passkey
      </Button>
    </div>
  );
}

function AlreadySignedIn() {
  const { urls } = useLatchContext();
  return (
    <Alert kind="info">
      You are already signed in. <Link href={urls.home}>Go home</Link> or <Link href={urls.signOut}>sign out</Link>.
    </Alert>
  );
}

/** What the sign-in and sign-up pages share: the project, the visitor, and the tabs of the enabled methods. */
function useAuthPage(kind: 'sign-in' | 'sign-up') {
  const project = useProject();
  const user = useUser();
  const { urls } = useLatchContext();
  const { search } = usePageLocation();
  const returnTo = readReturnTo(search);
  const { config } = project;
  const tabs = [
    ...(config.credential_enabled
      ? [{ id: 'password', label: 'Email & password', content: kind === 'sign-in' ? <PasswordSignInForm /> : <PasswordSignUpForm /> }]
      : []),
    ...(config.magic_link_enabled ? [{ id: 'email-code', label: 'Email link or code', content: <MagicLinkForm kind={kind} /> }] : []),
  ];
  return { project, user, urls, returnTo, config, tabs };
}

/** The provider buttons, and a divider before the other methods when there are both. */
function OAuthSection({ kind, hasOtherMethods }: { kind: Kind; hasOtherMethods: boolean }) {
  const project = useProject();
  if (project.config.enabled_oauth_providers.length === 0) return null;
  return (
    <>
      <OAuthButtons kind={kind} />
      {hasOtherMethods ? (
        <div className="latch-divider" role="separator">
          <span>or</span>
        </div>
      ) : null}
    </>
  );
}

/**
 * The sign-in page: the project's enabled methods, links to sign-up and forgot-password that
 * keep `after_auth_return_to`.
 *
 * @example
 * <SignIn /> // or let <LatchHandler /> serve it at /handler/sign-in
 */
export function SignIn() {
  const { project, user, urls, returnTo, config, tabs } = useAuthPage('sign-in');
  return (
    <Page title="Sign in" subtitle={`to ${project.display_name}`}>
      {user ? <AlreadySignedIn /> : null}
      <OAuthSection kind="sign-in" hasOtherMethods={tabs.length > 0 || config.passkey_enabled} />
      {tabs.length ? (
        <MethodTabs tabs={tabs} />
      ) : config.passkey_enabled || config.enabled_oauth_providers.length ? null : (
        <Alert kind="info">No sign-in method is enabled for this project.</Alert>
      )}
      {config.passkey_enabled && !user ? <PasskeySignIn /> : null}
      <div className="latch-footer">
        {config.credential_enabled ? <Link href={withReturnTo(urls.forgotPassword, returnTo)}>Forgot password?</Link> : null}
        {config.sign_up_enabled ? (
          <span>
            Don&apos;t have an account? <Link href={withReturnTo(urls.signUp, returnTo)}>Sign up</Link>
          </span>
        ) : null}
      </div>
    </Page>
  );
}

/**
 * The sign-up page: email + password with confirmation, and magic link when enabled; a clear
 * message when the project has sign-up turned off.
 *
 * @example
 * <SignUp /> // or let <LatchHandler /> serve it at /handler/sign-up
 */
export function SignUp() {
  const { project, user, urls, returnTo, config, tabs } = useAuthPage('sign-up');
  return (
    <Page title="Create an account" subtitle={`for ${project.display_name}`}>
      {user ? <AlreadySignedIn /> : null}
      {!config.sign_up_enabled ? (
        <Alert kind="info">Sign-up is not enabled for this project.</Alert>
      ) : tabs.length || config.enabled_oauth_providers.length ? (
        <>
          <OAuthSection kind="sign-up" hasOtherMethods={tabs.length > 0} />
          {tabs.length ? <MethodTabs tabs={tabs} /> : null}
        </>
      ) : (
        <Alert kind="info">No sign-up method is enabled for this project.</Alert>
      )}
      <div className="latch-footer">
        <span>
          Already have an account? <Link href={withReturnTo(urls.signIn, returnTo)}>Sign in</Link>
        </span>
      </div>
    </Page>
  );
}
