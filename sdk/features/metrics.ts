/** The project's overview numbers (admin). */
import type { LatchQuery } from '../cache.js';
import { defineQuery } from '../cache.js';
import { AppCore } from '../core.js';
import type { RouterOutputs } from '../transport.js';

/** The project's overview numbers: totals, active users, sign-ups and last activity per day (30 days), users by auth method. */
export type ProjectMetrics = RouterOutputs['metrics']['get'];

/** The project's metrics. */
export abstract class MetricsFeature extends AppCore {
  /**
   * The project's overview numbers as a cached query (anonymous users counted only when asked).
   *
   * @example
   * admin.subscribe(() => admin.metricsQuery(), (state) => console.log(state.data?.total_users));
   */
  metricsQuery(options: { includeAnonymous?: boolean } = {}): LatchQuery<ProjectMetrics> {
    // A query-string boolean on REST, so a string on tRPC too (z.stringbool).
    const input = { include_anonymous: options.includeAnonymous ? 'true' : 'false' };
    return defineQuery(this.appKey('metrics.get', input), () => this.call((context) => this.trpc.metrics.get.query(input, { context })));
  }

  /**
   * Totals, active users (last day, 7 and 30 days), sign-ups and last activity per day for the
   * last 30 days, and users by auth method.
   *
   * @example
   * const metrics = await admin.getMetrics({ includeAnonymous: true });
   * console.log(metrics.sign_ups_per_day.at(-1)?.count);
   */
  async getMetrics(options: { includeAnonymous?: boolean } = {}): Promise<ProjectMetrics> {
    return this.queryClient.fetchQuery(this.metricsQuery(options));
  }
}
