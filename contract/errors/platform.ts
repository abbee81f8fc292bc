/** Platform errors: routing, HTTP limits, rate limits and quotas, crashes. Not in the spec's catalogue; the platform and the client behaviour of section 7 need them. */
import { defineFixedError, defineKnownError } from './known-error.js';

export const platformErrors = {
  /**
   * No route matches. `description` says what was asked for, e.g. `GET /api/v1/nope` or the
   * router's own message.
   */
  RouteNotFound: defineKnownError('NOT_FOUND', 404, (description?: string) => ({
    message:
      `No API route matches this request${description ? ` (${description})` : ''}. Check the path and the method; ` +
      'REST routes live under /api/v1 and are listed in the OpenAPI document at /api/v1/docs.',
    details: { description: description ?? null },
  })),

  MethodNotAllowed: defineKnownError('METHOD_NOT_ALLOWED', 405, (description?: string, allowedMethods?: readonly string[]) => ({
    message:
      `This HTTP method is not allowed on this route${description ? ` (${description})` : ''}.` +
      (allowedMethods?.length ? ` Allowed methods: ${allowedMethods.join(', ')}.` : ''),
    details: { description: description ?? null, allowed_methods: allowedMethods ?? null },
  })),

  PayloadTooLarge: defineKnownError('PAYLOAD_TOO_LARGE', 413, (maxBytes?: number) => ({
    message: 'The request body is too large.' + (maxBytes !== undefined ? ` The maximum size is ${maxBytes} bytes.` : ' Send a smaller body.'),
    details: { max_bytes: maxBytes ?? null },
  })),

  /**
   * The HTTP parser's own refusals (server/http-errors.ts answers them from the `clientError` hook,
   * before any route runs), so even a request Node could not parse gets a catalogued answer.
   */
  RequestHeadersTooLarge: defineKnownError('REQUEST_HEADERS_TOO_LARGE', 431, (maxBytes?: number) => ({
    message:
      'The request line and headers are too large.' +
      (maxBytes !== undefined ? ` Together they may be at most ${maxBytes} bytes.` : '') +
      ' Send fewer or smaller headers, or a shorter URL.',
    details: { max_bytes: maxBytes ?? null },
  })),

  UriTooLong: defineKnownError('URI_TOO_LONG', 414, (maxLength?: number) => ({
    message:
      'The request URL is too long.' +
      (maxLength !== undefined ? ` It may be at most ${maxLength} characters.` : '') +
      ' Send large inputs in a request body instead of the query string.',
    details: { max_length: maxLength ?? null },
  })),

  RequestTimeout: defineFixedError('REQUEST_TIMEOUT', 408, 'The request was not received completely in time. Send the whole request promptly and try again.'),

  MalformedHttpRequest: defineFixedError(
    'MALFORMED_HTTP_REQUEST',
    400,
    'The request is not valid HTTP/1.1 (a malformed request line, header or chunked body). Check the client that sent it.',
  ),

  /** GET /metrics with LATCH_METRICS_TOKEN set, without that token (server/http/metrics-access.ts). */
  MetricsTokenRequired: defineFixedError(
    'METRICS_TOKEN_REQUIRED',
    401,
    'GET /metrics needs the header Authorization: Bearer <token>, with the token the operator set in LATCH_METRICS_TOKEN.',
  ),

  /** GET /metrics without LATCH_METRICS_TOKEN, from a peer that is not loopback (or through a proxy). */
  MetricsLoopbackOnly: defineFixedError(
    'METRICS_LOOPBACK_ONLY',
    403,
    'GET /metrics answers only requests from this machine (loopback, not through a proxy). ' +
      'To scrape it from elsewhere, set LATCH_METRICS_TOKEN and send Authorization: Bearer <token>.',
  ),

  /** Sent with a Retry-After header carrying the same number of seconds. */
  RateLimited: defineKnownError('RATE_LIMITED', 429, (retryAfterSeconds: number) => ({
    message: `Too many requests. Wait ${retryAfterSeconds} seconds (see the Retry-After header) and try again.`,
    details: { retry_after_seconds: retryAfterSeconds },
  })),

  /**
   * Latch addition: a per-user or per-team storage cap (issue 13, quotas). `quota` names it:
   * `metadata_bytes` (the three metadata fields together, LATCH_METADATA_MAX_BYTES) or
   * `api_keys` (active keys of one user or team, LATCH_MAX_API_KEYS_PER_OWNER).
   */
  QuotaExceeded: defineKnownError('QUOTA_EXCEEDED', 409, (quota: 'metadata_bytes' | 'api_keys', limit: number) => ({
    message:
      quota === 'metadata_bytes'
        ? `client_metadata, client_read_only_metadata and server_metadata together may hold at most ${limit} bytes of JSON. Store less, or keep large data elsewhere and put a reference in the metadata.`
        : `At most ${limit} API keys may be active for one user or team. Revoke keys that are no longer used before creating another.`,
    details: { quota, limit },
  })),

  /** The SDK retries this one (spec, client behaviour on responses). */
  InfiniteLoopDetected: defineFixedError(
    'INFINITE_LOOP_DETECTED',
    508,
    'An infinite loop was detected while processing the request. The request can safely be retried.',
  ),

  /**
   * Latch could not reach its database (it is restarting, failing over, or the pooler in front of
   * it is): a 503 with Retry-After instead of a 500 or a hanging request, so balancers and clients
   * retry. A write answered with it may or may not have been committed (the connection can drop
   * during COMMIT): retry it as an idempotent request, or look before writing again.
   */
  DatabaseUnavailable: defineKnownError('DATABASE_UNAVAILABLE', 503, (retryAfterSeconds: number) => ({
    message: `The database is unreachable at the moment. Retry the request in ${retryAfterSeconds} seconds.`,
    details: { retry_after_seconds: retryAfterSeconds },
  })),

  /**
   * The catch-all for unexpected failures. The message is fixed on purpose: nothing about the
   * failure (stack, SQL, internal ids) may reach the caller; the request id is what links the
   * response to the server log.
   */
  InternalServerError: defineKnownError('INTERNAL_SERVER_ERROR', 500, (requestId: string) => ({
    message: `An internal server error occurred. If it persists, report it with the request ID ${requestId}.`,
    details: { request_id: requestId },
  })),
} as const;
