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
