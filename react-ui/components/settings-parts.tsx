/**
 * The parts every settings section is made of (account settings, team management): a titled
 * section, an action with pending / error / done state, and its feedback and submit row.
 */
import { type FormEvent, type ReactNode, useId, useState } from 'react';
import { Alert, Button, Field, errorMessage } from './ui.js';

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

/**
 * A section form of one text field (a display name, a team name, an email to add or invite, a
 * key's description): what is typed, the message of its check (beside the field, gone once the
 * user types again), and a submit that runs `save` with the trimmed text through `action` only
 * when the check passes; a failed check clears the action's earlier outcome instead.
 * `emptyOnSave` empties the field once `save` has succeeded (a form that adds something).
 */
export function useOneFieldForm(
  action: ReturnType<typeof useAction>,
  {
    initial = '',
    check,
    save,
    emptyOnSave = false,
  }: {
    initial?: string;
    check: (trimmed: string) => string | null;
    save: (trimmed: string) => Promise<string | null | void>;
    emptyOnSave?: boolean;
  },
) {
  const [value, setValue] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = value.trim();
    const invalid = check(trimmed);
    setError(invalid);
    if (invalid) return action.clear();
    void action.run(async () => {
      const message = await save(trimmed);
      if (emptyOnSave) setValue('');
      return message;
    });
  };
  const onValue = (next: string) => {
    setValue(next);
    setError(null);
  };
  return { value, error, onValue, submit };
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

/**
 * A list row's small secondary button that runs `run` through the list's action: disabled while
 * one runs, its message or error shown by the list's Feedback. `label` names it for screen readers
 * where its text alone does not say which row it acts on.
 */
export function RowButton({
  action,
  run,
  label,
  children,
}: {
  action: ReturnType<typeof useAction>;
  run: () => Promise<string | null | void>;
  label?: string;
  children: ReactNode;
}) {
  return (
    <Button variant="secondary" size="small" disabled={action.pending} aria-label={label} onClick={() => void action.run(run)}>
      {children}
    </Button>
  );
}

/**
 * The form of a {@link useOneFieldForm}: its field (the children), then the action's outcome and
 * the submit button; `label` names the form for screen readers.
 */
export function OneFieldForm({
  form,
  action,
  label,
  submitLabel,
  secondary,
  children,
}: {
  form: { submit: (event: FormEvent) => void };
  action: ReturnType<typeof useAction>;
  label: string;
  submitLabel: ReactNode;
  secondary?: boolean;
  children: ReactNode;
}) {
  return (
    <form className="latch-form" onSubmit={form.submit} noValidate aria-label={label}>
      {children}
      <SubmitRow action={action} secondary={secondary}>
        {submitLabel}
      </SubmitRow>
    </form>
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
            <RowButton action={row} label={`Revoke ${key.description}`} run={() => revoke(key)}>
              Revoke
            </RowButton>
          </li>
        ))}
      </ul>
      <Feedback error={row.error} done={row.done} />
    </>
  );
}

/** The words of an ApiKeysSection, the user's (account settings) or the team's (team management). */
export interface ApiKeysSectionText {
  title: string;
  description: string;
  /** Above the new key's value, shown once. */
  newKeyNote: string;
  newKeyLabel: string;
  listLabel?: string;
  /** Shown when there is no live key. */
  emptyNote?: string;
  formLabel: string;
  descriptionLabel: string;
  descriptionName: string;
  submitLabel: string;
}

/**
 * A section of API keys: the new key's value (shown once, after `create`), the live keys (ApiKeyList,
 * revoked through `revoke`), and the form that creates one from a description (required).
 * `hideNewKeyOnRevoke`: a revoke also takes the shown new key away.
 */
export function ApiKeysSection({
  text,
  keys,
  create,
  revoke,
  hideNewKeyOnRevoke,
}: {
  text: ApiKeysSectionText;
  keys: readonly ListedApiKey[];
  create: (input: { description: string }) => Promise<{ value: string }>;
  revoke: (key: ListedApiKey) => Promise<unknown>;
  hideNewKeyOnRevoke?: boolean;
}) {
  const row = useAction();
  const creating = useAction();
  const [created, setCreated] = useState<{ value: string } | null>(null);
  const description = useOneFieldForm(creating, {
    check: (trimmed) => (trimmed ? null : 'Please describe what the key is for.'),
    save: async (trimmed) => setCreated(await create({ description: trimmed })),
    emptyOnSave: true,
  });
  return (
    <Section title={text.title} description={text.description}>
      {created ? (
        <Alert kind="success">
          {text.newKeyNote}
          <Field
            label={text.newKeyLabel}
            readOnly
            value={created.value}
            onFocus={(event) => event.currentTarget.select()}
            className="latch-input latch-secret"
          />
        </Alert>
      ) : null}
      {keys.length === 0 && text.emptyNote ? <p className="latch-hint">{text.emptyNote}</p> : null}
      <ApiKeyList
        keys={keys}
        row={row}
        label={text.listLabel}
        revoke={async (key) => {
          await revoke(key);
          if (hideNewKeyOnRevoke) setCreated(null);
          return 'Key revoked.';
        }}
      />
      <OneFieldForm form={description} action={creating} label={text.formLabel} submitLabel={text.submitLabel} secondary>
        <Field
          label={text.descriptionLabel}
          name={text.descriptionName}
          value={description.value}
          onChange={(e) => description.onValue(e.target.value)}
          error={description.error}
        />
      </OneFieldForm>
    </Section>
  );
}
