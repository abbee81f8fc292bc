import { router } from '../../trpc/init.js';
import { asShortList, restOperations, succeedAfter } from '../../trpc/operation.js';
import { clientProcedure } from '../../trpc/procedures.js';
import { successSchema } from '../../../contract/validation/schemas.js';
import * as schemas from '../../../contract/schemas/contact-channels.js';
import * as service from './service.js';

const op = restOperations(['Contact channels']);

export const contactChannelsRouter = router({
  list: op(clientProcedure, 'GET /contact-channels', "A user's contact channels (user_id defaults to me; clients: only their own)", {
    input: schemas.contactChannelListQuerySchema,
    output: schemas.contactChannelListSchema,
  }).query(asShortList(({ ctx, input }) => service.listChannels(ctx.deps, ctx.auth, input.user_id))),

  create: op(
    clientProcedure,
    'POST /contact-channels',
    'Add a contact channel to a user (clients: to themselves, unverified, and not used for auth until verified)',
    { input: schemas.contactChannelCreateSchema, output: schemas.contactChannelSchema, successStatus: 201 },
  ).mutation(({ ctx, input }) => service.createChannel(ctx.deps, ctx.auth, input, ctx.ip)),

  sendVerificationCode: op(
    clientProcedure,
    'POST /contact-channels/send-verification-code',
    "Email a verification link for the signed-in user's primary email",
    { input: schemas.sendVerificationCodeSchema, output: successSchema },
  ).mutation(succeedAfter(({ ctx, input }) => service.sendPrimaryVerificationCode(ctx.deps, ctx.auth, input.email, input.callback_url, ctx.ip))),

  verify: op(clientProcedure, 'POST /contact-channels/verify', 'Verify an email with the code from its verification link (no signed-in user needed)', {
    input: schemas.verifySchema,
    output: successSchema,
  }).mutation(succeedAfter(({ ctx, input }) => service.verifyChannel(ctx.deps, ctx.auth, input.code, ctx.ip))),

  get: op(clientProcedure, 'GET /contact-channels/{user_id}/{contact_channel_id}', 'One contact channel of a user', {
    input: schemas.contactChannelParamsSchema,
    output: schemas.contactChannelSchema,
  }).query(({ ctx, input }) => service.getChannel(ctx.deps, ctx.auth, input.user_id, input.contact_channel_id)),

  update: op(
    clientProcedure,
    'PATCH /contact-channels/{user_id}/{contact_channel_id}',
    'Change a contact channel (a new value is unverified; is_primary moves the primary email)',
    { input: schemas.contactChannelUpdateSchema.extend(schemas.contactChannelParamsSchema.shape), output: schemas.contactChannelSchema },
  ).mutation(({ ctx, input }) => {
    const { user_id, contact_channel_id, ...patch } = input;
    return service.updateChannel(ctx.deps, ctx.auth, user_id, contact_channel_id, patch, ctx.ip);
  }),

  delete: op(
    clientProcedure,
    'DELETE /contact-channels/{user_id}/{contact_channel_id}',
    'Remove a contact channel (removing the primary one leaves the user without a primary email)',
    { input: schemas.contactChannelParamsSchema, output: successSchema },
  ).mutation(succeedAfter(({ ctx, input }) => service.deleteChannel(ctx.deps, ctx.auth, input.user_id, input.contact_channel_id))),

  sendChannelVerificationCode: op(
    clientProcedure,
    'POST /contact-channels/{user_id}/{contact_channel_id}/send-verification-code',
    'Email a verification link for one contact channel',
    { input: schemas.sendChannelVerificationCodeSchema.extend(schemas.contactChannelParamsSchema.shape), output: successSchema },
  ).mutation(
    succeedAfter(({ ctx, input }) =>
      service.sendChannelVerificationCode(ctx.deps, ctx.auth, input.user_id, input.contact_channel_id, input.callback_url, ctx.ip),
    ),
  ),
});
