import { type FormEvent, useState } from 'react';
import type { z } from 'zod';
import type { ServerUserUpdate } from '../../sdk/index.js';
import { Card, ErrorMessage, Field, fieldErrors } from './ui.js';

export const METADATA_FIELDS = [
  { key: 'client_metadata', label: 'Client metadata', hint: 'Readable and writable by the user (for teams: by members with $update_team).' },
  { key: 'client_read_only_metadata', label: 'Client read-only metadata', hint: 'Readable by clients, writable by your server.' },
  { key: 'server_metadata', label: 'Server metadata', hint: 'Only your server sees it.' },
] as const;

export type MetadataKey = (typeof METADATA_FIELDS)[number]['key'];
/** Any JSON value or null, as the wire's metadata fields take it (the same type for users and teams). */
export type JsonValue = ServerUserUpdate['client_metadata'];

/**
 * The three metadata fields of a user or a team as JSON text: each must parse, then the whole
 * patch must pass the server's own update schema (`schema`, with `extra` merged in for ids).
 */
export function MetadataEditor({ values, schema, extra = {}, onSave }: { values: Record<MetadataKey, unknown>; schema: z.ZodType; extra?: Record<string, unknown>; onSave: (patch: Record<MetadataKey, JsonValue>) => Promise<unknown> }) {
  const initial = (key: MetadataKey) => JSON.stringify(values[key] ?? null, null, 2);
  const [texts, setTexts] = useState<Record<MetadataKey, string>>({ client_metadata: initial('client_metadata'), client_read_only_metadata: initial('client_read_only_metadata'), server_metadata: initial('server_metadata') });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const patch: Partial<Record<MetadataKey, JsonValue>> = {};
    const parseErrors: Record<string, string> = {};
    for (const { key } of METADATA_FIELDS) {
      try {
        patch[key] = JSON.parse(texts[key]);
      } catch (caught) {
        parseErrors[key] = `Not valid JSON: ${caught instanceof Error ? caught.message : String(caught)}`;
      }
    }
    // Then the server's own rules (any JSON value, or null).
    const invalid = Object.keys(parseErrors).length > 0 ? parseErrors : fieldErrors(schema, { ...extra, ...patch });
    setErrors(invalid ?? {});
    if (invalid) return;
    try {
      const complete = { client_metadata: patch.client_metadata ?? null, client_read_only_metadata: patch.client_read_only_metadata ?? null, server_metadata: patch.server_metadata ?? null };
      await onSave(complete);
      setError(null);
      setSaved(true);
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <Card title="Metadata">
      <form className="stack" onSubmit={(event) => void submit(event)} noValidate>
        <div className="grid">
          {METADATA_FIELDS.map(({ key, label, hint }) => (
            <Field key={key} label={label} error={errors[key]} hint={hint}>
              {(props) => <textarea {...props} spellCheck={false} value={texts[key]} onChange={(event) => setTexts({ ...texts, [key]: event.target.value })} />}
            </Field>
          ))}
        </div>
        <ErrorMessage error={error} title="Could not save" />
        <div className="actions">
          <button type="submit" className="button primary">Save metadata</button>
          {saved ? <span className="muted" role="status">Saved.</span> : null}
        </div>
      </form>
    </Card>
  );
}
