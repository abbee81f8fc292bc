import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { KnownErrors } from '../../../../contract/errors/known-errors.js';
import type { emailThemeSchema } from '../../../../contract/schemas/email-content.js';
import type { AuthContext } from '../../../access/context.js';
import type { Deps } from '../../../deps.js';
import { BUILT_IN_THEMES, NEW_THEME_SOURCE } from './default-sources.js';
import * as q from './queries.js';
import { findThemeSource, projectThemeId, renderOrThrow, sampleInput } from './render.js';

/** `/internal/email-themes`: the built-in themes (editable per project) and the project's own. */

type EmailTheme = z.infer<typeof emailThemeSchema>;

const BUILT_IN_IDS = new Set<string>(BUILT_IN_THEMES.map((t) => t.id));

function toDto(auth: AuthContext, row: q.ThemeRow): EmailTheme {
  return { ...row, is_built_in: BUILT_IN_IDS.has(row.id), is_project_default: projectThemeId(auth.project) === row.id };
}

/** A theme must at least wrap a plain template; a broken one is refused with its line, not stored. */
const PROBE_TEMPLATE = "import { Text } from '@react-email/components';\nexport function EmailTemplate() { return <Text>Preview</Text>; }";

async function checkTheme(auth: AuthContext, source: string): Promise<void> {
  await renderOrThrow(auth.tenancy.id, PROBE_TEMPLATE, source, sampleInput(auth.project, {}));
}

export async function listThemes(deps: Deps, auth: AuthContext): Promise<EmailTheme[]> {
  const rows = await q.listThemes(deps.db, auth.tenancy.id);
  const edited = new Map(rows.map((r) => [r.id, r]));
  const builtIns = BUILT_IN_THEMES.map((t) => edited.get(t.id) ?? { id: t.id, display_name: t.displayName, tsx_source: t.tsxSource });
  return [...builtIns, ...rows.filter((r) => !BUILT_IN_IDS.has(r.id))].map((row) => toDto(auth, row));
}

export async function getTheme(deps: Deps, auth: AuthContext, id: string): Promise<EmailTheme> {
  const theme = await findThemeSource(deps.db, auth.tenancy, id);
  if (!theme) throw new KnownErrors.EmailContentNotFound('theme', id);
  return toDto(auth, theme);
}

export async function createTheme(deps: Deps, auth: AuthContext, input: { display_name: string }): Promise<EmailTheme> {
  const row = { id: randomUUID(), display_name: input.display_name, tsx_source: NEW_THEME_SOURCE };
  await q.upsertTheme(deps.db, auth.tenancy.id, row);
  return toDto(auth, row);
}

/** Patching a built-in theme stores the project's copy under the same id (the others keep the original). */
export async function updateTheme(deps: Deps, auth: AuthContext, input: { theme_id: string; display_name?: string; tsx_source?: string }): Promise<EmailTheme> {
  if (input.tsx_source !== undefined) await checkTheme(auth, input.tsx_source);
  return deps.db.transaction().execute(async (trx) => {
    const current = await findThemeSource(trx, auth.tenancy, input.theme_id);
    if (!current) throw new KnownErrors.EmailContentNotFound('theme', input.theme_id);
    const row = { id: current.id, display_name: input.display_name ?? current.display_name, tsx_source: input.tsx_source ?? current.tsx_source };
    await q.upsertTheme(trx, auth.tenancy.id, row);
    return toDto(auth, row);
  });
}
