import { z } from 'zod';
import * as schemas from '../../../../contract/schemas/email-content.js';
import { shortList, successSchema } from '../../../../contract/validation/schemas.js';
import type { AuthContext } from '../../../access/context.js';
import type { Deps } from '../../../deps.js';
import { router } from '../../../trpc/init.js';
import { type Parser, asShortList, type inferParser, restOperations, succeedAfter } from '../../../trpc/operation.js';
import { adminProcedure } from '../../../trpc/procedures.js';
import * as drafts from './drafts.js';
import * as templates from './templates.js';
import * as themes from './themes.js';

const op = restOperations(['Emails'], { protect: true });

/**
 * The operations of one kind of owner-written content, which the console edits alike: the kind's
 * list at `/internal/email-<kind>s`, one item at `/{<kind>_id}`, each answered with `item` (as
 * permissions/router.ts builds its two kinds of definitions). An operation takes its summary,
 * its input schema where the kind's id is not enough, and the service function it calls.
 */
function contentKind<K extends 'theme' | 'template' | 'draft', Item extends Parser & z.ZodType, Id extends Parser & z.ZodType<Record<`${K}_id`, string>>>(
  kind: K,
  item: Item,
  id: Id,
) {
  type Dto = inferParser<Item>['in'];
  const all: `/internal/email-${K}s` = `/internal/email-${kind}s`;
  const one: `/internal/email-${K}s/{${K}_id}` = `${all}/{${kind}_id}`;
  const idKey: `${K}_id` = `${kind}_id`;
  return {
    list: (summary: string, service: (deps: Deps, auth: AuthContext) => Promise<Dto[]>) =>
      op(adminProcedure, `GET ${all}`, summary, { input: z.object({}), output: shortList(item) }).query(asShortList(({ ctx }) => service(ctx.deps, ctx.auth))),
    create: <C extends Parser>(summary: string, schema: C, service: (deps: Deps, auth: AuthContext, input: inferParser<C>['out']) => Promise<Dto>) =>
      op(adminProcedure, `POST ${all}`, summary, { input: schema, output: item, successStatus: 201 }).mutation(({ ctx, input }) =>
        service(ctx.deps, ctx.auth, input),
      ),
    get: (summary: string, service: (deps: Deps, auth: AuthContext, id: string) => Promise<Dto>) =>
      op(adminProcedure, `GET ${one}`, summary, { input: id, output: item }).query(({ ctx, input }) => service(ctx.deps, ctx.auth, input[idKey])),
    update: <U extends Parser>(summary: string, schema: U, service: (deps: Deps, auth: AuthContext, input: inferParser<U>['out']) => Promise<Dto>) =>
      op(adminProcedure, `PATCH ${one}`, summary, { input: schema, output: item }).mutation(({ ctx, input }) => service(ctx.deps, ctx.auth, input)),
    delete: (summary: string, service: (deps: Deps, auth: AuthContext, id: string) => Promise<void>) =>
      op(adminProcedure, `DELETE ${one}`, summary, { input: id, output: successSchema }).mutation(
        succeedAfter(({ ctx, input }) => service(ctx.deps, ctx.auth, input[idKey])),
      ),
  };
}

const theme = contentKind('theme', schemas.emailThemeSchema, schemas.emailThemeIdSchema);
const template = contentKind('template', schemas.emailTemplateSchema, schemas.emailTemplateIdSchema);
const draft = contentKind('draft', schemas.emailDraftSchema, schemas.emailDraftIdSchema);

/** `/internal/email-themes`, `/internal/email-templates`, `/internal/email-drafts` (admin). */
export const emailContentRouter = router({
  listThemes: theme.list('The built-in themes (with the project edits) and the project own themes', themes.listThemes),
  createTheme: theme.create('A new theme, starting from the built-in light one', schemas.emailThemeCreateSchema, themes.createTheme),
  getTheme: theme.get('One theme with its source', themes.getTheme),
  updateTheme: theme.update(
    'Rename a theme or replace its source (refused with the line when it does not render)',
    schemas.emailThemeUpdateSchema,
    themes.updateTheme,
  ),

  listTemplates: template.list('The built-in emails (editable) and the project own templates', templates.listTemplates),
  createTemplate: template.create('A new template (a built-in type already exists: patch it)', schemas.emailTemplateCreateSchema, templates.createTemplate),
  getTemplate: template.get('One template with its source', templates.getTemplate),
  updateTemplate: template.update('Rename a template, replace its source, or choose its theme', schemas.emailTemplateUpdateSchema, templates.updateTemplate),
  deleteTemplate: template.delete('Delete a template; a built-in one goes back to its default', templates.deleteTemplate),

  listDrafts: draft.list('The project drafts, newest first', drafts.listDrafts),
  createDraft: draft.create('A new draft', schemas.emailDraftCreateSchema, drafts.createDraft),
  getDraft: draft.get('One draft with its source', drafts.getDraft),
  updateDraft: draft.update('Rename a draft, replace its source, or choose its theme', schemas.emailDraftUpdateSchema, drafts.updateDraft),
  deleteDraft: draft.delete('Delete a draft', drafts.deleteDraft),
});
