import * as schemas from '../../../../contract/schemas/email-content.js';
import { shortList, successSchema } from '../../../../contract/validation/schemas.js';
import { router } from '../../../trpc/init.js';
import { asShortList, restOperations, succeedAfter } from '../../../trpc/operation.js';
import { adminProcedure } from '../../../trpc/procedures.js';
import { z } from 'zod';
import * as drafts from './drafts.js';
import * as templates from './templates.js';
import * as themes from './themes.js';

const op = restOperations(['Emails'], { protect: true });

/** `/internal/email-themes`, `/internal/email-templates`, `/internal/email-drafts` (admin). */
export const emailContentRouter = router({
  listThemes: op(adminProcedure, 'GET /internal/email-themes', 'The built-in themes (with the project edits) and the project own themes', {
    input: z.object({}),
    output: shortList(schemas.emailThemeSchema),
  }).query(asShortList(({ ctx }) => themes.listThemes(ctx.deps, ctx.auth))),
  createTheme: op(adminProcedure, 'POST /internal/email-themes', 'A new theme, starting from the built-in light one', {
    input: schemas.emailThemeCreateSchema,
    output: schemas.emailThemeSchema,
    successStatus: 201,
  }).mutation(({ ctx, input }) => themes.createTheme(ctx.deps, ctx.auth, input)),
  getTheme: op(adminProcedure, 'GET /internal/email-themes/{theme_id}', 'One theme with its source', {
    input: schemas.emailThemeIdSchema,
    output: schemas.emailThemeSchema,
  }).query(({ ctx, input }) => themes.getTheme(ctx.deps, ctx.auth, input.theme_id)),
  updateTheme: op(
    adminProcedure,
    'PATCH /internal/email-themes/{theme_id}',
    'Rename a theme or replace its source (refused with the line when it does not render)',
    { input: schemas.emailThemeUpdateSchema, output: schemas.emailThemeSchema },
  ).mutation(({ ctx, input }) => themes.updateTheme(ctx.deps, ctx.auth, input)),

  listTemplates: op(adminProcedure, 'GET /internal/email-templates', 'The built-in emails (editable) and the project own templates', {
    input: z.object({}),
    output: shortList(schemas.emailTemplateSchema),
  }).query(asShortList(({ ctx }) => templates.listTemplates(ctx.deps, ctx.auth))),
  createTemplate: op(adminProcedure, 'POST /internal/email-templates', 'A new template (a built-in type already exists: patch it)', {
    input: schemas.emailTemplateCreateSchema,
    output: schemas.emailTemplateSchema,
    successStatus: 201,
  }).mutation(({ ctx, input }) => templates.createTemplate(ctx.deps, ctx.auth, input)),
  getTemplate: op(adminProcedure, 'GET /internal/email-templates/{template_id}', 'One template with its source', {
    input: schemas.emailTemplateIdSchema,
    output: schemas.emailTemplateSchema,
  }).query(({ ctx, input }) => templates.getTemplate(ctx.deps, ctx.auth, input.template_id)),
  updateTemplate: op(adminProcedure, 'PATCH /internal/email-templates/{template_id}', 'Rename a template, replace its source, or choose its theme', {
    input: schemas.emailTemplateUpdateSchema,
    output: schemas.emailTemplateSchema,
  }).mutation(({ ctx, input }) => templates.updateTemplate(ctx.deps, ctx.auth, input)),
  deleteTemplate: op(adminProcedure, 'DELETE /internal/email-templates/{template_id}', 'Delete a template; a built-in one goes back to its default', {
    input: schemas.emailTemplateIdSchema,
    output: successSchema,
  }).mutation(succeedAfter(({ ctx, input }) => templates.deleteTemplate(ctx.deps, ctx.auth, input.template_id))),

  listDrafts: op(adminProcedure, 'GET /internal/email-drafts', 'The project drafts, newest first', {
    input: z.object({}),
    output: shortList(schemas.emailDraftSchema),
  }).query(asShortList(({ ctx }) => drafts.listDrafts(ctx.deps, ctx.auth))),
  createDraft: op(adminProcedure, 'POST /internal/email-drafts', 'A new draft', {
    input: schemas.emailDraftCreateSchema,
    output: schemas.emailDraftSchema,
    successStatus: 201,
  }).mutation(({ ctx, input }) => drafts.createDraft(ctx.deps, ctx.auth, input)),
  getDraft: op(adminProcedure, 'GET /internal/email-drafts/{draft_id}', 'One draft with its source', {
    input: schemas.emailDraftIdSchema,
    output: schemas.emailDraftSchema,
  }).query(({ ctx, input }) => drafts.getDraft(ctx.deps, ctx.auth, input.draft_id)),
  updateDraft: op(adminProcedure, 'PATCH /internal/email-drafts/{draft_id}', 'Rename a draft, replace its source, or choose its theme', {
    input: schemas.emailDraftUpdateSchema,
    output: schemas.emailDraftSchema,
  }).mutation(({ ctx, input }) => drafts.updateDraft(ctx.deps, ctx.auth, input)),
  deleteDraft: op(adminProcedure, 'DELETE /internal/email-drafts/{draft_id}', 'Delete a draft', {
    input: schemas.emailDraftIdSchema,
    output: successSchema,
  }).mutation(succeedAfter(({ ctx, input }) => drafts.deleteDraft(ctx.deps, ctx.auth, input.draft_id))),
});
