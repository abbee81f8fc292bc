/** The project's email content (admin): themes, templates, drafts, rendering, previews and send-email. */
import { AppCore } from '../core.js';
import type { RouterInputs, RouterOutputs } from '../transport.js';

/** A theme: built-in or the project's, with its TSX source. */
export type EmailTheme = RouterOutputs['emailContent']['getTheme'];
/** A template: a built-in email (`type`) or the owner's, with its TSX source and theme choice. */
export type EmailTemplate = RouterOutputs['emailContent']['getTemplate'];
/** A draft: a one-off email, with when it was sent or is scheduled to go. */
export type EmailDraft = RouterOutputs['emailContent']['getDraft'];
/** What render-email and send-preview take: a source or a stored template / draft, a theme, variables. */
export type RenderEmailInput = RouterInputs['emails']['renderEmail'];
/** A rendered email: html, text, subject and notification category. */
export type RenderedEmail = RouterOutputs['emails']['renderEmail'];
/** send-email's input (recipients, content, optional scheduled_at_millis). */
export type SendEmailInput = RouterInputs['emails']['sendEmail'];
export type SendEmailResult = RouterOutputs['emails']['sendEmail'];
/** A send-email call scheduled for later that has not gone out yet. */
export type ScheduledEmailSend = RouterOutputs['emails']['listScheduled']['items'][number];
/** What send-email rendered (or skipped) for one user. */
export type SentUserEmail = RouterOutputs['emails']['listSent']['items'][number];

const CONTENT = ['emailContent.'] as const;
const SENT = ['emails.', 'emailContent.'] as const;

/** Themes, templates and drafts, and sending them. */
export abstract class EmailContentFeature extends AppCore {
  /**
   * The built-in themes (with the project's edits) and the project's own.
   *
   * @example
   * const themes = await admin.listEmailThemes();
   */
  async listEmailThemes(): Promise<EmailTheme[]> {
    return (await this.call((context) => this.trpc.emailContent.listThemes.query({}, { context }))).items;
  }

  /** @example await admin.createEmailTheme({ display_name: 'Brand' }); */
  async createEmailTheme(input: RouterInputs['emailContent']['createTheme']): Promise<EmailTheme> {
    return this.mutate(CONTENT, (context) => this.trpc.emailContent.createTheme.mutate(input, { context }));
  }

  /** Renames a theme or replaces its source (EMAIL_RENDERING_ERROR with the line when it does not render). @example await admin.updateEmailTheme({ theme_id, tsx_source }); */
  async updateEmailTheme(input: RouterInputs['emailContent']['updateTheme']): Promise<EmailTheme> {
    return this.mutate(CONTENT, (context) => this.trpc.emailContent.updateTheme.mutate(input, { context }));
  }

  /** The built-in emails and the project's own templates. @example const templates = await admin.listEmailTemplates(); */
  async listEmailTemplates(): Promise<EmailTemplate[]> {
    return (await this.call((context) => this.trpc.emailContent.listTemplates.query({}, { context }))).items;
  }

  /** @example await admin.createEmailTemplate({ display_name: 'Newsletter', tsx_source }); */
  async createEmailTemplate(input: RouterInputs['emailContent']['createTemplate']): Promise<EmailTemplate> {
    return this.mutate(CONTENT, (context) => this.trpc.emailContent.createTemplate.mutate(input, { context }));
  }

  /** @example await admin.updateEmailTemplate({ template_id, tsx_source }); */
  async updateEmailTemplate(input: RouterInputs['emailContent']['updateTemplate']): Promise<EmailTemplate> {
    return this.mutate(CONTENT, (context) => this.trpc.emailContent.updateTemplate.mutate(input, { context }));
  }

  /** The project's drafts, newest first. @example const drafts = await admin.listEmailDrafts(); */
  async listEmailDrafts(): Promise<EmailDraft[]> {
    return (await this.call((context) => this.trpc.emailContent.listDrafts.query({}, { context }))).items;
  }

  /** @example const draft = await admin.createEmailDraft({ display_name: 'Launch' }); */
  async createEmailDraft(input: RouterInputs['emailContent']['createDraft']): Promise<EmailDraft> {
    return this.mutate(CONTENT, (context) => this.trpc.emailContent.createDraft.mutate(input, { context }));
  }

  /** @example await admin.updateEmailDraft({ draft_id, tsx_source }); */
  async updateEmailDraft(input: RouterInputs['emailContent']['updateDraft']): Promise<EmailDraft> {
    return this.mutate(CONTENT, (context) => this.trpc.emailContent.updateDraft.mutate(input, { context }));
  }

  /** @example await admin.deleteEmailDraft(draftId); */
  async deleteEmailDraft(draftId: string): Promise<void> {
    await this.mutate(CONTENT, (context) => this.trpc.emailContent.deleteDraft.mutate({ draft_id: draftId }, { context }));
  }

  /**
   * Renders a source (or a stored template or draft) in the server's sandbox with a sample user:
   * the editor's live preview. A source that does not compile or run is EMAIL_RENDERING_ERROR
   * with `details.line`.
   *
   * @example
   * const { html, text, subject } = await admin.renderEmail({ template_tsx_source: source, theme_id: null });
   */
  async renderEmail(input: RenderEmailInput): Promise<RenderedEmail> {
    return this.call((context) => this.trpc.emails.renderEmail.mutate(input, { context }));
  }

  /**
   * Renders like renderEmail and sends the result now, through the project's own email server, to
   * the signed-in owner (needs an owner's admin access token). EMAIL_SERVER_SEND_FAILED says what
   * the SMTP server refused.
   *
   * @example
   * const { to } = await admin.sendEmailPreview({ template_tsx_source: source });
   */
  async sendEmailPreview(input: RouterInputs['emails']['sendPreview']): Promise<RouterOutputs['emails']['sendPreview']> {
    return this.mutate(SENT, (context) => this.trpc.emails.sendPreview.mutate(input, { context }));
  }

  /**
   * Emails users a draft, a template or raw html, now or at `scheduled_at_millis` (≤ 30 days ahead).
   *
   * @example
   * await admin.sendEmail({ all_users: true, draft_id: draft.id, scheduled_at_millis: Date.now() + 3_600_000 });
   */
  async sendEmail(input: SendEmailInput): Promise<SendEmailResult> {
    return this.mutate(SENT, (context) => this.trpc.emails.sendEmail.mutate(input, { context }));
  }

  /** send-email calls waiting for their time, soonest first. @example const waiting = await admin.listScheduledEmails(); */
  async listScheduledEmails(): Promise<ScheduledEmailSend[]> {
    return (await this.call((context) => this.trpc.emails.listScheduled.query({}, { context }))).items;
  }

  /** What send-email rendered or skipped per user, newest first. @example const page = await admin.listSentUserEmails({ limit: 50 }); */
  async listSentUserEmails(options: { cursor?: string; limit?: number } = {}): Promise<RouterOutputs['emails']['listSent']> {
    return this.call((context) => this.trpc.emails.listSent.query(options, { context }));
  }
}
