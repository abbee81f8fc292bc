/**
 * The kit's building blocks: a themed root, cards, labelled fields with their error text wired
 * for screen readers, buttons with a loading state, alerts that are announced, and links that
 * navigate with the provider's redirect method.
 */
import {
  type AnchorHTMLAttributes,
  type ButtonHTMLAttributes,
  type FormEvent,
  type InputHTMLAttributes,
  type MouseEvent,
  type ReactElement,
  type ReactNode,
  cloneElement,
  useEffect,
  useId,
  useRef,
  useState,
} from 'react';
import { useLatchContext } from '../hooks.js';
import { useRunAsync } from '../async-errors.js';

/** The scope of the kit's styles and theme variables. */
export function LatchRoot({ children, className }: { children: ReactNode; className?: string }) {
  const { theme } = useLatchContext();
  return (
    <div className={`latch-root${className ? ` ${className}` : ''}`} data-latch-theme={theme}>
      {children}
    </div>
  );
}

/** A centred card on a page, the frame of every handler page. */
export function Page({ title, subtitle, wide, children }: { title: string; subtitle?: ReactNode; wide?: boolean; children?: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    // After a client-side page change the focused link is gone and focus falls back to <body>:
    // move it to the new page's title, so keyboard and screen-reader users start there.
    if (!document.activeElement || document.activeElement === document.body) heading.current?.focus({ preventScroll: true });
  }, []);
  return (
    <LatchRoot className="latch-page">
      <main className={`latch-card${wide ? ' latch-card-wide' : ''}`} aria-labelledby="latch-page-title">
        <h1 className="latch-title" id="latch-page-title" ref={heading} tabIndex={-1}>
          {title}
        </h1>
        {subtitle ? <p className="latch-subtitle">{subtitle}</p> : null}
        {children}
      </main>
    </LatchRoot>
  );
}

export interface FieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'id'> {
  label: string;
  error?: string | null | undefined;
  hint?: ReactNode;
}

