import autocannon from 'autocannon';

export interface LoadResult {
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  latencyAvg: number;
  total: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Status codes other than 2xx seen, with counts (first few). */
  statuses: Record<string, number>;
}

export interface LoadOptions {
  url: string;
  connections: number;
  durationSec: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Varies each request (autocannon `requests` + `setupRequest`): path, headers or body per request. */
  vary?: () => { path?: string; headers?: Record<string, string>; body?: string };
}

/** One bounded autocannon run against a loopback URL. */
export function runLoad(o: LoadOptions): Promise<LoadResult> {
  const base = new URL(o.url);
  const opts: autocannon.Options = {
    url: `${base.protocol}//${base.host}`,
    connections: o.connections,
    duration: o.durationSec,
    timeout: 30,
  };
  const request: autocannon.Request = {
    method: o.method ?? 'GET',
    path: `${base.pathname}${base.search}`,
    ...(o.headers ? { headers: o.headers } : {}),
    ...(o.body !== undefined ? { body: o.body } : {}),
  };
  if (o.vary) {
    const vary = o.vary;
    request.setupRequest = (req) => {
      const v = vary();
      return {
        ...req,
        ...(v.path !== undefined ? { path: v.path } : {}),
        ...(v.headers ? { headers: { ...(req.headers ?? {}), ...v.headers } } : {}),
        ...(v.body !== undefined ? { body: v.body } : {}),
      };
    };
  }
  opts.requests = [request];
  return new Promise((resolve, reject) => {
    const statuses: Record<string, number> = {};
    const instance = autocannon(opts, (error, result) => {
      if (error) return reject(error);
      resolve({
        rps: result.requests.average,
        p50: result.latency.p50,
        p90: result.latency.p90,
        p99: result.latency.p99,
        latencyAvg: result.latency.average,
        total: result.requests.total,
        non2xx: result.non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
        statuses,
      });
    });
    instance.on('response', (_client: unknown, statusCode: number) => {
      if (statusCode >= 200 && statusCode < 300) return;
      statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
    });
  });
}
