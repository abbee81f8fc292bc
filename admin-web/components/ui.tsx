import { type UseQueryResult } from '@tanstack/react-query';
import { type CSSProperties, type FormEvent, type InputHTMLAttributes, type ReactNode, useEffect, useId, useRef, useState } from 'react';
import type { z } from 'zod';
import { errorCode, errorMessage } from '../api.js';

/** Small building blocks shared by every page: one stylesheet (styles.css), no CSS framework. */

export function PageHeader({ title, description, actions }: { title: string; description?: ReactNode; actions?: ReactNode }) {
  return (
    <header className="page-header">
      <div>
        <h1>{title}</h1>
        {description ? <p className="muted">{description}</p> : null}
      </div>
      {actions ? <div className="actions">{actions}</div> : null}
    </header>
  );
}

export function Card({ title, children, actions }: { title?: string; children: ReactNode; actions?: ReactNode }) {
  const id = useId();
  return (
    <section className="card" aria-labelledby={title ? id : undefined}>
      {title || actions ? (
        <div className="card-header">
          {title ? <h2 id={id}>{title}</h2> : <span />}
          {actions}
        </div>
      ) : null}
      {children}
    </section>
  );
}

export function ErrorMessage({ error, title = 'Something went wrong' }: { error: unknown; title?: string }) {
  if (!error) return null;
  const code = errorCode(error);
  return (
    <div className="alert alert-error" role="alert">
      <strong>{title}</strong>
      <span>{errorMessage(error)}</span>
      {code ? <code className="muted">{code}</code> : null}
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> {label}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <strong>{title}</strong>
      {children ? <div className="muted">{children}</div> : null}
    </div>
  );
}

/** The three states of every list: loading, error (with retry), then the content. */
export function QueryView<T>({ query, children, loadingLabel }: { query: UseQueryResult<T>; children: (data: T) => ReactNode; loadingLabel?: string }) {
  if (query.isPending) return <Loading label={loadingLabel} />;
  if (query.isError) {
    return (
      <div>
        <ErrorMessage error={query.error} title="Could not load" />
        <button type="button" className="button" onClick={() => void query.refetch()}>
          Try again
        </button>
      </div>
    );
  }
  return <>{children(query.data)}</>;
}

