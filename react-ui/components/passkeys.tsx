/**
 * The account-settings section of a user's passkeys (shown when the project has passkeys on):
 * each passkey with its name, when it was added and last used; add one (with a name), rename,
 * remove. Several per user: one per device is the point.
 */
import { useSuspenseQuery } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { KnownErrors, type Passkey } from '../../sdk/index.js';
import { useApp } from '../hooks.js';
import { PASSKEY_NAME_MAX_LENGTH } from '../../contract/validation/passkeys.js';
import { Alert, Button, Field, errorMessage } from './ui.js';

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** The message for a failed passkey action; a stale sign-in gets a plain sentence, not the API's. */
function passkeyErrorMessage(error: unknown): string {
  if (error instanceof KnownErrors.RecentSignInRequired) return 'For your security, sign in again (within the last 5 minutes) to remove a passkey.';
  return errorMessage(error);
}

function validateName(name: string): string | null {
  if (name.trim().length > PASSKEY_NAME_MAX_LENGTH) return `A passkey name can be at most ${PASSKEY_NAME_MAX_LENGTH} characters.`;
  return null;
}

function PasskeyRow({ passkey, onError, onDone }: { passkey: Passkey; onError: (m: string) => void; onDone: (m: string) => void }) {
  const app = useApp();
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(passkey.name);
  const [pending, setPending] = useState(false);
  const run = async (action: () => Promise<string>) => {
    setPending(true);
    try {
      onDone(await action());
    } catch (caught) {
      onError(passkeyErrorMessage(caught));
    } finally {
      setPending(false);
    }
  };
  const rename = (event: FormEvent) => {
    event.preventDefault();
    const problem = validateName(name) ?? (name.trim() ? null : 'Enter a name.');
    if (problem) return onError(problem);
    void run(async () => {
      await app.renamePasskey(passkey.id, name.trim());
      setEditing(false);
      return 'Passkey renamed.';
    });
  };
  if (editing) {
    return (
      <li className="latch-list-item">
        <form className="latch-row" onSubmit={rename} aria-label={`Rename ${passkey.name}`}>
          <Field label="Passkey name" value={name} onChange={(e) => setName(e.target.value)} maxLength={PASSKEY_NAME_MAX_LENGTH} error={null} />
          <Button type="submit" size="small" loading={pending}>
            Save
          </Button>
          <Button variant="secondary" size="small" onClick={() => setEditing(false)}>
            Cancel
          </Button>
        </form>
      </li>
    );
  }
  return (
    <li className="latch-list-item" data-passkey-id={passkey.id}>
      <span>
        <strong>{passkey.name}</strong>
        {passkey.backed_up ? <span className="latch-badge">Synced</span> : null}
        <span className="latch-hint">
          Added {dateFormat.format(new Date(passkey.created_at_millis))} ·{' '}
          {passkey.last_used_at_millis ? `last used ${dateFormat.format(new Date(passkey.last_used_at_millis))}` : 'never used'}
        </span>
      </span>
      <span className="latch-row">
        <Button variant="secondary" size="small" disabled={pending} onClick={() => setEditing(true)} aria-label={`Rename ${passkey.name}`}>
          Rename
        </Button>
        <Button
          variant="secondary"
          size="small"
          disabled={pending}
          aria-label={`Remove ${passkey.name}`}
          onClick={() => void run(async () => (await app.deletePasskey(passkey.id), 'Passkey removed.'))}
        >
          Remove
        </Button>
      </span>
    </li>
  );
}

/**
 * The signed-in user's passkeys, in account settings.
 *
 * @example
 * {project.config.passkey_enabled ? <PasskeysSection /> : null}
 */
export function PasskeysSection() {
  const app = useApp();
  const id = useId();
  const passkeys = useSuspenseQuery(app.passkeysQuery()).data;
  const [name, setName] = useState('');
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const report = {
    onError: (message: string) => (setDone(null), setError(message)),
    onDone: (message: string) => (setError(null), setDone(message)),
  };
  const add = async (event: FormEvent) => {
    event.preventDefault();
    const problem = validateName(name);
    if (problem) return report.onError(problem);
    setPending(true);
    setError(null);
    setDone(null);
    try {
      const result = await app.registerPasskey(name.trim() ? { name: name.trim() } : {});
      if (result.status === 'error') report.onError(result.error.message);
      else {
        setName('');
        report.onDone(`Passkey "${result.data.name}" added.`);
      }
    } catch (caught) {
      report.onError(passkeyErrorMessage(caught));
    } finally {
      setPending(false);
    }
  };
  return (
    <section className="latch-section" aria-labelledby={id}>
      <h2 className="latch-section-title" id={id}>
        Passkeys
      </h2>
      <p className="latch-hint" style={{ marginBottom: 12 }}>
        Sign in with your fingerprint, face or device PIN instead of a password. Add one passkey per device.
      </p>
      {passkeys.length ? (
        <ul className="latch-list" aria-label="Your passkeys">
          {passkeys.map((passkey) => (
            <PasskeyRow key={passkey.id} passkey={passkey} {...report} />
          ))}
        </ul>
      ) : (
        <p className="latch-hint">You have no passkeys yet.</p>
      )}
      <form className="latch-form" onSubmit={(event) => void add(event)} aria-label="Add a passkey">
        <Field
          label="New passkey name"
          hint="Optional, e.g. Work laptop"
          value={name}
          onChange={(e) => setName(e.target.value)}
          maxLength={PASSKEY_NAME_MAX_LENGTH}
          error={null}
        />
        {error ? <Alert kind="error">{error}</Alert> : null}
        {done ? <Alert kind="success">{done}</Alert> : null}
        <div>
          <Button type="submit" loading={pending}>
            Add a passkey
          </Button>
        </div>
      </form>
    </section>
  );
}