/** A labelled input; its error is linked by aria-describedby and marks it aria-invalid. */
export function Field({ label, error, hint, type, ...input }: FieldProps) {
  const id = useId();
  const [revealed, setRevealed] = useState(false);
  const describedBy = [error ? `${id}-error` : null, hint ? `${id}-hint` : null].filter(Boolean).join(' ') || undefined;
  const field = (
    <input
      className="latch-input"
      id={id}
      type={type === 'password' && revealed ? 'text' : type}
      aria-invalid={error ? true : undefined}
      aria-describedby={describedBy}
      {...input}
    />
  );
  return (
    <div className="latch-field">
      <label className="latch-label" htmlFor={id}>
        {label}
      </label>
      {type === 'password' ? (
        <div className="latch-password">
          {field}
          {/* A toggle button: its name stays "Show password", aria-pressed says whether it is shown. */}
          <Tooltip content={revealed ? 'Hide password' : 'Show password'} className="latch-password-toggle-anchor">
            <button type="button" className="latch-password-toggle" aria-pressed={revealed} aria-controls={id} onClick={() => setRevealed((shown) => !shown)}>
              <span aria-hidden="true">{revealed ? 'Hide' : 'Show'}</span>
              <span className="latch-sr-only">Show password</span>
            </button>
          </Tooltip>
        </div>
      ) : (
        field
      )}
      {hint ? (
        <p className="latch-hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p className="latch-field-error" id={`${id}-error`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** The spec's tooltip defaults (section 9): it opens at once, 4 px from its trigger. */
export const TOOLTIP_OPEN_DELAY_MS = 0;
export const TOOLTIP_SIDE_OFFSET_PX = 4;

export interface TooltipProps {
  /** The text shown, and the trigger's accessible description. */
  content: string;
  /** One focusable element (an icon button); it gets `aria-describedby` while the tooltip shows. */
  children: ReactElement<{ 'aria-describedby'?: string }>;
  /** Milliseconds of hover or focus before it shows (default 0). */
  delayMs?: number;
  /** Pixels between the trigger and the tooltip (default 4). */
  sideOffset?: number;
  className?: string;
}

/**
 * A tooltip for the kit's icon buttons: shown on hover and on keyboard focus, hidden on leave, on
 * blur and by Escape (WCAG 1.4.13: dismissable without moving the pointer, and it stays while the
 * pointer is over it). It is `role="tooltip"` and describes its trigger through aria-describedby,
 * so a screen reader reads it after the button's name. No portal or positioning library: it sits
 * above its trigger, which keeps the bundle small.
 *
 * @example
 * <Tooltip content="Remove this passkey"><button aria-label="Remove">×</button></Tooltip>
 */
export function Tooltip({ content, children, delayMs = TOOLTIP_OPEN_DELAY_MS, sideOffset = TOOLTIP_SIDE_OFFSET_PX, className }: TooltipProps) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const show = () => {
    clearTimeout(timer.current);
    if (delayMs <= 0) setOpen(true);
    else timer.current = setTimeout(() => setOpen(true), delayMs);
  };
  const hide = () => {
    clearTimeout(timer.current);
    setOpen(false);
  };
  useEffect(() => () => clearTimeout(timer.current), []);
  return (
    <span
      className={`latch-tooltip-anchor${className ? ` ${className}` : ''}`}
      onMouseEnter={show}
      onMouseLeave={hide}
      onFocus={show}
      onBlur={hide}
      onKeyDown={(event) => {
        if (event.key === 'Escape' && open) {
          // Only the tooltip closes: a dialog or menu around it stays open.
          event.stopPropagation();
          hide();
        }
      }}
    >
      {cloneElement(children, { 'aria-describedby': open ? id : children.props['aria-describedby'] })}
      {open ? (
        <span role="tooltip" id={id} className="latch-tooltip" style={{ bottom: `calc(100% + ${sideOffset}px)` }}>
          {content}
        </span>
      ) : null}
    </span>
  );
}

/** What a field that reports its value (not the change event) is given. */
interface ValueFieldProps {
  label: string;
  name: string;
  value: string;
  onValue: (value: string) => void;
  error: string | null | undefined;
  required?: boolean;
}

function valueField({ onValue, ...field }: ValueFieldProps, type: 'email' | 'password', autoComplete: string) {
  return <Field {...field} type={type} autoComplete={autoComplete} onChange={(e) => onValue(e.target.value)} />;
}

/** The email address field of sign-in, sign-up, magic link, forgot password and "add an email". */
export function EmailField({
  label = 'Email',
  name = 'email',
  autoComplete = 'email',
  ...field
}: Omit<ValueFieldProps, 'label' | 'name'> & {
  label?: string;
  name?: string;
  /** 'username webauthn' on a sign-in form lets the browser offer passkeys in its autofill. */
  autoComplete?: string;
}) {
  return valueField({ label, name, ...field }, 'email', autoComplete);
}

/** The password a user signs in with, asked for again: sign-in, and changing it in the account settings. */
export function CurrentPasswordField(props: ValueFieldProps) {
  return valueField(props, 'password', 'current-password');
}

/** A page with nothing to do but read a message (a broken link, a switched-off feature) and follow the way out. */
export function NoticePage({
  title,
  kind,
  href,
  linkLabel,
  children,
}: {
  title: string;
  kind: 'error' | 'info';
  href: string;
  linkLabel: string;
  children: ReactNode;
}) {
  return (
    <Page title={title}>
      <Alert kind={kind}>{children}</Alert>
      <div className="latch-footer">
        <Link href={href}>{linkLabel}</Link>
      </div>
    </Page>
  );
}

/** The code an authenticator app shows: 6 digits, with room for a space in the middle. */
export function TotpCodeField({ onValue, error, ...field }: Omit<ValueFieldProps, 'name' | 'error'> & { error?: string | null }) {
  return (
    <Field
      {...field}
      name="totp"
      inputMode="numeric"
      autoComplete="one-time-code"
      maxLength={7}
      onChange={(e) => onValue(e.target.value)}
      error={error ?? undefined}
    />
  );
}

/**
 * The auth pages' form: the form-level error above the fields and one full-width submit button
 * below them (`notice` goes above the error, `extra` below the button).
 */
export function SubmitForm({
  label,
  onSubmit,
  formError,
  pending,
  submitLabel,
  notice,
  extra,
  children,
}: {
  label: string;
  onSubmit: (event: FormEvent) => unknown;
  formError: string | null;
  pending: boolean;
  submitLabel: ReactNode;
  notice?: ReactNode;
  extra?: ReactNode;
  children: ReactNode;
}) {
  return (
    <form className="latch-form" onSubmit={onSubmit} noValidate aria-label={label}>
      {notice}
      {formError ? <Alert kind="error">{formError}</Alert> : null}
      {children}
      <Button type="submit" block loading={pending}>
        {submitLabel}
      </Button>
      {extra}
    </form>
  );
}

/** The state of {@link NewPasswordFields}: the new password, its repetition, and clearing both. */
export function useNewPassword() {
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const clear = () => {
    setPassword('');
    setConfirmation('');
  };
  return { password, confirmation, setPassword, setConfirmation, clear };
}

/**
 * A new password and its repetition (sign-up, password reset, account settings): the pair always
 * has the same shape, named `name` and `name-confirmation`, labelled `label` and "Repeat …".
 */
export function NewPasswordFields({
  label,
  name,
  value,
  errors,
  required,
}: {
  label: 'Password' | 'New password';
  name: string;
  value: ReturnType<typeof useNewPassword>;
  errors: { password?: string | undefined; confirmation?: string | undefined };
  required?: boolean;
}) {
  return (
    <>
      <Field
        label={label}
        type="password"
        name={name}
        autoComplete="new-password"
        value={value.password}
        onChange={(e) => value.setPassword(e.target.value)}
        error={errors.password}
        required={required}
      />
      <Field
        label={`Repeat ${label.toLowerCase()}`}
        type="password"
        name={`${name}-confirmation`}
        autoComplete="new-password"
        value={value.confirmation}
        onChange={(e) => value.setConfirmation(e.target.value)}
        error={errors.confirmation}
        required={required}
      />
    </>
  );
}

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: 'primary' | 'secondary' | 'danger';
  size?: 'normal' | 'small';
  block?: boolean;
  loading?: boolean;
}

/** A button; while `loading` it is disabled, busy and shows a spinner. */
export function Button({ variant = 'primary', size = 'normal', block, loading, disabled, children, className, type = 'button', ...rest }: ButtonProps) {
  const classes = [
    'latch-button',
    variant !== 'primary' ? `latch-button-${variant}` : '',
    size === 'small' ? 'latch-button-small' : '',
    block ? 'latch-button-block' : '',
    className ?? '',
  ]
    .filter(Boolean)
    .join(' ');
  return (
    <button type={type} className={classes} disabled={disabled || loading} aria-busy={loading || undefined} {...rest}>
      {loading ? <span className="latch-spinner" aria-hidden="true" /> : null}
      {children}
    </button>
  );
}

/** A message box; errors are announced at once (role alert), others politely (role status). */
export function Alert({ kind, children }: { kind: 'error' | 'success' | 'info'; children: ReactNode }) {
  return (
    <div className={`latch-alert latch-alert-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

/** A link to one of the app's pages that navigates with the provider's redirect method. */
export function Link({ href, children, onClick, className = 'latch-link', ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const { navigate, redirectMethod } = useLatchContext();
  const runAsync = useRunAsync();
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    // Let the browser do modified clicks (new tab) and plain page loads itself.
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    if (redirectMethod === 'window' || redirectMethod === 'none') return;
    event.preventDefault();
    runAsync(navigate(href));
  };
  return (
    <a className={className} href={href} onClick={follow} {...rest}>
      {children}
    </a>
  );
}

/**
 * A spinner with a label, for Suspense fallbacks and pending pages.
 *
 * @example
 * <Suspense fallback={<Loading />}><Dashboard /></Suspense>
 */
export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="latch-loading" role="status">
      <span className="latch-spinner" aria-hidden="true" />
      <span>{label}</span>
    </div>
  );
}

/** The initials or image of a user or team. */
export function Avatar({ name, imageUrl, large }: { name: string; imageUrl?: string | null; large?: boolean }) {
  const className = `latch-avatar${large ? ' latch-avatar-large' : ''}`;
  if (imageUrl) return <img className={className} src={imageUrl} alt="" />;
  const initials = name
    .split(/[\s@._-]+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((part) => part[0]?.toUpperCase() ?? '')
    .join('');
  return (
    <span className={className} aria-hidden="true">
      {initials || '?'}
    </span>
  );
}

/** The message of anything thrown, for an error alert. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error && error.message) return error.message;
  return 'Something went wrong. Please try again.';
}

/**
 * One form's submission: the pending flag and the form-level error, for the SDK's two ways of
 * failing (a thrown error, or a result whose status is 'error'), handled once for every form.
 * `action` returns the failed result to show it; anything else counts as done.
 *
 * @example
 * const { pending, formError, run } = useFormAction();
 * const submit = () => run(async () => {
 *   const result = await app.sendForgotPasswordEmail(email, { callbackUrl });
 *   if (result.status === 'error') return result;
 *   setSent(true);
 * });
 */
export function useFormAction() {
  const [pending, setPending] = useState(false);
  const [formError, setFormError] = useState<string | null>(null);
  const run = async (action: () => Promise<unknown>) => {
    setFormError(null);
    setPending(true);
    try {
      const outcome = await action();
      if (isErrorResult(outcome)) setFormError(outcome.error.message);
    } catch (error) {
      setFormError(errorMessage(error));
    } finally {
      setPending(false);
    }
  };
  /** One field's check first: its message shows beside the field and stops the submit, or the action runs. */
  const runChecked = async (invalid: string | null, setFieldError: (message: string | null) => void, action: () => Promise<unknown>) => {
    setFieldError(invalid);
    setFormError(null);
    if (!invalid) await run(action);
  };
  /** The whole form's checks first (`found` maps a field to its message): any message stops the submit. */
  const runValidated = async <E extends object>(found: E, setErrors: (errors: E) => void, action: () => Promise<unknown>) => {
    setErrors(found);
    setFormError(null);
    if (!Object.keys(found).length) await run(action);
  };
  return { pending, formError, setFormError, run, runChecked, runValidated };
}

/** The data of an SDK call's result, or its error thrown (for an action run by useAction or useFormAction). */
export function dataOf<T>(result: { status: 'ok'; data: T } | { status: 'error'; error: unknown }): T {
  if (result.status === 'error') throw result.error;
  return result.data;
}

function isErrorResult(value: unknown): value is { status: 'error'; error: { message: string } } {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { status?: unknown }).status === 'error' &&
    typeof (value as { error?: { message?: unknown } }).error?.message === 'string'
  );
}