/** A table of items; a `null` column heading is the row's actions (named for screen readers only). */
export function Table<T>({
  label,
  columns,
  items,
  row,
}: {
  label: string;
  columns: Array<string | null>;
  items: T[];
  row: (item: T, index: number) => ReactNode;
}) {
  return (
    <div className="table-wrap">
      <table aria-label={label}>
        <thead>
          <tr>
            {columns.map((column, index) => (
              <th key={column ?? `actions-${index}`} scope="col">
                {column ?? <span className="visually-hidden">Actions</span>}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{items.map(row)}</tbody>
      </table>
    </div>
  );
}

/** A list from a query: loading, error, an empty state, or the table (the shape of most cards). */
export function QueryTable<T>({
  query,
  loadingLabel,
  empty,
  ...table
}: {
  query: UseQueryResult<T[]>;
  loadingLabel?: string;
  empty: ReactNode;
  label: string;
  columns: Array<string | null>;
  row: (item: T, index: number) => ReactNode;
}) {
  return (
    <QueryView query={query} loadingLabel={loadingLabel}>
      {(items) => (items.length === 0 ? empty : <Table {...table} items={items} />)}
    </QueryView>
  );
}

/** A card of one list: its title names the table too. */
export function TableCard<T>({ title, children, ...table }: Omit<Parameters<typeof DataTable<T>>[0], 'label'> & { title: string; children?: ReactNode }) {
  return (
    <Card title={title}>
      <DataTable {...table} label={title} />
      {children}
    </Card>
  );
}

/** A column of a DataTable: its heading and the cell it makes of a row. */
export interface Column<T> {
  title: string;
  cell: (item: T) => ReactNode;
  className?: string;
}

/** The confirmed, destructive action of a row (revoke, remove, unlink, withdraw). */
export interface RowRemoval<T> {
  label: string;
  title: string | ((item: T) => string);
  message: (item: T) => ReactNode;
  run: (item: T) => Promise<unknown>;
  /** Rows it does not apply to (a key set already revoked). */
  hidden?: (item: T) => boolean;
}

/**
 * A query's rows as a table, described as data: the columns, then the row's actions (other buttons,
 * and the confirmed removal every list of the console has) in a last, right-aligned cell.
 */
export function DataTable<T>({
  columns,
  rowKey = (item) => (item as { id: string }).id,
  actions,
  remove,
  ...table
}: {
  query: UseQueryResult<T[]>;
  loadingLabel: string;
  empty: ReactNode;
  label: string;
  columns: Column<T>[];
  /** The row's React key: its `id` unless said otherwise. */
  rowKey?: (item: T) => string;
  actions?: (item: T) => ReactNode;
  remove?: RowRemoval<T>;
}) {
  const hasActions = actions !== undefined || remove !== undefined;
  return (
    <QueryTable
      {...table}
      columns={[...columns.map((column) => column.title), ...(hasActions ? [null] : [])]}
      row={(item) => (
        <tr key={rowKey(item)}>
          {columns.map((column) => (
            <td key={column.title} className={column.className}>
              {column.cell(item)}
            </td>
          ))}
          {hasActions ? (
            <td className="actions end">
              {actions?.(item)}
              {remove && !remove.hidden?.(item) ? (
                <ConfirmButton
                  className="button small danger"
                  label={remove.label}
                  title={typeof remove.title === 'string' ? remove.title : remove.title(item)}
                  message={remove.message(item)}
                  onConfirm={() => remove.run(item)}
                />
              ) : null}
            </td>
          ) : null}
        </tr>
      )}
    />
  );
}

/**
 * Runs an async action with pending and error state: every button and form of the console goes
 * through it, so none keeps its own try/catch. Errors are kept for display, not thrown; `run`
 * resolves to whether the action succeeded (what SavedCheckbox wants), and `done` stays true after a
 * success until the next run or `reset()` (for a "Saved." note).
 */
export function useAction<A extends unknown[]>(action: (...args: A) => Promise<unknown>) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState(false);
  const run = async (...args: A): Promise<boolean> => {
    setPending(true);
    setError(null);
    setDone(false);
    try {
      await action(...args);
      setDone(true);
      return true;
    } catch (caught) {
      setError(caught);
      return false;
    } finally {
      setPending(false);
    }
  };
  const reset = () => {
    setError(null);
    setDone(false);
  };
  return { run, pending, error, done, reset, setError };
}

export type Action = Pick<ReturnType<typeof useAction>, 'error' | 'done'>;

/**
 * A form's submit through useAction, checked first with the server's own schema: field errors stop
 * the submit and show beside their fields. `checked` is what the schema sees when it differs from
 * what the action takes (ids merged in).
 */
export function useFormAction<I>(schema: z.ZodType, action: (input: I) => Promise<unknown>) {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const act = useAction(action);
  const submit = async (input: I, checked: unknown = input): Promise<boolean> => {
    const invalid = fieldErrors(schema, checked);
    setErrors(invalid ?? {});
    if (!invalid) return act.run(input);
    act.reset();
    return false;
  };
  const clear = () => {
    setErrors({});
    act.reset();
  };
  return { ...act, errors, submit, clear };
}

/** A short status note beside a button ("Saved.", "Granted.", "Updating…"), read out by screen readers; nothing when `show` is false. */
export function StatusNote({ show, children }: { show: boolean; children: ReactNode }) {
  return show ? (
    <span className="muted small" role="status">
      {children}
    </span>
  ) : null;
}

/** The foot of a settings form: the action's error, the submit button and its "Saved." note. */
export function SaveFooter({
  action,
  label,
  errorTitle = 'Could not save',
  savedText = 'Saved.',
}: {
  action: Action;
  label: string;
  errorTitle?: string;
  savedText?: string;
}) {
  return (
    <>
      <ErrorMessage error={action.error} title={errorTitle} />
      <div className="actions">
        <button type="submit" className="button primary">
          {label}
        </button>
        {action.done ? (
          <span className="muted" role="status">
            {savedText}
          </span>
        ) : null}
      </div>
    </>
  );
}

/** Field errors from a zod schema (the server's own), keyed by the first path segment. */
export function fieldErrors(schema: z.ZodType, value: unknown): Record<string, string> | null {
  const result = schema.safeParse(value);
  if (result.success) return null;
  const errors: Record<string, string> = {};
  for (const issue of result.error.issues) {
    const key = String(issue.path[0] ?? '_');
    errors[key] ??= issue.message;
  }
  return errors;
}

export function Field({
  label,
  error,
  hint,
  children,
}: {
  label: string;
  error?: string | undefined;
  hint?: ReactNode;
  children: (props: { id: string; 'aria-invalid': boolean; 'aria-describedby'?: string }) => ReactNode;
}) {
  const id = useId();
  const describedBy = error ? `${id}-error` : hint ? `${id}-hint` : undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-invalid': Boolean(error), ...(describedBy ? { 'aria-describedby': describedBy } : {}) })}
      {error ? (
        <span className="field-error" id={`${id}-error`}>
          {error}
        </span>
      ) : hint ? (
        <span className="muted small" id={`${id}-hint`}>
          {hint}
        </span>
      ) : null}
    </div>
  );
}

/** A Field's <input> with its value (`onValue` gets the typed text); other props go to the input. */
export function TextField({
  label,
  error,
  hint,
  onValue,
  ...input
}: {
  label: string;
  error?: string | undefined;
  hint?: ReactNode;
  value: string;
  onValue: (value: string) => void;
} & Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange' | 'id'>) {
  return (
    <Field label={label} error={error} hint={hint}>
      {(props) => <input {...props} {...input} onChange={(event) => onValue(event.target.value)} />}
    </Field>
  );
}

/** A code from an authenticator app: a numeric keyboard, and the browser may offer the code it has. */
export function CodeField(props: { label: string; error?: string | undefined; value: string; onValue: (value: string) => void; autoFocus?: boolean }) {
  return <TextField {...props} type="text" inputMode="numeric" autoComplete="one-time-code" />;
}

/**
 * A Field's <select> of `options` (shown through `optionLabel`), after an empty first choice when
 * `none` names it ("All", "Any").
 */
export function SelectField<T extends string>({
  label,
  error,
  value,
  onValue,
  options,
  optionLabel = (option) => option,
  none,
}: {
  label: string;
  error?: string | undefined;
  value: T;
  onValue: (value: T) => void;
  /** The choices besides the empty one. */
  options: readonly Exclude<NoInfer<T>, ''>[];
  optionLabel?: (option: Exclude<NoInfer<T>, ''>) => ReactNode;
  none?: string;
}) {
  return (
    <Field label={label} error={error}>
      {(props) => (
        <select {...props} value={value} onChange={(event) => onValue(event.target.value as T)}>
          {none !== undefined ? <option value="">{none}</option> : null}
          {options.map((option) => (
            <option key={option} value={option}>
              {optionLabel(option)}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

/**
 * A SelectField of named entries (`[id, { displayName }]`, as the payments catalogue holds its
 * items, products and product lines): the ids as the choices, each shown by its display name.
 */
export function EntrySelectField({
  entries,
  ...select
}: {
  label: string;
  error?: string | undefined;
  value: string;
  onValue: (value: string) => void;
  entries: readonly (readonly [string, { displayName?: string | undefined }])[];
  none?: string;
}) {
  const names = new Map(entries.map(([id, entry]) => [id, entry.displayName ?? id]));
  return <SelectField {...select} options={[...names.keys()]} optionLabel={(id) => names.get(id)} />;
}

/** The page's main action (create a user, a team, keys, a project). */
export function PrimaryButton({ onClick, children }: { onClick: () => void; children: ReactNode }) {
  return (
    <button type="button" className="button primary" onClick={onClick}>
      {children}
    </button>
  );
}

/** A row's or a card's secondary action (edit, configure, sign out). */
export function SmallButton({ onClick, children }: { onClick: () => unknown; children: ReactNode }) {
  return (
    <button type="button" className="button small" onClick={onClick}>
      {children}
    </button>
  );
}

/**
 * A form on one row: inputs side by side, then the submit button, then `after` (a status). With
 * `align="start"` the inputs may show hints or errors below them, so the button is lowered to
 * line up with the inputs themselves. `label` names the form for screen readers; `disabled`
 * disables the button (nothing to submit yet, or a submit under way).
 */
export function InlineForm({
  onSubmit,
  submitLabel,
  align,
  spaced,
  label,
  disabled,
  after,
  children,
}: {
  onSubmit: (event: FormEvent) => void;
  submitLabel: string;
  align: 'start' | 'end';
  spaced?: boolean;
  label?: string;
  disabled?: boolean;
  after?: ReactNode;
  children: ReactNode;
}) {
  return (
    <form className="row" style={{ ...(spaced ? { marginTop: 12 } : {}), alignItems: `flex-${align}` }} onSubmit={onSubmit} noValidate aria-label={label}>
      {children}
      <button type="submit" className="button" style={align === 'start' ? { marginTop: 26 } : undefined} disabled={disabled}>
        {submitLabel}
      </button>
      {after}
    </form>
  );
}

/** One labelled input of an InlineForm, in a box sized by `style`. */
export function InlineInput({
  label,
  error,
  hint,
  type,
  autoComplete,
  value,
  onValue,
  style,
}: {
  label: string;
  error?: string | undefined;
  hint?: ReactNode;
  type: 'text' | 'email' | 'url' | 'password';
  autoComplete?: string;
  value: string;
  onValue: (value: string) => void;
  style: CSSProperties;
}) {
  return (
    <div style={style}>
      <TextField label={label} error={error} hint={hint} type={type} autoComplete={autoComplete} value={value} onValue={onValue} />
    </div>
  );
}

/** Previous / next over keyset pages: `cursors` is the stack of page starts, the last one is shown. */
export function Pager({
  label,
  cursors,
  onCursors,
  next,
  showPage,
}: {
  label: string;
  cursors: Array<string | undefined>;
  onCursors: (cursors: Array<string | undefined>) => void;
  next: string | null | undefined;
  showPage?: boolean;
}) {
  return (
    <nav className="pager" aria-label={label}>
      {showPage ? <span className="muted small">Page {cursors.length}</span> : null}
      <button type="button" className="button small" disabled={cursors.length <= 1} onClick={() => onCursors(cursors.slice(0, -1))}>
        Previous
      </button>
      <button type="button" className="button small" disabled={!next} onClick={() => next && onCursors([...cursors, next])}>
        Next
      </button>
    </nav>
  );
}

/**
 * A checked state that follows the click at once while the save is in flight (so a switch never
 * snaps back and forth), and the server's value again once it arrives. `onChange` may return a
 * promise of `false` (or reject) to mean the save failed: the control then shows the old value.
 */
export function useOptimisticChecked(checked: boolean, onChange: (checked: boolean) => unknown): [boolean, (next: boolean) => void] {
  const [pending, setPending] = useState<boolean | null>(null);
  useEffect(() => {
    if (pending !== null && pending === checked) setPending(null);
  }, [checked, pending]);
  const change = (next: boolean) => {
    const result = onChange(next);
    if (result instanceof Promise) {
      setPending(next);
      result.then(
        (ok) => {
          if (ok === false) setPending(null);
        },
        () => setPending(null),
      );
    }
  };
  return [pending ?? checked, change];
}

export function Switch({
  label,
  description,
  checked,
  onChange,
  disabled,
}: {
  label: string;
  description?: ReactNode;
  checked: boolean;
  onChange: (checked: boolean) => unknown;
  disabled?: boolean;
}) {
  const id = useId();
  const [shown, change] = useOptimisticChecked(checked, onChange);
  return (
    <div className="switch-row">
      <div>
        <label htmlFor={id}>{label}</label>
        {description ? <div className="muted small">{description}</div> : null}
      </div>
      <input id={id} type="checkbox" role="switch" className="switch" checked={shown} disabled={disabled} onChange={(event) => change(event.target.checked)} />
    </div>
  );
}

/** A labelled checkbox whose change is saved to the server (optimistic, like Switch). */
export function SavedCheckbox({ label, checked, onChange }: { label: ReactNode; checked: boolean; onChange: (checked: boolean) => unknown }) {
  const [shown, change] = useOptimisticChecked(checked, onChange);
  return (
    <label className="row">
      <input type="checkbox" checked={shown} onChange={(event) => change(event.target.checked)} />
      {label}
    </label>
  );
}

export function CopyButton({ value, label = 'Copy' }: { value: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
    } catch {
      // Clipboard API refused (insecure origin, permissions): fall back to a hidden textarea.
      const area = document.createElement('textarea');
      area.value = value;
      document.body.append(area);
      area.select();
      document.execCommand('copy');
      area.remove();
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };
  return (
    <button type="button" className="button small" onClick={() => void copy()} aria-label={`${label}: ${copied ? 'copied' : 'copy to clipboard'}`}>
      {copied ? 'Copied' : label}
    </button>
  );
}

/** A modal on the native <dialog> (focus trap, Escape and backdrop handled by the browser). */
export function Modal({ title, open, onClose, children, wide }: { title: string; open: boolean; onClose: () => void; children: ReactNode; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} className={wide ? 'modal wide' : 'modal'} aria-labelledby={id} onClose={onClose} onCancel={onClose}>
      <div className="modal-header">
        <h2 id={id}>{title}</h2>
        <button type="button" className="button ghost" aria-label="Close" onClick={onClose}>
          ×
        </button>
      </div>
      {open ? children : null}
    </dialog>
  );
}

/** Confirmation for destructive actions: says what will happen, and shows the server's error if it fails. */
export function ConfirmButton({
  label,
  title,
  message,
  confirmLabel = label,
  onConfirm,
  className = 'button danger',
}: {
  label: string;
  title: string;
  message: ReactNode;
  confirmLabel?: string;
  onConfirm: () => Promise<unknown>;
  className?: string;
}) {
  const [open, setOpen] = useState(false);
  const action = useAction(async () => {
    await onConfirm();
    setOpen(false);
  });
  return (
    <>
      <button type="button" className={className} onClick={() => setOpen(true)}>
        {label}
      </button>
      <Modal title={title} open={open} onClose={() => setOpen(false)}>
        <div className="stack">
          <div>{message}</div>
          <ErrorMessage error={action.error} />
          <div className="actions end">
            <button type="button" className="button" onClick={() => setOpen(false)}>
              Cancel
            </button>
            <button type="button" className="button danger" disabled={action.pending} onClick={() => void action.run()}>
              {action.pending ? 'Working…' : confirmLabel}
            </button>
          </div>
        </div>
      </Modal>
    </>
  );
}

/** The foot of a dialog's form: the action's error, Cancel and the submit button. */
export function DialogFooter({
  error,
  errorTitle = 'Could not save',
  submitLabel,
  onCancel,
  pending,
  pendingLabel,
}: {
  error: unknown;
  errorTitle?: string;
  submitLabel: string;
  onCancel: () => void;
  pending?: boolean;
  pendingLabel?: string;
}) {
  return (
    <>
      <ErrorMessage error={error} title={errorTitle} />
      <div className="actions end">
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="button primary" disabled={pending}>
          {pending ? pendingLabel : submitLabel}
        </button>
      </div>
    </>
  );
}

export function formatDate(millis: number | null | undefined): string {
  if (millis === null || millis === undefined) return '—';
  return new Date(millis).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** Calls `fn` with `value` once it has stopped changing for `delay` ms. */
export function useDebounced<T>(value: T, delay = 250): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), delay);
    return () => clearTimeout(timer);
  }, [value, delay]);
  return debounced;
}
