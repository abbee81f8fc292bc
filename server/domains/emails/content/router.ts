import type { inferParser, Parser } from '@trpc/server/unstable-core-do-not-import';
import * as schemas from '../../../../contract/schemas/email-content.js';
import { shortList, successSchema } from '../../../../contract/validation/schemas.js';
import type { AuthContext } from '../../../access/context.js';
import type { Deps } from '../../../deps.js';
import { router } from '../../../trpc/init.js';
import { asShortList, restOperations, succeedAfter } from '../../../trpc/operation.js';
import { adminProcedure } from '../../../trpc/procedures.js';
import { z } from 'zod';
import * as drafts from './drafts.js';
import * as templates from './templates.js';
import * as themes from './themes.js';

const op = restOperations(['Emails'], { protect: true });

/**
 * One kind of email content (themes, templates, drafts), all alike under `/internal/email-<kind>s`:
 * list, create, get by id and update, each one call of the kind's service (`themes.ts`: `listThemes`,
 * `createTheme`, `getTheme`, `updateTheme`).
 */
interface ContentKind<Item extends z.ZodType, Create extends Parser, Update extends Parser, IdParam extends string> {
  path: `/internal/email-${string}`;
  idParam: IdParam;
  schemas: { item: Item; create: Create; id: z.ZodType<Record<IdParam, string>, Record<IdParam, string>>; update: Update };
  summaries: { list: string; create: string; get: string; update: string };
}

type ContentService<Kind extends string, Item extends z.ZodType, Create extends Parser, Update extends Parser> = Record<
  `list${Kind}s`,
  (deps: Deps, auth: AuthContext) => Promise<z.input<Item>[]>
> &
  Record<`create${Kind}`, (deps: Deps, auth: AuthContext, input: inferParser<Create>['out']) => Promise<z.input<Item>>> &
  Record<`get${Kind}`, (deps: Deps, auth: AuthContext, id: string) => Promise<z.input<Item>>> &
  Record<`update${Kind}`, (deps: Deps, auth: AuthContext, input: inferParser<Update>['out']) => Promise<z.input<Item>>>;

/**
 * The list, create, get and update operations of one kind of content, under the service's names
 * (`listThemes`, `createTheme`, `getTheme`, `updateTheme`). The service's functions are checked
 * against the schemas at the call (ContentService); inside, the procedures' types come from the
 * schemas, and the functions are called untyped (tRPC's resolver types cannot be matched with
 * generic schemas).
 */
function contentOperations<Kind extends string, Item extends z.ZodType, Create extends Parser, Update extends Parser, IdParam extends string>(
  kind: Kind,
  service: ContentService<Kind, Item, Create, Update>,
  content: ContentKind<Item, Create, Update, IdParam>,
) {
  const { path, idParam, summaries } = content;
  const names = { list: `list${kind}s`, create: `create${kind}`, get: `get${kind}`, update: `update${kind}` } as const;
  const call = service as unknown as Record<string, (deps: Deps, auth: AuthContext, argument?: unknown) => Promise<never>>;
  const list = op(adminProcedure, `GET ${path}`, summaries.list, { input: z.object({}), output: shortList(content.schemas.item) }).query(
    asShortList(({ ctx }) => call[names.list]!(ctx.deps, ctx.auth)),
  );
  const create = op(adminProcedure, `POST ${path}`, summaries.create, {
    input: content.schemas.create,
    output: content.schemas.item,
    successStatus: 201,
  }).mutation(({ ctx, input }) => call[names.create]!(ctx.deps, ctx.auth, input));
  const get = op(adminProcedure, `GET ${path}/{${idParam}}`, summaries.get, { input: content.schemas.id, output: content.schemas.item }).query(
    ({ ctx, input }) => call[names.get]!(ctx.deps, ctx.auth, (input as Record<IdParam, string>)[idParam]),
  );
  const update = op(adminProcedure, `PATCH ${path}/{${idParam}}`, summaries.update, { input: content.schemas.update, output: content.schemas.item }).mutation(
    ({ ctx, input }) => call[names.update]!(ctx.deps, ctx.auth, input),
  );
  return { [names.list]: list, [names.create]: create, [names.get]: get, [names.update]: update } as Record<`list${Kind}s`, typeof list> &
    Record<`create${Kind}`, typeof create> &
    Record<`get${Kind}`, typeof get> &
    Record<`update${Kind}`, typeof update>;
}

/** `/internal/email-themes`, `/internal/email-templates`, `/internal/email-drafts` (admin). */
export const emailContentRouter = router({
  ...contentOperations('Theme', themes, {
    path: '/internal/email-themes',
    idParam: 'theme_id',
    schemas: { item: schemas.emailThemeSchema, create: schemas.emailThemeCreateSchema, id: schemas.emailThemeIdSchema, update: schemas.emailThemeUpdateSchema },
    summaries: {
      list: 'The built-in themes (with the project edits) and the project own themes',
      create: 'A new theme, starting from the built-in light one',
      get: 'One theme with its source',
      update: 'Rename a theme or replace its source (refused with the line when it does not render)',
    },
  }),

  ...contentOperations('Template', templates, {
    path: '/internal/email-templates',
    idParam: 'template_id',
    schemas: {
      item: schemas.emailTemplateSchema,
      create: schemas.emailTemplateCreateSchema,
      id: schemas.emailTemplateIdSchema,
      update: schemas.emailTemplateUpdateSchema,
    },
    summaries: {
      list: 'The built-in emails (editable) and the project own templates',
      create: 'A new template (a built-in type already exists: patch it)',
      get: 'One template with its source',
      update: 'Rename a template, replace its source, or choose its theme',
    },
  }),
  deleteTemplate: op(adminProcedure, 'DELETE /internal/email-templates/{template_id}', 'Delete a template; a built-in one goes back to its default', {
    input: schemas.emailTemplateIdSchema,
    output: successSchema,
  }).mutation(succeedAfter(({ ctx, input }) => templates.deleteTemplate(ctx.deps, ctx.auth, input.template_id))),

  ...contentOperations('Draft', drafts, {
    path: '/internal/email-drafts',
    idParam: 'draft_id',
    schemas: { item: schemas.emailDraftSchema, create: schemas.emailDraftCreateSchema, id: schemas.emailDraftIdSchema, update: schemas.emailDraftUpdateSchema },
    summaries: {
      list: 'The project drafts, newest first',
      create: 'A new draft',
      get: 'One draft with its source',
      update: 'Rename a draft, replace its source, or choose its theme',
    },
  }),
  deleteDraft: op(adminProcedure, 'DELETE /internal/email-drafts/{draft_id}', 'Delete a draft', {
    input: schemas.emailDraftIdSchema,
    output: successSchema,
  }).mutation(succeedAfter(({ ctx, input }) => drafts.deleteDraft(ctx.deps, ctx.auth, input.draft_id))),
});
