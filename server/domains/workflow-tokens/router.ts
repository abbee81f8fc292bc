import { z } from 'zod';
import * as schemas from '../../../contract/schemas/workflow-tokens.js';
import { shortList, successSchema } from '../../../contract/validation/schemas.js';
import { router } from '../../trpc/init.js';
import { restOperations, succeedAfter } from '../../trpc/operation.js';
import { adminProcedure } from '../../trpc/procedures.js';
import type { WorkflowTokenRow } from './queries.js';
import * as service from './service.js';

const op = restOperations(['Workflow tokens'], { protect: true });

function toDto(row: WorkflowTokenRow) {
  return {
    id: row.id,
    description: row.description,
    created_at_millis: row.created_at.getTime(),
    expires_at_millis: row.expires_at.getTime(),
    is_expired: row.expires_at.getTime() <= Date.now(),
  };
}

export const workflowTokensRouter = router({
  list: op(adminProcedure, 'GET /internal/workflow-tokens', "The project's workflow tokens, expired ones included (never the tokens themselves)", {
    input: z.object({}),
    output: shortList(schemas.workflowTokenSchema),
  }).query(async ({ ctx }) => ({ items: (await service.listWorkflowTokens(ctx.deps, ctx.auth)).map(toDto), is_paginated: false as const })),

  create: op(
    adminProcedure,
    'POST /internal/workflow-tokens',
    'A workflow token: server access to this project until it expires; shown only in this response',
    { input: schemas.workflowTokenCreateSchema, output: schemas.workflowTokenWithSecretSchema, successStatus: 201 },
  ).mutation(async ({ ctx, input }) => {
    const { row, token } = await service.createWorkflowToken(ctx.deps, ctx.auth, input);
    return { ...toDto(row), token };
  }),

  revoke: op(adminProcedure, 'DELETE /internal/workflow-tokens/{token_id}', 'Revoke a workflow token (refused from the next request on)', {
    input: schemas.workflowTokenIdSchema,
    output: successSchema,
  }).mutation(succeedAfter(({ ctx, input }) => service.revokeWorkflowToken(ctx.deps, ctx.auth, input.token_id))),
});
