import type { Request, Response } from 'express';
import type { Deps } from '../deps.js';
import { KnownErrors } from '../../contract/errors/known-errors.js';
import { aiChatRequestSchema } from '../../contract/schemas/ai-chat.js';
import { requireLiveSession } from '../access/policy.js';
import { schemaErrorFromIssues, toWireError } from '../errors/wire.js';
import { chatTurn, configuredAi } from '../domains/ai-chat/service.js';
import { createRequestContext } from '../trpc/context.js';
import { sendError } from '../trpc/rest.js';

/**
 * `POST /api/v1/internal/ai-chat/{thread_id}/stream`: the same turn as the tRPC procedure
 * (`POST /internal/ai-chat/{thread_id}`), streamed to the console as server-sent events:
 * `text` ({delta}) as the model writes, `status` ({message}) while a proposal is rendered or sent
 * back to be fixed, then `done` ({content}, the procedure's answer) or `error` ({code, error}).
 * A request that is refused before the model is asked (credentials, body, not configured) gets the
 * usual JSON error instead. The console reads it with fetch (EventSource cannot POST or send headers).
 */
export async function handleAiChatStream(deps: Deps, req: Request, res: Response): Promise<void> {
  const ctx = createRequestContext(deps, req, String(res.locals.requestId));
  let input;
  try {
    const auth = await ctx.getAuth();
    if (!auth) throw new KnownErrors.AdminAuthenticationRequired();
    if (auth.type !== 'admin') throw new KnownErrors.InsufficientAccessType(auth.type, ['admin']);
    await requireLiveSession(deps, auth);
    const parsed = aiChatRequestSchema.safeParse({ ...(req.body as object), thread_id: req.params.thread_id });
    if (!parsed.success) throw schemaErrorFromIssues(parsed.error.issues);
    configuredAi(deps);
    input = { auth, body: parsed.data };
  } catch (error) {
    sendError(req, res, deps, ctx.requestId, error);
    return;
  }

  res.status(200);
  res.setHeader('content-type', 'text/event-stream; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  res.setHeader('x-accel-buffering', 'no');
  res.flushHeaders();
  const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  // The console closing the stream stops the model call too.
  const abort = new AbortController();
  res.on('close', () => abort.abort());
  try {
    const result = await chatTurn(deps, input.auth, input.body, {
      signal: abort.signal,
      onEvent: (event) => (event.type === 'text' ? send('text', { delta: event.delta }) : send('status', { message: event.message })),
    });
    send('done', result);
  } catch (error) {
    const wire = toWireError(error, ctx.requestId);
    if (wire.unexpected) deps.log.error(`ai chat stream failed (request ${ctx.requestId})`, { error: String(wire.unexpected) });
    send('error', wire.body);
  }
  res.end();
}
