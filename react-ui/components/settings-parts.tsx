/**
 * The parts every settings section is made of (account settings, team management): a titled
 * section, an action with pending / error / done state, and its feedback and submit row.
 */
import { type ReactNode, useId, useState } from 'react';
import { Alert, Button, errorMessage } from './ui.js';

/** Runs an async action with pending and error state (one per form or row). */
export function useAction() {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const run = async (action: () => Promise<string | null | void>) => {
    setPending(true);
    setError(null);
    setDone(null);
    try {
      const message = await action();
      if (message) setDone(message);
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setPending(false);
    }
  };
  /** Clears the outcome: a form whose fields fail their checks shows no "saved" from an earlier submit beside them. */
  const clear = () => {
    setError(null);
    setDone(null);
  };
  return { pending, error, done, run, setError, clear };
}

export function Section({ title, children, description }: { title: string; description?: ReactNode; children: ReactNode }) {
  const id = useId();
  return (
    <section className="latch-section" aria-labelledby={id}>
      <h2 className="latch-section-title" id={id}>
        {title}
      </h2>
      {description ? (
        <p className="latch-hint" style={{ marginBottom: 12 }}>
          {description}
        </p>
      ) : null}
      {children}
    </section>
  );
}

export function Feedback({ error, done }: { error: string | null; done: string | null }) {
  return (
    <>
      {error ? <Alert kind="error">{error}</Alert> : null}
      {done ? <Alert kind="success">{done}</Alert> : null}
    </>
  );
}

/** A section form's end: the action's outcome, then its submit button. */
export function SubmitRow({ action, secondary, children }: { action: ReturnType<typeof useAction>; secondary?: boolean; children: ReactNode }) {
  return (
    <>
      <Feedback error={action.error} done={action.done} />
      <div>
        <Button type="submit" variant={secondary ? 'secondary' : undefined} loading={action.pending}>
          {children}
        </Button>
      </div>
    </>
  );
}

const keyDate = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

/** What a key list shows of a user or team API key. */
export interface ListedApiKey {
  id: string;
  description: string;
  value: { last_four: string };
  expires_at_millis?: number | null;
}

/**
 * A list of API keys (a user's in account settings, a team's in team management): description,
 * last four characters, expiry, and a Revoke button per key that runs `revoke` through `row`.
 */
export function ApiKeyList({
  keys,
  row,
  revoke,
  label,
}: {
  keys: readonly ListedApiKey[];
  row: ReturnType<typeof useAction>;
  revoke: (key: ListedApiKey) => Promise<string>;
  label?: string;
}) {
  return (
    <>
      <ul className="latch-list" aria-label={label}>
        {keys.map((key) => (
          <li key={key.id} className="latch-list-item">
            <span>
              {key.description} <span className="latch-badge">…{key.value.last_four}</span>
              {key.expires_at_millis ? <span className="latch-hint">Expires {keyDate.format(new Date(key.expires_at_millis))}</span> : null}
            </span>
            <Button
              variant="secondary"
              size="small"
              disabled={row.pending}
              aria-label={`Revoke ${key.description}`}
              onClick={() => void row.run(() => revoke(key))}
            >
              Revoke
            </Button>
          </li>
        ))}
      </ul>
      <Feedback error={row.error} done={row.done} />
    </>
  );
}
