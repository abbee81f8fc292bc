/**
 * Notification categories and preferences, one-click unsubscribe, and the AI drafting assistant
 * (issue 17 items 4 and 6; spec section 8 has no code for these, so they are Latch's own).
 */
import { defineFixedError, defineKnownError } from './known-error.js';

export const notificationErrors = {
  NotificationCategoryNotFound: defineKnownError('NOTIFICATION_CATEGORY_NOT_FOUND', 404, (category: string) => ({
    message: `The notification category "${category}" does not exist in this project.`,
    details: { notification_category: category },
  })),

  /** The built-in Transactional category (and any an owner created with can_disable false). */
  NotificationCategoryCannotBeDisabled: defineKnownError('NOTIFICATION_CATEGORY_CANNOT_BE_DISABLED', 400, (categoryName: string) => ({
    message: `The notification category "${categoryName}" cannot be disabled: its emails are needed to use the account.`,
    details: { notification_category_name: categoryName },
  })),

  NotificationCategoryAlreadyExists: defineKnownError('NOTIFICATION_CATEGORY_ALREADY_EXISTS', 409, (categoryName: string) => ({
    message: `A notification category named "${categoryName}" already exists in this project (names are compared without case).`,
    details: { notification_category_name: categoryName },
  })),

  /** A one-click unsubscribe link that was altered, cut short, or made for another project or user. */
  UnsubscribeLinkInvalid: defineFixedError(
    'UNSUBSCRIBE_LINK_INVALID',
    400,
    'This unsubscribe link is not valid. Use the link from the most recent email, or change your email preferences in your account settings.',
  ),

  AiChatNotConfigured: defineFixedError(
    'AI_CHAT_NOT_CONFIGURED',
    404,
    'The AI drafting assistant is not enabled on this Latch server. Set LATCH_AI_BASE_URL (any OpenAI-compatible /v1 endpoint), LATCH_AI_API_KEY and LATCH_AI_MODEL, then restart it.',
  ),

  AiChatThreadFull: defineKnownError('AI_CHAT_THREAD_FULL', 409, (limit: number) => ({
    message: `This AI chat thread already holds ${limit} messages. Start a new thread.`,
    details: { limit },
  })),

  /** The model's provider answered 429: nothing is retried here (a chat turn is slow and costs money). */
  AiProviderRateLimited: defineKnownError('AI_PROVIDER_RATE_LIMITED', 429, (retryAfterSeconds: number | null) => ({
    message:
      retryAfterSeconds === null
        ? 'The AI provider is rate limiting this server. Try again in a moment.'
        : `The AI provider is rate limiting this server. Try again in ${retryAfterSeconds} seconds.`,
    details: { retry_after_seconds: retryAfterSeconds },
  })),

  /** The provider failed (5xx, unreachable, timed out, or an answer that is not a chat completion); its own text is not relayed. */
  AiProviderError: defineKnownError('AI_PROVIDER_ERROR', 502, (reason: string) => ({
    message: `The AI provider did not answer usefully (${reason}). Try again, or check LATCH_AI_BASE_URL and LATCH_AI_MODEL.`,
    details: { reason },
  })),
} as const;
