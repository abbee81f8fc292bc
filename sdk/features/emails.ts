/** The project's emails: the outbox, trying an email server, and sign-in invitations (admin). */
import type { LatchQuery } from '../cache.js';
import { defineQuery } from '../cache.js';
import { AppCore } from '../core.js';
import { KnownErrors } from '../errors.js';
import type { RouterInputs, RouterOutputs } from '../transport.js';

/** An email of the project's outbox, as listed (`state`: pending, sent, failed or not-delivered). */
export type SentEmail = RouterOutputs['emails']['list']['items'][number];
/** A page of sent emails, newest first: `items` and `pagination.next_cursor` (null on the last page). */
export type SentEmailList = RouterOutputs['emails']['list'];
/** One email with its HTML and plain text. */
export type SentEmailDetail = RouterOutputs['emails']['get'];
/** An email server configuration to try (`shared`, or `standard` with host, port, credentials and sender). */
export type EmailConfig = RouterInputs['emails']['sendTestEmail']['email_config'];
/** What a test email did: `success`, or the SMTP server's `error_message`. */
export type SendTestEmailResult = RouterOutputs['emails']['sendTestEmail'];

/** The project's emails. */
export abstract class EmailsFeature extends AppCore {
  /**
   * A page of the project's emails (newest first) as a cached query.
   *
   * @example
   * admin.subscribe(() => admin.sentEmailsQuery(), (state) => console.log(state.data?.items));
   */
  sentEmailsQuery(options: { cursor?: string; limit?: number } = {}): LatchQuery<SentEmailList> {
    const input = { ...(options.cursor === undefined ? {} : { cursor: options.cursor }), ...(options.limit === undefined ? {} : { limit: options.limit }) };
    return defineQuery(this.appKey('emails.list', input), () => this.call((context) => this.trpc.emails.list.query(input, { context })));
  }

  /**
   * The project's emails, newest first, with their delivery state and last error (without an
   * SMTP server they stay `not-delivered`: the local inbox). Cursor-paginated.
   *
   * @example
   * let page = await admin.listSentEmails();
   * while (page.pagination.next_cursor) page = await admin.listSentEmails({ cursor: page.pagination.next_cursor });
   */
  async listSentEmails(options: { cursor?: string; limit?: number } = {}): Promise<SentEmailList> {
    return this.queryClient.fetchQuery(this.sentEmailsQuery(options));
  }

  /**
   * One email with its HTML and text, or null when the project has no such email.
   *
   * @example
   * const email = await admin.getSentEmail(id);
   * console.log(email?.text);
   */
  async getSentEmail(emailId: string): Promise<SentEmailDetail | null> {
    const input = { email_id: emailId };
    return this.queryClient.fetchQuery(
      this.findQuery(false, 'emails.get', input, (context) => this.trpc.emails.get.query(input, { context }), [KnownErrors.SentEmailNotFound]),
    );
  }

  /**
   * Tries an email server configuration: sends one email now and reports what the SMTP server
   * said (`success: false` with its `error_message`), without saving the configuration.
   *
   * @example
   * const test = await admin.sendTestEmail({
   *   recipientEmail: 'me@example.com',
   *   emailConfig: { type: 'standard', host: 'smtp.example.com', port: 587, username: 'apikey', password: '…', sender_name: 'Shop', sender_email: 'noreply@example.com' },
   * });
   * if (!test.success) showError(test.error_message);
   */
  async sendTestEmail(input: { recipientEmail: string; emailConfig: EmailConfig }): Promise<SendTestEmailResult> {
    const body = { recipient_email: input.recipientEmail, email_config: input.emailConfig };
    return this.mutate(['emails.'], (context) => this.trpc.emails.sendTestEmail.mutate(body, { context }));
  }

  /**
   * Emails someone an invitation to sign in, linking to `callbackUrl` (default: the `urls.signIn`
   * page), which must be a trusted domain of the project.
   *
   * @example
   * await admin.sendSignInInvitation({ email: 'bob@example.com', callbackUrl: 'https://app.example.com/handler/sign-in' });
   */
  async sendSignInInvitation(input: { email: string; callbackUrl?: string }): Promise<void> {
    const body = { email: input.email, callback_url: this.signInCallbackUrl(input.callbackUrl, 'sendSignInInvitation') };
    await this.mutate(['emails.'], (context) => this.trpc.emails.sendSignInInvitation.mutate(body, { context }));
  }
}
