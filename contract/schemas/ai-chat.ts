/**
 * `/internal/ai-chat/{thread_id}` (spec section 7): the console's AI drafting assistant. POST asks
 * the model for the next turn (not stored: the console saves what it keeps with PATCH, as Stack
 * Auth's dashboard does), PATCH appends a message to the thread, GET reads the thread back.
 */
import { z } from 'zod';
import { jsonValueSchema, uuidSchema } from '../validation/schemas.js';

export const AI_CHAT_CONTEXT_TYPES = ['email-theme', 'email-template', 'email-draft'] as const;
export type AiChatContextType = (typeof AI_CHAT_CONTEXT_TYPES)[number];

/** Bounds of one request: a chat turn sends the whole conversation to the model. */
export const AI_CHAT_MAX_MESSAGES = 40;
export const AI_CHAT_MAX_MESSAGE_CHARS = 20_000;
/** Messages one thread keeps (PATCH past it: QUOTA_EXCEEDED). */
export const AI_CHAT_MAX_THREAD_MESSAGES = 500;

export const aiChatThreadParamsSchema = z.object({ thread_id: uuidSchema });

const chatMessageSchema = z.object({
  role: z.enum(['user', 'assistant']),
  content: z.string().min(1).max(AI_CHAT_MAX_MESSAGE_CHARS),
});

export const aiChatRequestSchema = z.strictObject({
  thread_id: uuidSchema,
  context_type: z.enum(AI_CHAT_CONTEXT_TYPES),
  messages: z.array(chatMessageSchema).min(1).max(AI_CHAT_MAX_MESSAGES),
  /** The source in the editor now (the model edits it); absent for a new one. */
  current_source: z.string().max(200_000).optional(),
  /** The theme a template or draft proposal is previewed in; absent: none. */
  theme_tsx_source: z.string().max(200_000).optional(),
});
export type AiChatRequest = z.infer<typeof aiChatRequestSchema>;

/** A proposal, compiled and rendered in the sandbox before it is shown. */
export const aiChatProposalSchema = z.object({
  type: z.literal('tool-call'),
  tool_name: z.string(),
  tool_call_id: z.string(),
  args: z.object({ tsx_source: z.string() }),
  rendered: z.object({ html: z.string(), text: z.string(), subject: z.string().nullable() }).nullable(),
  /** Why the last proposal still failed to render after the retries, else null. */
  render_error: z.string().nullable(),
});
export const aiChatContentSchema = z.array(z.union([z.object({ type: z.literal('text'), text: z.string() }), aiChatProposalSchema]));
export type AiChatContent = z.infer<typeof aiChatContentSchema>;
export const aiChatResponseSchema = z.object({ content: aiChatContentSchema });

export const aiChatSaveSchema = z.strictObject({ thread_id: uuidSchema, message: jsonValueSchema });
export const aiChatThreadSchema = z.object({ messages: z.array(jsonValueSchema) });
