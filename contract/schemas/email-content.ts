import { z } from 'zod';
import { displayNameSchema, paginatedList, uuidSchema } from '../validation/schemas.js';

/**
 * Owner-written email content (spec sections 3 and 7: email themes, templates and drafts,
 * `/emails/send-email`, `/emails/render-email`). Sources are TSX: a template (or draft) exports
 * `EmailTemplate` and optionally `variablesSchema`, a theme exports `EmailTheme`.
 */

/** Owner TSX is capped: the editor's sources are a few KB; this bounds compile time and memory. */
export const tsxSourceSchema = z.string().min(1).max(200_000);

/** Which theme wraps an email: a theme's id, `false` for none, `null` for the project's (`email_theme`). */
export const themeChoiceSchema = z.union([uuidSchema, z.literal(false)]).nullable();

/** Variables a template is rendered with (checked against its `variablesSchema` in the sandbox). */
export const emailVariablesSchema = z.record(z.string().max(100), z.unknown());

export const emailThemeSchema = z.object({
  id: z.string(),
  display_name: z.string(),
  tsx_source: z.string(),
  /** One of the themes every project has ("Default Light", "Default Dark"); patching it keeps a project copy. */
  is_built_in: z.boolean(),
  /** The project's `email_theme` (the built-in light theme when none is set). */
  is_project_default: z.boolean(),
});
export const emailThemeCreateSchema = z.strictObject({ display_name: displayNameSchema.min(1) });
export const emailThemeIdSchema = z.object({ theme_id: uuidSchema });
export const emailThemeUpdateSchema = z.strictObject({
  theme_id: uuidSchema,
  display_name: displayNameSchema.min(1).optional(),
  tsx_source: tsxSourceSchema.optional(),
});

export const emailTemplateSchema = z.object({
  id: z.string(),
  /** The built-in email this template is (`email_verification`, `password_reset`, `magic_link`, `team_invitation`, `sign_in_invitation`), or null for the owner's own. */
  type: z.string().nullable(),
  display_name: z.string(),
  tsx_source: z.string(),
  theme_id: themeChoiceSchema,
  /** A built-in template the project has not edited (its source is the default). */
  is_default: z.boolean(),
});
/** What a template or draft update may change. */
const contentUpdateFields = {
  display_name: displayNameSchema.min(1).optional(),
  tsx_source: tsxSourceSchema.optional(),
  theme_id: themeChoiceSchema.optional(),
};

export const emailTemplateCreateSchema = z.strictObject({
  display_name: displayNameSchema.min(1),
  /** A built-in type always exists already: EMAIL_TEMPLATE_ALREADY_EXISTS, patch it instead. */
  type: z.string().max(64).optional(),
  tsx_source: tsxSourceSchema.optional(),
  theme_id: themeChoiceSchema.optional(),
});
export const emailTemplateIdSchema = z.object({ template_id: uuidSchema });
export const emailTemplateUpdateSchema = z.strictObject({ template_id: uuidSchema, ...contentUpdateFields });

export const emailDraftSchema = z.object({
  id: z.string(),
  display_name: z.string(),
  tsx_source: z.string(),
  theme_id: themeChoiceSchema,
  /** When it was sent with send-email, or null. */
  sent_at_millis: z.number().nullable(),
  /** When a send of it scheduled for later (send-email's scheduled_at_millis) goes out, or null. */
  scheduled_at_millis: z.number().nullable(),
  created_at_millis: z.number(),
});
export const emailDraftCreateSchema = z.strictObject({
  display_name: displayNameSchema.min(1),
  tsx_source: tsxSourceSchema.optional(),
  theme_id: themeChoiceSchema.optional(),
});
export const emailDraftIdSchema = z.object({ draft_id: uuidSchema });
export const emailDraftUpdateSchema = z.strictObject({ draft_id: uuidSchema, ...contentUpdateFields });

/** At most this many recipients by id in one send-email (all_users has no such cap). */
export const SEND_EMAIL_MAX_USER_IDS = 10_000;

