/**
 * Unhandled async errors (spec section 8, client-side messages: "Unhandled async errors show an
 * alert"). Every action of the kit handles the errors it expects (a form shows them beside its
 * fields); what is left — a redirect method that rejects, a clipboard or QR code failure, a bug —
 * goes to the provider, which shows it in an alert the user can dismiss, and logs it. Stack Auth
 * calls window.alert(); this is an in-page `role="alert"`, so the page stays usable and a screen
 * reader announces it.
 */
import { useCallback, useContext, useRef, useState } from 'react';
import { LatchContext } from './context.js';

/** Reports an error nobody handled. */
export type ReportError = (error: unknown) => void;

export interface UnhandledError {
  id: number;
  message: string;
}

/** What the alert says for an error. */
export function unhandledErrorMessage(error: unknown): string {
  const detail = error instanceof Error ? error.message : typeof error === 'string' ? error : '';
  return `An unhandled error occurred: ${detail || 'unknown error'}`;
}

/** At most this many alerts at once: the oldest goes when another comes. */
const MAX_SHOWN = 3;

/** The provider's list of unhandled errors, and the report function it gives the kit. */
export function useUnhandledErrors(): { errors: UnhandledError[]; report: ReportError; dismiss: (id: number) => void } {
  const [errors, setErrors] = useState<UnhandledError[]>([]);
  const next = useRef(0);
  const report = useCallback<ReportError>((error) => {
    console.error('[latch]', error);
    const entry = { id: ++next.current, message: unhandledErrorMessage(error) };
    setErrors((shown) => [...shown.slice(-(MAX_SHOWN - 1)), entry]);
  }, []);
  const dismiss = useCallback((id: number) => setErrors((shown) => shown.filter((entry) => entry.id !== id)), []);
  return { errors, report, dismiss };
}

/** The alerts, fixed at the bottom of the viewport (rendered by the provider inside `.latch-root`). */
export function UnhandledErrorAlerts({ errors, dismiss }: { errors: UnhandledError[]; dismiss: (id: number) => void }) {
  if (errors.length === 0) return null;
  return (
    <div className="latch-unhandled">
      {errors.map((entry) => (
        <div key={entry.id} className="latch-alert latch-alert-error latch-unhandled-alert" role="alert">
          <span>{entry.message}</span>
          <button type="button" className="latch-link" onClick={() => dismiss(entry.id)}>
            Dismiss
          </button>
        </div>
      ))}
    </div>
  );
}

/**
 * Runs a promise (or an async function) whose errors nobody else handles: a rejection is reported
 * to the provider's alert instead of becoming an unhandled rejection. Use it where a handler
 * would otherwise write `void promise`.
 *
 * @example
 * const runAsync = useRunAsync();
 * <button onClick={() => runAsync(navigate('/'))}>Home</button>
 */
export function useRunAsync(): (task: Promise<unknown> | (() => Promise<unknown>)) => void {
  const report = useContext(LatchContext)?.reportError;
  return useCallback(
    (task) => {
      const promise = typeof task === 'function' ? Promise.resolve().then(task) : task;
      promise.catch(report ?? ((error: unknown) => console.error('[latch]', error)));
    },
    [report],
  );
}
