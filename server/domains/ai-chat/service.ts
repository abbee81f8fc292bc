/**
 * The AI drafting assistant (`/internal/ai-chat/{thread_id}`): one chat turn against the
 * deployment's OpenAI-compatible model, whose proposals (a `propose_email_source` tool call with a
 * whole TSX file) are compiled and rendered in the email sandbox before they are returned. A
 * proposal that fails goes back to the model as the tool's answer with the error and its line, at
 * most MAX_FIX_ATTEMPTS times; unlike Stack Auth, the console never receives unchecked source.
 */
import { randomUUID } from 'node:crypto';
import type { Deps } from '../../deps.js';
import type { AuthContext } from '../../access/context.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { z } from 'zod';
import { AI_CHAT_MAX_THREAD_MESSAGES, type AiChatContent, type AiChatRequest, type aiChatThreadSchema } from '../../../contract/schemas/ai-chat.js';
import { renderEmailPreview } from '../emails/owner-render.js';
import { type ChatMessage, complete, type ToolCall } from './provider.js';
import { PROPOSE_TOOL, PROPOSE_TOOL_DEFINITION, systemPrompt } from './prompts.js';
import * as q from './queries.js';

/** Times a failing proposal is sent back to the model to fix (so at most 3 model calls a turn). */
export const MAX_FIX_ATTEMPTS = 2;

/** What a theme proposal is previewed with. */
const SAMPLE_TEMPLATE = `import { Heading, Text } from '@react-email/components';
import { Subject } from '@latch/emails';
export function EmailTemplate({ user, project }) {
  return <><Subject value={'A message from ' + project.displayName} /><Heading>Hello {user.displayName}</Heading><Text>This is how your emails look in this theme.</Text></>;
}`;

/** Progress of a turn, for the streamed route (server/http/ai-chat-stream.ts). */
export type ChatEvent = { type: 'text'; delta: string } | { type: 'status'; message: string };

export function configuredAi(deps: Deps) {
  const settings = deps.env.ai;
  if (!settings?.baseUrl) throw new KnownErrors.AiChatNotConfigured();
  return { ...settings, baseUrl: settings.baseUrl };
}

type Proposal = Extract<AiChatContent[number], { type: 'tool-call' }>;

async function renderProposal(deps: Deps, auth: AuthContext, input: AiChatRequest, call: ToolCall): Promise<Proposal> {
  const proposal: Proposal = {
    type: 'tool-call',
    tool_name: call.function.name,
    tool_call_id: call.id,
    args: { tsx_source: '' },
    rendered: null,
    render_error: null,
  };
  let source: unknown;
  try {
    source = (JSON.parse(call.function.arguments) as { tsx_source?: unknown }).tsx_source;
  } catch {
    source = undefined;
  }
  if (call.function.name !== PROPOSE_TOOL) return { ...proposal, render_error: `There is no tool named ${call.function.name}; call ${PROPOSE_TOOL}.` };
  if (typeof source !== 'string' || !source.trim()) return { ...proposal, render_error: 'The arguments must be JSON with a tsx_source string.' };
  proposal.args.tsx_source = source;
  const isTheme = input.context_type === 'email-theme';
  try {
    const rendered = await renderEmailPreview(deps, auth, {
      template_tsx_source: isTheme ? SAMPLE_TEMPLATE : source,
      theme_tsx_source: isTheme ? source : (input.theme_tsx_source ?? null),
    });
    return { ...proposal, rendered: { html: rendered.html, text: rendered.text, subject: rendered.subject } };
  } catch (error) {
    if (error instanceof KnownErrors.EmailRenderingError) return { ...proposal, render_error: error.message };
    throw error;
  }
}

/**
 * One turn: the model answers, every proposal is rendered, failures go back to the model.
 * Returns the text and the proposals (the last attempt's, with render_error when it still failed).
 */
export async function chatTurn(
  deps: Deps,
  auth: AuthContext,
  input: AiChatRequest,
  options: { onEvent?: (event: ChatEvent) => void; signal?: AbortSignal } = {},
): Promise<{ content: AiChatContent }> {
  const settings = configuredAi(deps);
  const messages: ChatMessage[] = [{ role: 'system', content: systemPrompt(input.context_type, input.current_source) }, ...input.messages];
  const content: AiChatContent = [];
  const onText = options.onEvent ? (delta: string) => options.onEvent!({ type: 'text', delta }) : undefined;
  for (let attempt = 0; ; attempt++) {
    const completion = await complete(settings, { messages, tools: [PROPOSE_TOOL_DEFINITION], onText, signal: options.signal });
    if (completion.text) content.push({ type: 'text', text: completion.text });
    if (!completion.toolCalls.length) return { content };
    options.onEvent?.({ type: 'status', message: 'Rendering the proposal in the sandbox…' });
    const proposals = await Promise.all(completion.toolCalls.map((call) => renderProposal(deps, auth, input, call)));
    const failed = proposals.filter((p) => p.render_error !== null);
    if (!failed.length || attempt >= MAX_FIX_ATTEMPTS) {
      content.push(...proposals);
      return { content };
    }
    options.onEvent?.({ type: 'status', message: `The proposal did not render (${failed[0]!.render_error}); asking the model to fix it.` });
    messages.push({ role: 'assistant', content: completion.text || null, tool_calls: completion.toolCalls });
    for (const p of proposals) {
      messages.push({
        role: 'tool',
        tool_call_id: p.tool_call_id,
        content:
          p.render_error === null
            ? 'It compiled and rendered.'
            : `It failed to compile or render: ${p.render_error}\nFix the source and call ${PROPOSE_TOOL} again.`,
      });
    }
  }
}

export async function saveMessage(deps: Deps, auth: AuthContext, threadId: string, message: unknown): Promise<void> {
  configuredAi(deps);
  await deps.db.transaction().execute(async (trx) => {
    if ((await q.countMessages(trx, auth.tenancy.id, threadId)) >= AI_CHAT_MAX_THREAD_MESSAGES)
      throw new KnownErrors.AiChatThreadFull(AI_CHAT_MAX_THREAD_MESSAGES);
    await q.insertMessage(trx, auth.tenancy.id, threadId, randomUUID(), JSON.stringify(message));
  });
}

export async function listThread(deps: Deps, auth: AuthContext, threadId: string): Promise<z.infer<typeof aiChatThreadSchema>> {
  configuredAi(deps);
  return {
    messages: (await q.listMessages(deps.db, auth.tenancy.id, threadId)).map((m) => JSON.parse(m) as z.infer<typeof aiChatThreadSchema>['messages'][number]),
  };
}
