import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AiFake, BROKEN_TSX, GOOD_TSX, startAiFake } from '../../test/ai-fake.js';
import { type Harness, type ProjectFixture, startHarness } from '../../test/harness.js';

let fake: AiFake;
let h: Harness;
let project: ProjectFixture;

beforeAll(async () => {
  fake = await startAiFake();
  h = await startHarness({ ai: { baseUrl: fake.baseUrl, apiKey: 'sk-test-key', model: 'fake-model' } });
  project = await h.createProject({ displayName: 'Acme' });
});
afterAll(async () => {
  await h?.close();
  await fake?.close();
});

const ask = (text: string, extra: Record<string, unknown> = {}) =>
  h.post(`/internal/ai-chat/${randomUUID()}`, { context_type: 'email-template', messages: [{ role: 'user', content: text }], ...extra }, project.admin());

interface StreamEvent {
  event: string;
  data: any;
}

/** Reads the SSE route the console uses, event by event. */
async function askStreamed(text: string): Promise<{ status: number; events: StreamEvent[]; contentType: string | null }> {
  const res = await fetch(`${h.url}/api/v1/internal/ai-chat/${randomUUID()}/stream`, {
    method: 'POST',
    headers: { ...(project.admin() as Record<string, string>), 'content-type': 'application/json' },
    body: JSON.stringify({ context_type: 'email-template', messages: [{ role: 'user', content: text }] }),
  });
  const body = await res.text();
  if (!res.headers.get('content-type')?.includes('text/event-stream')) return { status: res.status, events: [], contentType: res.headers.get('content-type') };
  const events = body
    .split('\n\n')
    .filter(Boolean)
    .map((block) => {
      const [eventLine, dataLine] = block.split('\n');
      return { event: eventLine!.replace('event: ', ''), data: JSON.parse(dataLine!.replace('data: ', '')) };
    });
  return { status: res.status, events, contentType: res.headers.get('content-type') };
}

