import { router } from '../../trpc/init.js';
import { restOperations, succeedAfter } from '../../trpc/operation.js';
import { adminProcedure } from '../../trpc/procedures.js';
import { successSchema } from '../../../contract/validation/schemas.js';
import * as schemas from '../../../contract/schemas/ai-chat.js';
import * as service from './service.js';

const op = restOperations(['AI chat'], { protect: true });

/** The console's AI drafting assistant; the streamed form of `ask` is server/http/ai-chat-stream.ts. */
export const aiChatRouter = router({
  ask: op(
    adminProcedure,
    'POST /internal/ai-chat/{thread_id}',
    'Ask the AI drafting assistant for the next turn: text, and TSX proposals already rendered in the sandbox (not stored; save with PATCH)',
    { input: schemas.aiChatRequestSchema, output: schemas.aiChatResponseSchema },
  ).mutation(({ ctx, input }) => service.chatTurn(ctx.deps, ctx.auth, input)),

  save: op(adminProcedure, 'PATCH /internal/ai-chat/{thread_id}', 'Append a message to an AI chat thread', {
    input: schemas.aiChatSaveSchema,
    output: successSchema,
  }).mutation(succeedAfter(({ ctx, input }) => service.saveMessage(ctx.deps, ctx.auth, input.thread_id, input.message))),

  get: op(adminProcedure, 'GET /internal/ai-chat/{thread_id}', "An AI chat thread's saved messages, oldest first", {
    input: schemas.aiChatThreadParamsSchema,
    output: schemas.aiChatThreadSchema,
  }).query(({ ctx, input }) => service.listThread(ctx.deps, ctx.auth, input.thread_id)),
});
