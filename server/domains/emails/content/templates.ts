import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { KnownErrors } from '../../../../contract/errors/known-errors.js';
import type { emailTemplateCreateSchema, emailTemplateSchema, emailTemplateUpdateSchema } from '../../../../contract/schemas/email-content.js';
import type { AuthContext, Tenancy } from '../../../access/context.js';
import type { Executor } from '../../../db/executor.js';
import type { Deps } from '../../../deps.js';
import { compileSources, SandboxRenderError, toRenderingError } from '../sandbox/index.js';
import { BUILT_IN_TEMPLATE_TYPES, BUILT_IN_TEMPLATES, NEW_TEMPLATE_SOURCE } from './default-sources.js';
import * as q from './queries.js';
import { fromThemeColumns, toThemeColumns } from './render.js';

/**
 * `/internal/email-templates`: the built-in emails (always there, with their default source until
 * the project edits them; deleting one restores the default) and the project's own templates.
 */

type EmailTemplate = z.infer<typeof emailTemplateSchema>;

const BUILT_IN_BY_ID = new Map(BUILT_IN_TEMPLATE_TYPES.map((type) => [BUILT_IN_TEMPLATES[type].id as string, type]));

function defaultRow(type: (typeof BUILT_IN_TEMPLATE_TYPES)[number]): q.TemplateRow {
  const t = BUILT_IN_TEMPLATES[type];
  return { id: t.id, type, display_name: t.displayName, tsx_source: t.tsxSource, theme_mode: 'project', theme_id: null };
}

function toDto(row: q.TemplateRow, isDefault: boolean): EmailTemplate {
  return { id: row.id, type: row.type, display_name: row.display_name, tsx_source: row.tsx_source, theme_id: fromThemeColumns(row), is_default: isDefault };
}

/** A template as stored for this project, or a built-in's default; null when the id is neither. */
export async function findTemplateRow(db: Executor, tenancy: Tenancy, id: string): Promise<{ row: q.TemplateRow; isDefault: boolean } | null> {
  const row = await q.findTemplate(db, tenancy.id, id);
  if (row) return { row, isDefault: false };
  const type = BUILT_IN_BY_ID.get(id);
  return type ? { row: defaultRow(type), isDefault: true } : null;
}

/** A source that does not compile is refused with its line (EMAIL_RENDERING_ERROR), not stored. */
export async function checkCompiles(template: string): Promise<void> {
  try {
    await compileSources({ template, theme: null });
  } catch (error) {
    if (error instanceof SandboxRenderError) throw toRenderingError(error);
    throw error;
  }
}

export async function listTemplates(deps: Deps, auth: AuthContext): Promise<EmailTemplate[]> {
  const rows = await q.listTemplates(deps.db, auth.tenancy.id);
  const edited = new Map(rows.map((r) => [r.id, r]));
  const builtIns = BUILT_IN_TEMPLATE_TYPES.map((type) => {
    const row = edited.get(BUILT_IN_TEMPLATES[type].id);
    return row ? toDto(row, false) : toDto(defaultRow(type), true);
  });
  return [...builtIns, ...rows.filter((r) => !BUILT_IN_BY_ID.has(r.id)).map((r) => toDto(r, false))];
}

export async function getTemplate(deps: Deps, auth: AuthContext, id: string): Promise<EmailTemplate> {
  const found = await findTemplateRow(deps.db, auth.tenancy, id);
  if (!found) throw new KnownErrors.EmailContentNotFound('template', id);
  return toDto(found.row, found.isDefault);
}

/** An owner template; a built-in type (or any type twice) is EMAIL_TEMPLATE_ALREADY_EXISTS: patch it instead. */
export async function createTemplate(deps: Deps, auth: AuthContext, input: z.infer<typeof emailTemplateCreateSchema>): Promise<EmailTemplate> {
  if (input.type !== undefined && (BUILT_IN_TEMPLATE_TYPES as string[]).includes(input.type)) throw new KnownErrors.EmailTemplateAlreadyExists();
  const source = input.tsx_source ?? NEW_TEMPLATE_SOURCE;
  await checkCompiles(source);
  const row: q.TemplateRow = {
    id: randomUUID(),
    type: input.type ?? null,
    display_name: input.display_name,
    tsx_source: source,
    ...toThemeColumns(input.theme_id ?? null),
  };
  return deps.db.transaction().execute(async (trx) => {
    if (row.type !== null && (await q.findTemplateByType(trx, auth.tenancy.id, row.type))) throw new KnownErrors.EmailTemplateAlreadyExists();
    await q.upsertTemplate(trx, auth.tenancy.id, row);
    return toDto(row, false);
  });
}

export async function updateTemplate(deps: Deps, auth: AuthContext, input: z.infer<typeof emailTemplateUpdateSchema>): Promise<EmailTemplate> {
  if (input.tsx_source !== undefined) await checkCompiles(input.tsx_source);
  return deps.db.transaction().execute(async (trx) => {
    const found = await findTemplateRow(trx, auth.tenancy, input.template_id);
    if (!found) throw new KnownErrors.EmailContentNotFound('template', input.template_id);
    const row: q.TemplateRow = {
      ...found.row,
      display_name: input.display_name ?? found.row.display_name,
      tsx_source: input.tsx_source ?? found.row.tsx_source,
      ...(input.theme_id === undefined ? {} : toThemeColumns(input.theme_id)),
    };
    await q.upsertTemplate(trx, auth.tenancy.id, row);
    return toDto(row, false);
  });
}

/** Deletes an owner template; for a built-in one, drops the project's edit (the default comes back). */
export async function deleteTemplate(deps: Deps, auth: AuthContext, id: string): Promise<void> {
  const deleted = await q.deleteTemplate(deps.db, auth.tenancy.id, id);
  if (!deleted && !BUILT_IN_BY_ID.has(id)) throw new KnownErrors.EmailContentNotFound('template', id);
}
