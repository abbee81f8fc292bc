/**
 * A small client for any OpenAI-compatible `POST {base}/chat/completions` (OpenAI, OpenRouter,
 * Ollama, vLLM, LM Studio): plain `fetch`, streamed (SSE `data:` lines, `delta.content` and
 * `delta.tool_calls[]` pieces assembled by index, `[DONE]`) or not. The `ai` and `openai` packages
 * that would do this need Node 22. The provider's own error text is never relayed to the caller
 * (it can carry account details); it maps to AI_PROVIDER_RATE_LIMITED or AI_PROVIDER_ERROR.
 */
import type { AiSettings } from '../../env.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface ToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface Completion {
  text: string;
  toolCalls: ToolCall[];
}

/** A turn may take a while on a local model; past this it is a provider error. */
const TIMEOUT_MS = 120_000;
const MAX_TOKENS = 4096;

export interface CompleteOptions {
  messages: ChatMessage[];
  tools: ToolDefinition[];
  /** Streams the answer's text as it comes; without it the request is not streamed. */
  onText?: (delta: string) => void;
  /** Aborts the request (the console went away). */
  signal?: AbortSignal;
}

export async function complete(settings: AiSettings & { baseUrl: string }, options: CompleteOptions): Promise<Completion> {
  const stream = options.onText !== undefined;
  const signals = [AbortSignal.timeout(TIMEOUT_MS), ...(options.signal ? [options.signal] : [])];
  let response: Response;
  try {
    response = await fetch(`${settings.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: stream ? 'text/event-stream' : 'application/json',
        ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
      },
      body: JSON.stringify({ model: settings.model, messages: options.messages, tools: options.tools, max_tokens: MAX_TOKENS, stream }),
      signal: AbortSignal.any(signals),
    });
  } catch (error) {
    throw new KnownErrors.AiProviderError(isTimeout(error) ? 'it did not answer in time' : 'it could not be reached');
  }
  if (response.status === 429) {
    await response.body?.cancel();
    const retryAfter = Number.parseInt(response.headers.get('retry-after') ?? '', 10);
    throw new KnownErrors.AiProviderRateLimited(Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : null);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new KnownErrors.AiProviderError(`it answered HTTP ${response.status}`);
  }
  try {
    return stream ? await readStream(response, options.onText!) : readPlain(await response.json());
  } catch (error) {
    if (error instanceof KnownErrors.AiProviderError) throw error;
    throw new KnownErrors.AiProviderError(isTimeout(error) ? 'it did not answer in time' : 'its answer was not a chat completion');
  }
}

function isTimeout(error: unknown): boolean {
  return error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError');
}

interface WireToolCall {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

function readPlain(body: unknown): Completion {
  const message = (body as { choices?: { message?: { content?: unknown; tool_calls?: WireToolCall[] } }[] }).choices?.[0]?.message;
  if (!message) throw new KnownErrors.AiProviderError('its answer was not a chat completion');
  const toolCalls = (message.tool_calls ?? []).map((call, i) => ({
    id: call.id ?? `call_${i}`,
    type: 'function' as const,
    function: { name: call.function?.name ?? '', arguments: call.function?.arguments ?? '' },
  }));
  return { text: typeof message.content === 'string' ? message.content : '', toolCalls };
}

/** Reads an SSE stream of chunks: text deltas go out as they come, tool-call pieces are joined by index. */
async function readStream(response: Response, onText: (delta: string) => void): Promise<Completion> {
  if (!response.body) throw new KnownErrors.AiProviderError('its answer was empty');
  const decoder = new TextDecoder();
  const calls = new Map<number, ToolCall>();
  let text = '';
  let buffer = '';
  let done = false;
  const handleLine = (line: string) => {
    if (!line.startsWith('data:')) return;
    const data = line.slice(5).trim();
    if (data === '[DONE]') {
      done = true;
      return;
    }
    const chunk = JSON.parse(data) as { choices?: { delta?: { content?: string | null; tool_calls?: WireToolCall[] } }[] };
    const delta = chunk.choices?.[0]?.delta;
    if (!delta) return;
    if (typeof delta.content === 'string' && delta.content) {
      text += delta.content;
      onText(delta.content);
    }
    for (const piece of delta.tool_calls ?? []) {
      const index = piece.index ?? 0;
      const call = calls.get(index) ?? { id: '', type: 'function' as const, function: { name: '', arguments: '' } };
      if (piece.id) call.id = piece.id;
      if (piece.function?.name) call.function.name += piece.function.name;
      if (piece.function?.arguments) call.function.arguments += piece.function.arguments;
      calls.set(index, call);
    }
  };
  const reader = response.body.getReader();
  for (;;) {
    const { value, done: ended } = await reader.read();
    if (ended) break;
    buffer += decoder.decode(value, { stream: true });
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0 && !done) {
      handleLine(buffer.slice(0, newline).replace(/\r$/, ''));
      buffer = buffer.slice(newline + 1);
    }
    if (done) {
      await reader.cancel();
      break;
    }
  }
  if (!done && buffer) handleLine(buffer);
  const toolCalls = [...calls.entries()].sort(([a], [b]) => a - b).map(([index, call]) => ({ ...call, id: call.id || `call_${index}` }));
  return { text, toolCalls };
}
