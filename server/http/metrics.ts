import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { RequestHandler } from 'express';
import type { Deps } from '../deps.js';
import { sendError } from '../trpc/rest.js';
import { metricsAccessError } from './metrics-access.js';
import { transactionRetries } from '../db/retrying-kysely.js';
import { readReplicaStats } from '../db/read-replica.js';
import { passwordJobCounts } from '../crypto/passwords.js';

/** The process's counters and GET /metrics (Prometheus text), for whoever metrics-access.ts lets in. */
export interface HttpMetrics {
  /** Counts one finished response by status (requestTagger calls it). */
  countResponse(status: number): void;
  /** The GET /metrics handler. */
  route: RequestHandler;
}

export function httpMetrics(deps: Deps): HttpMetrics {
  const requests = new Map<string, number>();
  // Bench only (LATCH_BENCH_STATS=1, used by bench/run.ts): event-loop delay since the previous /metrics read.
  const loopDelay = process.env.LATCH_BENCH_STATS === '1' ? monitorEventLoopDelay({ resolution: 10 }) : null;
  loopDelay?.enable();

  const route: RequestHandler = (req, res) => {
    const denied = metricsAccessError(req, deps.env.metricsToken);
    if (denied) {
      if (denied.status === 401) res.setHeader('www-authenticate', 'Bearer realm="latch-metrics"');
      res.setHeader('cache-control', 'no-store');
      sendError(req, res, deps, String(res.locals.requestId), denied);
      return;
    }
    const lines = ['# HELP latch_http_responses_total HTTP responses by status.', '# TYPE latch_http_responses_total counter'];
    for (const [status, count] of requests) lines.push(`latch_http_responses_total{status="${status}"} ${count}`);
    const memory = process.memoryUsage();
    lines.push('# TYPE latch_process_resident_memory_bytes gauge', `latch_process_resident_memory_bytes ${memory.rss}`);
    lines.push(
      '# HELP latch_db_transaction_retries_total Transactions run again after a deadlock or serialization failure.',
      '# TYPE latch_db_transaction_retries_total counter',
      `latch_db_transaction_retries_total ${transactionRetries.count}`,
    );
    lines.push(
      '# HELP latch_password_jobs_total Password hashes and verifications: run, or dropped because their client disconnected while they waited for a turn.',
      '# TYPE latch_password_jobs_total counter',
      `latch_password_jobs_total{outcome="run"} ${passwordJobCounts.run}`,
      `latch_password_jobs_total{outcome="dropped"} ${passwordJobCounts.dropped}`,
    );
    if (readReplicaStats.up !== null) {
      lines.push(
        '# HELP latch_db_read_replica_queries_total Lag-tolerant reads (DATABASE_READ_URL) by who answered them: the replica, or the primary while the replica failed.',
        '# TYPE latch_db_read_replica_queries_total counter',
        `latch_db_read_replica_queries_total{served_by="replica"} ${readReplicaStats.replica}`,
        `latch_db_read_replica_queries_total{served_by="primary"} ${readReplicaStats.primary}`,
        '# HELP latch_db_read_replica_fallbacks_total Replica failures whose read the primary ran again.',
        '# TYPE latch_db_read_replica_fallbacks_total counter',
        `latch_db_read_replica_fallbacks_total ${readReplicaStats.fallbacks}`,
        '# HELP latch_db_read_replica_up 1 while lag-tolerant reads go to the replica, 0 while it is skipped after it could not be reached.',
        '# TYPE latch_db_read_replica_up gauge',
        `latch_db_read_replica_up ${readReplicaStats.up}`,
      );
    }
    if (loopDelay) {
      // The histogram counts the 10 ms sampling interval itself; subtract it to get the delay.
      const ms = (ns: number) => Math.max(0, ns / 1e6 - 10).toFixed(2);
      lines.push(
        '# TYPE latch_event_loop_delay_p99_ms gauge',
        `latch_event_loop_delay_p50_ms ${ms(loopDelay.percentile(50))}`,
        `latch_event_loop_delay_p99_ms ${ms(loopDelay.percentile(99))}`,
        `latch_event_loop_delay_max_ms ${ms(loopDelay.max)}`,
      );
      loopDelay.reset();
    }
    res.type('text/plain; version=0.0.4').send(`${lines.join('\n')}\n`);
  };

  return {
    route,
    countResponse(status) {
      const key = String(status);
      requests.set(key, (requests.get(key) ?? 0) + 1);
    },
  };
}
