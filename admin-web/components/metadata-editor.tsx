import { type FormEvent, useState } from 'react';
import type { z } from 'zod';
import type { ServerUserUpdate } from '../../sdk/index.js';
import { Card, Field, SaveFooter, useFormAction } from './ui.js';

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
export function MetadataEditor({
  values,
  schema,
  extra = {},
  onSave,
}: {
  values: Record<MetadataKey, unknown>;
  schema: z.ZodType;
  extra?: Record<string, unknown>;
  onSave: (patch: Record<MetadataKey, JsonValue>) => Promise<unknown>;
}) {
  const initial = (key: MetadataKey) => JSON.stringify(values[key] ?? null, null, 2);
  const [texts, setTexts] = useState<Record<MetadataKey, string>>({
    client_metadata: initial('client_metadata'),
    client_read_only_metadata: initial('client_read_only_metadata'),
    server_metadata: initial('server_metadata'),
  });
  const [parseErrors, setParseErrors] = useState<Record<string, string> | null>(null);
  const save = useFormAction(schema, (patch: Record<MetadataKey, JsonValue>) => onSave(patch));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const patch: Partial<Record<MetadataKey, JsonValue>> = {};
    const invalid: Record<string, string> = {};
    for (const { key } of METADATA_FIELDS) {
      try {
        patch[key] = JSON.parse(texts[key]);
      } catch (caught) {
        invalid[key] = `Not valid JSON: ${caught instanceof Error ? caught.message : String(caught)}`;
      }
    }
    setParseErrors(Object.keys(invalid).length > 0 ? invalid : null);
    if (Object.keys(invalid).length > 0) return save.reset();
    // Then the server's own rules (any JSON value, or null).
    const complete = {
      client_metadata: patch.client_metadata ?? null,
      client_read_only_metadata: patch.client_read_only_metadata ?? null,
      server_metadata: patch.server_metadata ?? null,
    };
    void save.submit(complete, { ...extra, ...patch });
  };
  const errors = parseErrors ?? save.errors;
  return (
    <Card title="Metadata">
      <form className="stack" onSubmit={submit} noValidate>
        <div className="grid">
          {METADATA_FIELDS.map(({ key, label, hint }) => (
            <Field key={key} label={label} error={errors[key]} hint={hint}>
              {(props) => <textarea {...props} spellCheck={false} value={texts[key]} onChange={(event) => setTexts({ ...texts, [key]: event.target.value })} />}
            </Field>
          ))}
        </div>
        <SaveFooter action={save} label="Save metadata" />
      </form>
    </Card>
  );
}