/** `POST /emails/send-email`: recipients (user_ids or all_users) and content (html, template_id, or draft_id). */
export const sendEmailSchema = z
  .strictObject({
    user_ids: z.array(uuidSchema).min(1).max(SEND_EMAIL_MAX_USER_IDS).optional(),
    all_users: z.literal(true).optional(),
    html: z.string().min(1).max(1_000_000).optional(),
    template_id: uuidSchema.optional(),
    variables: emailVariablesSchema.optional(),
    draft_id: uuidSchema.optional(),
    /** Required with html; overrides a template's `<Subject>`. */
    subject: z.string().min(1).max(998).optional(),
    theme_id: themeChoiceSchema.optional(),
    /** Overrides the template's `<NotificationCategory>`; html emails default to Transactional. */
    notification_category_name: z.string().min(1).max(256).optional(),
    /**
     * Latch addition: send later, at this time (ms since epoch, at most 30 days ahead:
     * EMAIL_SCHEDULE_TOO_FAR). Everything is checked and the content fixed now; the jobs render and
     * send at that time. A time already past sends at once.
     */
    scheduled_at_millis: z.number().int().min(0).optional(),
  })
  .refine((v) => (v.user_ids === undefined) !== (v.all_users === undefined), {
    message: 'Give exactly one of user_ids and all_users',
    path: ['user_ids'],
  })
  .refine((v) => [v.html, v.template_id, v.draft_id].filter((x) => x !== undefined).length === 1, {
    message: 'Give exactly one of html, template_id and draft_id',
    path: ['html'],
  })
  .refine((v) => v.html === undefined || v.subject !== undefined, { message: 'subject is required with html', path: ['subject'] })
  .refine((v) => v.variables === undefined || v.template_id !== undefined, { message: 'variables go with template_id', path: ['variables'] });
export const sendEmailResultSchema = z.object({
  /** One per recipient, queued: each is rendered and sent by a job, and appears in the sent list. */
  results: z.array(z.object({ user_id: z.string(), email_id: z.string() })),
  /** When the emails go out, for a send scheduled for later (listed in GET /internal/emails/scheduled until then), else null. */
  scheduled_at_millis: z.number().nullable(),
});

/** How far ahead send-email may be scheduled. */
export const MAX_SCHEDULE_AHEAD_MS = 30 * 24 * 3600 * 1000;

/** A send-email call scheduled for later whose jobs have not started yet. */
export const scheduledSendSchema = z.object({
  id: z.string(),
  scheduled_at_millis: z.number(),
  /** The request's subject, or null (the template's own `<Subject>`). */
  subject: z.string().nullable(),
  draft_id: z.string().nullable(),
  template_id: z.string().nullable(),
  recipient_count: z.number(),
  created_at_millis: z.number(),
});

/** `POST /internal/emails/send-preview`: what render-email takes; the preview goes to the signed-in owner. */
export const sendEmailPreviewSchema = renderEmailSchemaBase();
export const sendEmailPreviewResultSchema = z.object({
  /** The owner's address it went to. */
  to: z.string(),
  subject: z.string(),
  /** The id it has in the project's email list (GET /internal/emails/{email_id}). */
  email_id: z.string(),
});

/** `POST /emails/render-email`: a source, or a stored template / draft; a theme source or a theme choice. */
export const renderEmailSchema = renderEmailSchemaBase();

function renderEmailSchemaBase() {
  return z
    .strictObject({
      template_tsx_source: tsxSourceSchema.optional(),
      template_id: uuidSchema.optional(),
      draft_id: uuidSchema.optional(),
      /** Null or absent (without theme_id): no theme, the template's element is the whole email. */
      theme_tsx_source: tsxSourceSchema.nullable().optional(),
      /** A stored theme, `false` for none, null for the project's. */
      theme_id: themeChoiceSchema.optional(),
      variables: emailVariablesSchema.optional(),
    })
    .refine((v) => [v.template_tsx_source, v.template_id, v.draft_id].filter((x) => x !== undefined).length <= 1, {
      message: 'Give at most one of template_tsx_source, template_id and draft_id',
      path: ['template_tsx_source'],
    })
    .refine((v) => v.theme_tsx_source === undefined || v.theme_id === undefined, {
      message: 'Give at most one of theme_tsx_source and theme_id',
      path: ['theme_tsx_source'],
    });
}
export const renderEmailResultSchema = z.object({
  html: z.string(),
  text: z.string(),
  /** From the source's `<Subject>`, or null. */
  subject: z.string().nullable(),
  /** From the source's `<NotificationCategory>`, or null. */
  notification_category: z.string().nullable(),
});

/** One email send-email rendered (or skipped) for a user. */
export const sentUserEmailSchema = z.object({
  id: z.string(),
  to: z.string().nullable(),
  user_id: z.string().nullable(),
  subject: z.string(),
  /** When it was handed to the outbox, or null when it was not (then error says why). */
  sent_at_millis: z.number().nullable(),
  error: z.string().nullable(),
  draft_id: z.string().nullable(),
  template_id: z.string().nullable(),
  created_at_millis: z.number(),
});
export const sentUserEmailListSchema = paginatedList(sentUserEmailSchema);
