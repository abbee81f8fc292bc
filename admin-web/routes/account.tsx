/**
 * The owner's own account (an internal-project user): change the password, and two-factor
 * authentication (TOTP: enrol with a QR code drawn in the browser, confirm, keep the recovery
 * codes; turn it off with a code). A lazy chunk: `qrcode` is not in the sign-in page's bundle.
 */
import { useQuery } from '@tanstack/react-query';
import QRCode from 'qrcode';
import { type FormEvent, useEffect, useState } from 'react';
import { z } from 'zod';
import { KnownErrors, type TotpEnrollment } from '../../sdk/index.js';
import { internalApp } from '../api.js';
import { Card, CodeField, CopyButton, ErrorMessage, Field, PageHeader, QueryView, formatDate, useAction, useFormAction } from '../components/ui.js';
import { useOwner } from '../session.js';
import { ConsoleShell } from './projects.js';
import { NewPasswordFields, newPasswordSchema } from './password-reset.js';

const changePasswordSchema = z
  .object({ current: z.string().min(1, 'Enter your current password.'), password: z.string().min(1, 'Enter a new password.'), confirmation: z.string() })
  .refine((value) => value.password === value.confirmation, { path: ['confirmation'], message: 'Passwords do not match.' });
const codeSchema = z.object({ code: z.string().trim().min(1, 'Enter the code from your authenticator app.') });

/** The server answers a wrong current password with PASSWORD_CONFIRMATION_MISMATCH ('Passwords do not match.'): say what it means here. */
export const WRONG_CURRENT_PASSWORD = 'Your current password is not correct.';

export function AccountPage() {
  const owner = useOwner();
  return (
    <ConsoleShell current="account">
      <PageHeader title="Your account" description={owner.data?.primary_email ?? undefined} />
      <PasswordCard hasPassword={owner.data?.has_password ?? true} />
      <TwoFactorCard />
    </ConsoleShell>
  );
}

function PasswordCard({ hasPassword }: { hasPassword: boolean }) {
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [currentWrong, setCurrentWrong] = useState(false);
  const change = useFormAction(
    hasPassword ? changePasswordSchema : newPasswordSchema,
    async (input: { current?: string; password: string; confirmation: string }) => {
      const result = hasPassword
        ? await internalApp.updatePassword({ old_password: input.current ?? '', new_password: input.password })
        : await internalApp.setPassword({ password: input.password });
      if (result.status === 'error') {
        if (result.error instanceof KnownErrors.PasswordConfirmationMismatch) {
          setCurrentWrong(true);
          return Promise.reject(new Error(WRONG_CURRENT_PASSWORD));
        }
        throw result.error;
      }
      setCurrent('');
      setPassword('');
      setConfirmation('');
    },
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setCurrentWrong(false);
    void change.submit(hasPassword ? { current, password, confirmation } : { password, confirmation });
  };
  return (
    <Card title={hasPassword ? 'Change password' : 'Set a password'}>
      <form className="form" onSubmit={submit} noValidate aria-label={hasPassword ? 'Change password' : 'Set a password'}>
        {hasPassword ? (
          <Field label="Current password" error={change.errors.current ?? (currentWrong ? WRONG_CURRENT_PASSWORD : undefined)}>
            {(props) => (
              <input
                {...props}
                type="password"
                autoComplete="current-password"
                value={current}
                onChange={(event) => {
                  setCurrent(event.target.value);
                  setCurrentWrong(false);
                }}
              />
            )}
          </Field>
        ) : null}
        <NewPasswordFields errors={change.errors} password={password} onPassword={setPassword} confirmation={confirmation} onConfirmation={setConfirmation} />
        {currentWrong ? null : <ErrorMessage error={change.error} title="Could not change the password" />}
        {change.done ? (
          <div className="alert alert-ok" role="status">
            Password changed. Your other sessions were signed out.
          </div>
        ) : null}
        <div>
          <button type="submit" className="button primary" disabled={change.pending}>
            {change.pending ? 'Saving…' : hasPassword ? 'Change password' : 'Set password'}
          </button>
        </div>
      </form>
    </Card>
  );
}

