/**
 * The two-factor section of account settings: set up TOTP (the server makes the secret; the QR
 * code is drawn here, by the `qrcode` package, so the secret never goes to a third-party image
 * service), confirm with a code, save the recovery codes (shown once: copy or download), see how
 * many are left and when one was last used, make new ones, turn two-factor off.
 */
import { useSuspenseQuery } from '@tanstack/react-query';
import QRCode from 'qrcode';
import { type FormEvent, useEffect, useId, useState } from 'react';
import type { MfaProof, TotpEnrollment } from '../../sdk/index.js';
import { useApp } from '../hooks.js';
import { Alert, Button, Field, TotpCodeField, dataOf } from './ui.js';
import { Feedback, useAction } from './settings-parts.js';
import { useRunAsync } from '../async-errors.js';

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A code typed as proof: six digits are a TOTP code, anything else a recovery code, nothing a recent sign-in. */
function proofOf(typed: string): MfaProof {
  const trimmed = typed.replace(/\s/g, '');
  if (!trimmed) return {};
  return /^\d{6}$/.test(trimmed) ? { totp: trimmed } : { recoveryCode: trimmed };
}

/** The otpauth URI as an SVG QR code, drawn in the browser. */
function QrCode({ uri }: { uri: string }) {
  const [src, setSrc] = useState<string | null>(null);
  const runAsync = useRunAsync();
  useEffect(() => {
    let live = true;
    runAsync(async () => {
      const svg = await QRCode.toString(uri, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
      if (live) setSrc(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`);
    });
    return () => {
      live = false;
    };
  }, [uri, runAsync]);
  return src ? (
    <img className="latch-qr" src={src} width={180} height={180} alt="QR code for your authenticator app" />
  ) : (
    <div style={{ width: 180, height: 180 }} />
  );
}

/** The recovery codes, once: copy, download, then "I saved them". */
function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const runAsync = useRunAsync();
  const text = `${codes.join('\n')}\n`;
  const download = () => {
    const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = 'recovery-codes.txt';
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };
  return (
    <div className="latch-form">
      <Alert kind="info">Save these recovery codes somewhere safe. Each one signs you in once if you lose your authenticator. They are shown only now.</Alert>
      <ul className="latch-list latch-recovery-codes" aria-label="Recovery codes">
        {codes.map((code) => (
          <li key={code} className="latch-list-item">
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <div className="latch-row">
        <Button variant="secondary" onClick={() => runAsync(async () => (await navigator.clipboard?.writeText(text), setCopied(true)))}>
          {copied ? 'Copied' : 'Copy'}
        </Button>
        <Button variant="secondary" onClick={download}>
          Download
        </Button>
        <Button onClick={onDone}>I saved them</Button>
      </div>
    </div>
  );
}

/** Two-factor authentication (TOTP) of the signed-in user: the body of account settings' section. */
export function TwoFactorSettings() {
  const app = useApp();
  const status = useSuspenseQuery(app.mfaStatusQuery()).data;
  const [enrollment, setEnrollment] = useState<TotpEnrollment | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [code, setCode] = useState('');
  const [proof, setProof] = useState('');
  const { pending, error, done, run, setError } = useAction();
  const secretId = useId();

  const start = () =>
    run(async () => {
      const started = dataOf(await app.startTotpEnrollment(proofOf(proof)));
      setEnrollment(started);
      setProof('');
      return null;
    });

  const confirm = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const confirmed = dataOf(await app.confirmTotpEnrollment(code.replace(/\s/g, '')));
      setEnrollment(null);
      setCode('');
      setCodes(confirmed.recoveryCodes);
      return 'Two-factor authentication is on.';
    });
  };

  const regenerate = () =>
    run(async () => {
      const fresh = dataOf(await app.regenerateRecoveryCodes(proofOf(proof)));
      setProof('');
      setCodes(fresh.recoveryCodes);
      return 'New recovery codes made. The old ones no longer work.';
    });

  const disable = () =>
    run(async () => {
      dataOf(await app.disableTotp(proofOf(proof)));
      setProof('');
      return 'Two-factor authentication is off.';
    });

  if (codes) return <RecoveryCodes codes={codes} onDone={() => setCodes(null)} />;

  if (enrollment) {
    return (
      <form className="latch-form" onSubmit={confirm} noValidate aria-label="Confirm two-factor authentication">
        <p className="latch-hint">Scan this QR code with your authenticator app, then enter the 6-digit code it shows.</p>
        <QrCode uri={enrollment.otpauthUri} />
        <p className="latch-hint">
          Or type this key: <code id={secretId}>{enrollment.secretBase32}</code>
        </p>
        <TotpCodeField label="Code from the app" value={code} onValue={setCode} />
        <Feedback error={error} done={done} />
        <div className="latch-row">
          <Button type="submit" loading={pending}>
            Turn on
          </Button>
          <Button variant="secondary" onClick={() => (setEnrollment(null), setError(null))}>
            Cancel
          </Button>
        </div>
      </form>
    );
  }

  if (!status.requires_totp_mfa) {
    return (
      <div className="latch-form">
        <p className="latch-hint">Two-factor authentication is off.</p>
        <Feedback error={error} done={done} />
        <div>
          <Button onClick={() => void start()} loading={pending}>
            Set up two-factor authentication
          </Button>
        </div>
      </div>
    );
  }

  return (
    <div className="latch-form">
      <p>
        Two-factor authentication is on.<span className="latch-badge latch-badge-success">On</span>
      </p>
      <p className="latch-hint" data-testid="recovery-codes-left">
        {status.recovery_codes_remaining} of {status.recovery_codes_total} recovery codes left.
        {status.last_recovery_code_used_at_millis !== null
          ? ` A recovery code was last used ${dateFormat.format(new Date(status.last_recovery_code_used_at_millis))}. If that was not you, make new codes and change your password.`
          : ''}
      </p>
      <Field
        label="Code from your authenticator, or a recovery code"
        name="mfa-proof"
        autoComplete="one-time-code"
        hint="Not needed if you signed in in the last 5 minutes."
        value={proof}
        onChange={(e) => setProof(e.target.value)}
      />
      <Feedback error={error} done={done} />
      <div className="latch-row">
        <Button variant="secondary" onClick={() => void regenerate()} disabled={pending}>
          New recovery codes
        </Button>
        <Button variant="secondary" onClick={() => void start()} disabled={pending}>
          Use another authenticator
        </Button>
        <Button variant="danger" onClick={() => void disable()} disabled={pending}>
          Turn off
        </Button>
      </div>
    </div>
  );
}
