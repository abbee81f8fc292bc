import { router } from '../../trpc/init.js';
import { restOperations } from '../../trpc/operation.js';
import { adminProcedure } from '../../trpc/procedures.js';
import * as schemas from '../../../contract/schemas/metrics.js';
import * as service from './service.js';

const op = restOperations(['Metrics'], { protect: true });

export const metricsRouter = router({
  get: op(adminProcedure, 'GET /internal/metrics', "The project's user totals, sign-ups per day and activity (the console's overview)")
    .input(schemas.metricsQuerySchema)
    .output(schemas.metricsSchema)
    .query(({ ctx, input }) => service.getMetrics(ctx.deps, ctx.auth, input)),
});