function QrCode({ uri }: { uri: string }) {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    void QRCode.toString(uri, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' }).then((svg) => {
      if (live) setSrc(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`);
    });
    return () => {
      live = false;
    };
  }, [uri]);
  return src ? <img src={src} width={180} height={180} alt="QR code for your authenticator app" /> : <div style={{ width: 180, height: 180 }} />;
}

function TwoFactorCard() {
  const status = useQuery(internalApp.mfaStatusQuery(), internalApp.queryClient);
  const [enrollment, setEnrollment] = useState<TotpEnrollment | null>(null);
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  const [code, setCode] = useState('');
  const start = useAction(async () => {
    const result = await internalApp.startTotpEnrollment();
    if (result.status === 'error') throw result.error;
    setEnrollment(result.data);
  });
  const confirm = useFormAction(codeSchema, async (input: { code: string }) => {
    const result = await internalApp.confirmTotpEnrollment(input.code.replace(/\s+/g, ''));
    if (result.status === 'error') throw result.error;
    setEnrollment(null);
    setCode('');
    setRecoveryCodes(result.data.recoveryCodes);
  });
  const disable = useFormAction(codeSchema, async (input: { code: string }) => {
    const value = input.code.replace(/\s+/g, '');
    const result = await internalApp.disableTotp(/^\d{6}$/.test(value) ? { totp: value } : { recoveryCode: input.code.trim() });
    if (result.status === 'error') throw result.error;
    setCode('');
  });
  return (
    <Card title="Two-factor authentication">
      <QueryView query={status} loadingLabel="Loading two-factor status…">
        {(mfa) => (
          <div className="stack">
            <p style={{ margin: 0 }}>
              {mfa.requires_totp_mfa ? <span className="badge ok">On</span> : <span className="badge">Off</span>}{' '}
              {mfa.requires_totp_mfa
                ? `A code from your authenticator app is asked for after your password. ${mfa.recovery_codes_remaining} of ${mfa.recovery_codes_total} recovery codes left${
                    mfa.last_recovery_code_used_at_millis !== null ? `; one was last used ${formatDate(mfa.last_recovery_code_used_at_millis)}` : ''
                  }.`
                : 'Protect your projects with a code from an authenticator app.'}
            </p>
            {recoveryCodes ? (
              <div className="alert alert-warn">
                <strong>Save your recovery codes now: they are shown only once.</strong>
                <ul aria-label="Recovery codes" style={{ margin: '6px 0', paddingLeft: 18, fontFamily: 'var(--mono)' }}>
                  {recoveryCodes.map((value) => (
                    <li key={value}>{value}</li>
                  ))}
                </ul>
                <div className="actions">
                  <CopyButton value={recoveryCodes.join('\n')} label="Copy codes" />
                  <button type="button" className="button small" onClick={() => setRecoveryCodes(null)}>
                    I saved them
                  </button>
                </div>
              </div>
            ) : null}
            {!mfa.requires_totp_mfa && !enrollment ? (
              <div>
                <button type="button" className="button primary" disabled={start.pending} onClick={() => void start.run()}>
                  {start.pending ? 'Starting…' : 'Set up two-factor authentication'}
                </button>
              </div>
            ) : null}
            <ErrorMessage error={start.error} title="Could not start" />
            {enrollment ? (
              <form
                className="form"
                aria-label="Confirm two-factor authentication"
                onSubmit={(event) => {
                  event.preventDefault();
                  void confirm.submit({ code });
                }}
                noValidate
              >
                <p style={{ margin: 0 }}>Scan this code with your authenticator app, or type the key, then enter the code it shows.</p>
                <QrCode uri={enrollment.otpauthUri} />
                <p className="small" style={{ margin: 0 }}>
                  Key: <code data-testid="totp-secret">{enrollment.secretBase32}</code>
                </p>
                <CodeField label="Code from the app" error={confirm.errors.code} value={code} onValue={setCode} />
                <ErrorMessage error={confirm.error} title="Could not turn it on" />
                <div className="actions">
                  <button type="submit" className="button primary" disabled={confirm.pending}>
                    Turn on
                  </button>
                  <button type="button" className="button" onClick={() => setEnrollment(null)}>
                    Cancel
                  </button>
                </div>
              </form>
            ) : null}
            {mfa.requires_totp_mfa ? (
              <form
                className="row"
                style={{ alignItems: 'flex-end' }}
                aria-label="Turn off two-factor authentication"
                onSubmit={(event) => {
                  event.preventDefault();
                  void disable.submit({ code });
                }}
                noValidate
              >
                <div style={{ minWidth: 220 }}>
                  <Field label="Current code or a recovery code" error={disable.errors.code}>
                    {(props) => <input {...props} autoComplete="one-time-code" value={code} onChange={(event) => setCode(event.target.value)} />}
                  </Field>
                </div>
                <button type="submit" className="button danger" disabled={disable.pending}>
                  Turn off
                </button>
              </form>
            ) : null}
            <ErrorMessage error={disable.error} title="Could not turn it off" />
          </div>
        )}
      </QueryView>
    </Card>
  );
}
