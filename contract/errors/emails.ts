/** E-mail: rendering, the project's SMTP server, the outbox and templates (spec section 8, "Email"). */
import { defineFixedError, defineKnownError } from './known-error.js';

export const emailErrors = {
  /** `line` is the line in the owner's TSX (template, theme or draft) when the failure has one. */
  EmailRenderingError: defineKnownError('EMAIL_RENDERING_ERROR', 400, (error: string, line: number | null = null) => ({
    message: `Failed to render the e-mail with its theme: ${error}`,
    details: line === null ? { error } : { error, line },
  })),

  RequiresCustomEmailServer: defineFixedError(
    'REQUIRES_CUSTOM_EMAIL_SERVER',
    400,
    "This action requires a custom SMTP server. Configure one in the project's e-mail settings and try again.",
  ),

  /**
   * The project queued more emails in the last hour than the deployment allows
   * (LATCH_EMAIL_RATE_LIMIT_PER_HOUR). Nothing was sent and the action that would have sent it did
   * not happen; sent with a Retry-After header.
   */
  EmailRateLimited: defineKnownError('EMAIL_RATE_LIMITED', 429, (retryAfterSeconds: number, limitPerHour: number) => ({
    message:
      `This project has sent its limit of ${limitPerHour} e-mails in the last hour. Nothing was sent. ` +
      `Try again in ${retryAfterSeconds} seconds (see the Retry-After header), or ask the operator to raise LATCH_EMAIL_RATE_LIMIT_PER_HOUR.`,
    details: { retry_after_seconds: retryAfterSeconds, limit_per_hour: limitPerHour },
  })),

  /**
   * A project's own SMTP server (a test email, or the outbox) resolves to an address this
   * deployment does not connect to: loopback, private, link-local, CGNAT, metadata and other
   * non-public ranges are refused unless the operator sets LATCH_SMTP_ALLOW_PRIVATE=true. The
   * address itself is not told (it would map the operator's internal network).
   */
  EmailServerHostNotAllowed: defineKnownError('EMAIL_SERVER_HOST_NOT_ALLOWED', 400, (host: string) => ({
    message:
      `The email server host "${host}" resolves to a private, loopback, link-local or otherwise non-public address, which this deployment does not connect to. ` +
      'Use a public SMTP server, or (local development only) ask the operator to set LATCH_SMTP_ALLOW_PRIVATE=true.',
    details: { host },
  })),

  /** A project's own SMTP server may listen only on an SMTP port, unless LATCH_SMTP_ALLOW_PRIVATE=true. */
  EmailServerPortNotAllowed: defineKnownError('EMAIL_SERVER_PORT_NOT_ALLOWED', 400, (port: number, allowedPorts: readonly number[]) => ({
    message: `The email server port ${port} is not allowed. Use one of the SMTP ports ${allowedPorts.join(', ')}.`,
    details: { port, allowed_ports: [...allowedPorts] },
  })),

  SentEmailNotFound: defineKnownError('EMAIL_NOT_FOUND', 404, (emailId: string) => ({
    message: `The e-mail ${emailId} does not exist in this project.`,
    details: { email_id: emailId },
  })),

  EmailTemplateAlreadyExists: defineFixedError(
    'EMAIL_TEMPLATE_ALREADY_EXISTS',
    409,
    'An e-mail template of this type already exists. Update it instead of creating a new one.',
  ),

  /** A theme, template or draft id that is not one of this project's (nor a built-in). */
  EmailContentNotFound: defineKnownError('EMAIL_CONTENT_NOT_FOUND', 404, (kind: 'theme' | 'template' | 'draft', id: string) => ({
    message: `The e-mail ${kind} ${id} does not exist in this project.`,
    details: { kind, id },
  })),

  /** send-email to user ids that are not this project's users: nothing was queued. */
  EmailRecipientsNotFound: defineKnownError('EMAIL_RECIPIENTS_NOT_FOUND', 400, (userIds: string[]) => ({
    message: `These users do not exist in this project: ${userIds.slice(0, 10).join(', ')}${userIds.length > 10 ? ', …' : ''}. Nothing was sent.`,
    details: { user_ids: userIds.slice(0, 100) },
  })),

  /**
   * Latch addition (the console's "Send a test to me"): a preview goes only to the signed-in
   * owner's own address, so it needs an owner's session (an admin key has no person behind it) whose
   * user has a primary email.
   */
  EmailPreviewNeedsOwner: defineKnownError('EMAIL_PREVIEW_NEEDS_OWNER', 400, (reason: 'no_owner_session' | 'no_owner_email') => ({
    message:
      reason === 'no_owner_session'
        ? "A preview is sent to the signed-in project owner's own email: call with an owner's admin access token (the console), not an admin key."
        : 'Your account has no primary email to send the preview to. Add one in your account settings.',
    details: { reason },
  })),

  /**
   * Latch addition: the project's own SMTP server did not take a message sent right away (a
   * preview). `message` is Latch's wording of the failure with the SMTP reply code when there is
   * one (transport.ts smtpFailure: never the server's own text).
   */
  EmailServerSendFailed: defineKnownError('EMAIL_SERVER_SEND_FAILED', 400, (reason: string, message: string) => ({
    message: `The project's email server did not take the e-mail: ${message}`,
    details: { reason, smtp_error: message },
  })),

  /** Latch addition: send-email's scheduled_at_millis is at most 30 days ahead. */
  EmailScheduleTooFar: defineKnownError('EMAIL_SCHEDULE_TOO_FAR', 400, (scheduledAtMillis: number, maxScheduledAtMillis: number) => ({
    message: `An e-mail can be scheduled at most 30 days ahead (until ${new Date(maxScheduledAtMillis).toISOString()}). Nothing was sent.`,
    details: { scheduled_at_millis: scheduledAtMillis, max_scheduled_at_millis: maxScheduledAtMillis },
  })),
} as const;
