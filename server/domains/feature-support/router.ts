import * as schemas from '../../../contract/schemas/feature-support.js';
import { router } from '../../trpc/init.js';
import { restOperations } from '../../trpc/operation.js';
import { clientProcedure } from '../../trpc/procedures.js';
import * as service from './service.js';

const op = restOperations(['Feature support'], { protect: true });

export const featureSupportRouter = router({
  check: op(
    clientProcedure,
    'POST /check-feature-support',
    'Whether this server and project support a feature (by name and client version), with the reason when not',
    { input: schemas.featureSupportQuerySchema, output: schemas.featureSupportSchema },
  ).mutation(({ ctx, input }) => service.checkFeatureSupport(ctx.deps, ctx.auth, input)),
});