describe('AI chat against an OpenAI-compatible fake', () => {
  it('a plain answer, with the model, key and tool sent as configured', async () => {
    const before = fake.requests.length;
    const res = await ask('plain question');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ content: [{ type: 'text', text: 'Hello from the fake model. It can help with emails.' }] });
    const sent = fake.requests[before]!;
    expect(sent.authorization).toBe('Bearer sk-test-key');
    expect(sent.body.model).toBe('fake-model');
    expect(sent.body.stream).toBe(false);
    expect(sent.body.tools.map((t) => t.function.name)).toEqual(['propose_email_source']);
    expect(sent.body.messages[0]!.role).toBe('system');
    expect(sent.body.messages.at(-1)).toEqual({ role: 'user', content: 'plain question' });
  });

  it('a proposal comes back rendered in the sandbox', async () => {
    const res = await ask('propose a news email', { current_source: 'export function EmailTemplate() { return null; }' });
    expect(res.status).toBe(200);
    const [text, proposal] = res.body.content;
    expect(text).toEqual({ type: 'text', text: 'I wrote a short news email.' });
    expect(proposal).toMatchObject({ type: 'tool-call', tool_name: 'propose_email_source', args: { tsx_source: GOOD_TSX }, render_error: null });
    expect(proposal.rendered.subject).toBe('Fresh news');
    expect(proposal.rendered.html).toContain('Hi Ada Lovelace');
    expect(fake.requests.at(-1)!.body.messages[0]!.content).toContain('export function EmailTemplate() { return null; }');
  });

  it('a compile error goes back to the model, which fixes it (2 model calls)', async () => {
    const before = fake.requests.length;
    const res = await ask('broken please');
    expect(res.status).toBe(200);
    expect(fake.requests.length - before).toBe(2);
    const retry = fake.requests.at(-1)!.body.messages;
    const toolAnswer = retry.find((m) => m.role === 'tool')!;
    expect(toolAnswer.tool_call_id).toBe('call_fake1');
    expect(toolAnswer.content).toMatch(/failed to compile or render: .*line \d+/);
    const proposals = res.body.content.filter((c: { type: string }) => c.type === 'tool-call');
    expect(proposals).toHaveLength(1);
    expect(proposals[0]).toMatchObject({ args: { tsx_source: GOOD_TSX }, render_error: null });
  });

  it('retries are bounded: a proposal that never compiles is returned with its error after 3 model calls', async () => {
    const before = fake.requests.length;
    const res = await ask('always broken');
    expect(fake.requests.length - before).toBe(3);
    const proposal = res.body.content.find((c: { type: string }) => c.type === 'tool-call');
    expect(proposal).toMatchObject({ args: { tsx_source: BROKEN_TSX }, rendered: null });
    expect(proposal.render_error).toMatch(/line \d+/);
  });

  it('a 429 and a 500 from the provider are catalogued errors without its text', async () => {
    const limited = await ask('rate');
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ code: 'AI_PROVIDER_RATE_LIMITED', details: { retry_after_seconds: 7 } });
    const failed = await ask('boom');
    expect(failed.status).toBe(502);
    expect(failed.body.code).toBe('AI_PROVIDER_ERROR');
    expect(JSON.stringify([limited.body, failed.body])).not.toContain('org-12345');
  });

  it('streams text deltas, then the rendered proposal, over SSE (a tool call split across chunks)', async () => {
    const before = fake.requests.length;
    const { status, events, contentType } = await askStreamed('propose something');
    expect(status).toBe(200);
    expect(contentType).toContain('text/event-stream');
    expect(fake.requests[before]!.body.stream).toBe(true);
    const deltas = events.filter((e) => e.event === 'text').map((e) => e.data.delta);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('I wrote a short news email.');
    expect(events.some((e) => e.event === 'status')).toBe(true);
    const done = events.at(-1)!;
    expect(done.event).toBe('done');
    const proposal = done.data.content.find((c: { type: string }) => c.type === 'tool-call');
    expect(proposal).toMatchObject({ tool_name: 'propose_email_source', tool_call_id: 'call_fake1', args: { tsx_source: GOOD_TSX }, render_error: null });
  });

  it('streamed: a provider error arrives as an error event; a bad request is refused before streaming', async () => {
    const { status, events } = await askStreamed('boom');
    expect(status).toBe(200);
    expect(events.at(-1)).toMatchObject({ event: 'error', data: { code: 'AI_PROVIDER_ERROR' } });
    const unauthorized = await fetch(`${h.url}/api/v1/internal/ai-chat/${randomUUID()}/stream`, {
      method: 'POST',
      headers: { ...(project.server() as Record<string, string>), 'content-type': 'application/json' },
      body: JSON.stringify({ context_type: 'email-template', messages: [{ role: 'user', content: 'plain' }] }),
    });
    expect(unauthorized.status).toBe(401);
    const badBody = await fetch(`${h.url}/api/v1/internal/ai-chat/${randomUUID()}/stream`, {
      method: 'POST',
      headers: { ...(project.admin() as Record<string, string>), 'content-type': 'application/json' },
      body: JSON.stringify({ context_type: 'poem', messages: [] }),
    });
    expect(badBody.status).toBe(400);
    expect(((await badBody.json()) as { code: string }).code).toBe('SCHEMA_ERROR');
  });

  it('threads are saved per project: PATCH appends, GET reads back; another project sees nothing', async () => {
    const thread = randomUUID();
    for (const message of [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'text', text: 'hello' }] },
    ]) {
      expect((await h.patch(`/internal/ai-chat/${thread}`, { message }, project.admin())).status).toBe(200);
    }
    const read = await h.get(`/internal/ai-chat/${thread}`, project.admin());
    expect(read.body.messages).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'text', text: 'hello' }] },
    ]);
    const other = await h.createProject();
    expect((await h.get(`/internal/ai-chat/${thread}`, other.admin())).body.messages).toEqual([]);
    expect((await h.get(`/internal/ai-chat/${thread}`, project.server())).status).toBe(401);
  });

  it('without LATCH_AI_BASE_URL every endpoint answers AI_CHAT_NOT_CONFIGURED', async () => {
    const settings = h.latch.deps.env.ai;
    h.latch.deps.env.ai = { baseUrl: null, apiKey: null, model: '' };
    try {
      const thread = randomUUID();
      for (const res of [
        await ask('plain'),
        await h.get(`/internal/ai-chat/${thread}`, project.admin()),
        await h.patch(`/internal/ai-chat/${thread}`, { message: 'x' }, project.admin()),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('AI_CHAT_NOT_CONFIGURED');
        expect(res.body.error).toContain('LATCH_AI_BASE_URL');
      }
      const streamed = await askStreamed('plain');
      expect(streamed.status).toBe(404);
    } finally {
      h.latch.deps.env.ai = settings;
    }
  });
});
