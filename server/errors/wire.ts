import { TRPCError } from '@trpc/server';
import type { $ZodIssue } from 'zod/v4/core';
import { KnownError } from '../../contract/errors/known-error.js';
import { KnownErrors } from '../../contract/errors/known-errors.js';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../db/errors.js';

export interface WireError {
  status: number;
  body: { code: string; details?: Record<string, unknown>; error: string };
  /** The error, when it was not a known one: to be logged with the request id, never sent. */
  unexpected: unknown;
}

/** Finds a KnownError in an error or its chain of causes (tRPC wraps what procedures throw). */
export function findKnownError(error: unknown): KnownError | null {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    if (current instanceof KnownError) return current;
    current = current instanceof Error ? current.cause : undefined;
  }
  return null;
}

/** Whether an error, or one of its causes, says the database cannot be reached right now. */
function databaseUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    if (isDatabaseUnavailable(current)) return true;
    current = current instanceof Error ? current.cause : undefined;
  }
  return false;
}

function isZodError(error: unknown): error is Error & { issues: $ZodIssue[] } {
  return error instanceof Error && error.name === 'ZodError' && Array.isArray((error as { issues?: unknown }).issues);
}

/** `email: must be a valid email` — one line per issue, each naming its field. */
export function schemaErrorFromIssues(issues: readonly $ZodIssue[]): KnownError {
  const described = issues.slice(0, 20).map((issue) => {
    const field = issue.path.length ? issue.path.map(String).join('.') : 'body';
    return { path: field, message: issue.message };
  });
  const message = `Request validation failed:\n${described.map((d) => `  - ${d.path} ${d.message}`).join('\n')}`;
  return new KnownErrors.SchemaError(message, { issues: described });
}

/** A caller's mistake, on the wire as it is (nothing to log). */
function expected(error: KnownError): WireError {
  return { status: error.status, body: error.toBody(), unexpected: null };
}

/** The catalogued error for tRPC's own refusals that are the caller's mistake; null for the rest. */
function knownErrorOfTrpc(error: TRPCError): KnownError | null {
  if (error.code === 'BAD_REQUEST' && isZodError(error.cause)) return schemaErrorFromIssues(error.cause.issues);
  // tRPC wraps a failed JSON.parse of `?input=` or of the body as BAD_REQUEST with the SyntaxError.
  if (error.code === 'BAD_REQUEST' && error.cause instanceof SyntaxError)
    return new KnownErrors.BodyParsingError(`The request input is not valid JSON (${error.cause.message}).`);
  // tRPC's own request checks (batch size, batch input shape) carry no cause: the caller's
  // mistake, not a 500. (Services throw known errors, never TRPCError.) A BAD_REQUEST caused by
  // anything else (a throwing refine, a stack overflow) stays an unexpected error.
  if (error.code === 'BAD_REQUEST' && error.cause === undefined) return new KnownErrors.SchemaError(error.message);
  if (error.code === 'PARSE_ERROR') return new KnownErrors.BodyParsingError(error.message);
  if (error.code === 'NOT_FOUND') return new KnownErrors.RouteNotFound(error.message);
  if (error.code === 'METHOD_NOT_SUPPORTED') return new KnownErrors.MethodNotAllowed(error.message);
  // tRPC has no reader for a body that is not JSON (text/plain, form-encoded) and refuses it
  // before any procedure runs: the caller's mistake, like malformed JSON.
  if (error.code === 'UNSUPPORTED_MEDIA_TYPE')
    return new KnownErrors.BodyParsingError('The request body must be JSON, sent with Content-Type: application/json.');
  if (error.code === 'PAYLOAD_TOO_LARGE') return new KnownErrors.PayloadTooLarge();
  return null;
}

/**
 * Maps anything thrown while serving a request to the wire: known errors as they are, zod input
 * errors as SCHEMA_ERROR naming the fields, everything else as a 500 that says only its request id.
 */
export function toWireError(error: unknown, requestId: string): WireError {
  const known = findKnownError(error) ?? (error instanceof TRPCError ? knownErrorOfTrpc(error) : null);
  if (known) return expected(known);
  // A database restart, failover or pooler restart: retryable, and not the caller's mistake. It is
  // still logged (as unexpected), so an outage shows in the server log with its request ids.
  if (databaseUnavailable(error)) {
    const unavailable = new KnownErrors.DatabaseUnavailable(DATABASE_RETRY_AFTER_SECONDS);
    return { status: unavailable.status, body: unavailable.toBody(), unexpected: error };
  }
  const internal = new KnownErrors.InternalServerError(requestId);
  return { status: internal.status, body: internal.toBody(), unexpected: error };
}

/**
 * The Retry-After (seconds) of a wire error that says how long to wait: a 429 or 503 whose details
 * carry retry_after_seconds; null otherwise. Both transports (trpc/rest.ts, trpc/express-adapter.ts)
 * send it, so the SDK waits it out either way (spec section 7).
 */
export function retryAfterSeconds(wire: WireError): number | null {
  const seconds = (wire.body.details as { retry_after_seconds?: unknown } | undefined)?.retry_after_seconds;
  return (wire.status === 429 || wire.status === 503) && typeof seconds === 'number' ? seconds : null;
}
