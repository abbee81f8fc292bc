import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local OpenAI-compatible `POST /v1/chat/completions` for the AI drafting assistant's tests
 * (issue 17 item 6). Its answer is scripted by the last user message:
 * - "plain": a text answer;
 * - "propose": a `propose_email_source` tool call with a template that renders (when streamed, the
 *   call's id, name and arguments arrive in several chunks, the arguments cut mid-string);
 * - "broken": first a proposal that does not compile, then (once a tool message says why) a fixed one;
 * - "always broken": a proposal that never compiles;
 * - "rate": 429 with Retry-After: 7; "boom": 500 with a body that must not reach the caller.
 * It answers streamed (SSE) or not, as the request asks, and records every request.
 */

export const GOOD_TSX = `import { Text } from '@react-email/components';
import { Subject } from '@latch/emails';
export function EmailTemplate({ user }) {
  return <><Subject value="Fresh news" /><Text>Hi {user.displayName}, here is the news.</Text></>;
}`;
export const BROKEN_TSX = `import { Text } from '@react-email/components';
export function EmailTemplate() {
  return <Text>unclosed;
}`;

export interface AiFakeRequest {
  authorization: string | undefined;
  body: {
    model: string;
    stream: boolean;
    messages: { role: string; content: string | null; tool_call_id?: string }[];
    tools: { function: { name: string } }[];
  };
}

export interface AiFake {
  /** The base URL to give as LATCH_AI_BASE_URL (ends in /v1). */
  baseUrl: string;
  requests: AiFakeRequest[];
  close(): Promise<void>;
}

type Reply = { text?: string; tsx?: string } | { status: number };

function script(messages: AiFakeRequest['body']['messages']): Reply {
  const lastUser = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  const toolAnswers = messages.filter((m) => m.role === 'tool');
  if (lastUser.includes('rate')) return { status: 429 };
  if (lastUser.includes('boom')) return { status: 500 };
  if (lastUser.includes('always broken')) return { text: 'Trying again.', tsx: BROKEN_TSX };
  if (lastUser.includes('broken'))
    return toolAnswers.length ? { text: 'Fixed the unclosed tag.', tsx: GOOD_TSX } : { text: 'Here is a draft.', tsx: BROKEN_TSX };
  if (lastUser.includes('propose')) return { text: 'I wrote a short news email.', tsx: GOOD_TSX };
  return { text: 'Hello from the fake model. It can help with emails.' };
}

function chunk(delta: Record<string, unknown>): string {
  return `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
}

function streamed(res: ServerResponse, reply: { text?: string; tsx?: string }): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const parts: string[] = [chunk({ role: 'assistant', content: '' })];
  const text = reply.text ?? '';
  for (let i = 0; i < text.length; i += 8) parts.push(chunk({ content: text.slice(i, i + 8) }));
  if (reply.tsx !== undefined) {
    const args = JSON.stringify({ tsx_source: reply.tsx });
    const cut = [args.slice(0, 7), args.slice(7, 40), args.slice(40)];
    parts.push(chunk({ tool_calls: [{ index: 0, id: 'call_fake1', type: 'function', function: { name: 'propose_email', arguments: '' } }] }));
    parts.push(chunk({ tool_calls: [{ index: 0, function: { name: '_source' } }] }));
    for (const piece of cut) parts.push(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }));
  }
  parts.push(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: reply.tsx ? 'tool_calls' : 'stop' }] })}\n\n`, 'data: [DONE]\n\n');
  // Written piece by piece, so the client really reads a stream split across network chunks.
  let i = 0;
  const next = () => {
    if (i >= parts.length) return res.end();
    res.write(parts[i++]);
    setTimeout(next, 2);
  };
  next();
}

function plain(res: ServerResponse, reply: { text?: string; tsx?: string }): void {
  const message: Record<string, unknown> = { role: 'assistant', content: reply.text ?? null };
  if (reply.tsx !== undefined)
    message.tool_calls = [
      { id: 'call_fake1', type: 'function', function: { name: 'propose_email_source', arguments: JSON.stringify({ tsx_source: reply.tsx }) } },
    ];
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion', choices: [{ index: 0, message, finish_reason: 'stop' }] }));
}

export async function startAiFake(): Promise<AiFake> {
  const requests: AiFakeRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(raw) as AiFakeRequest['body'];
      requests.push({ authorization: req.headers.authorization, body });
      const reply = script(body.messages);
      if ('status' in reply) {
        res.writeHead(reply.status, { 'content-type': 'application/json', ...(reply.status === 429 ? { 'retry-after': '7' } : {}) });
        res.end(JSON.stringify({ error: { message: 'secret upstream detail: org-12345 over quota' } }));
        return;
      }
      if (body.stream) streamed(res, reply);
      else plain(res, reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
