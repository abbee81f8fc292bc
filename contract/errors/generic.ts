/** Generic and request-shape errors (spec section 8, "Request" and "Generic"). */
import { defineKnownError, defineMessageError } from './known-error.js';

/** One field-level problem found by request validation. */
export type SchemaIssue = {
  /** Dotted path of the offending field, e.g. `body.email` or `query.limit`. */
  path: string;
  message: string;
};

export type SchemaErrorDetails = { issues: readonly SchemaIssue[] };

export const genericErrors = {
  // Generic
  /** What the SDK produces for a code it does not know (a server newer than the client). */
  UnsupportedError: defineKnownError('UNSUPPORTED_ERROR', 500, (originalErrorCode: string) => ({
    message:
      'An error occurred that this client does not support (possibly because it was added in a newer version of ' +
      `Latch than this client). Upgrade the Latch SDK to get a typed error. The original error code was: ${originalErrorCode}`,
    details: { original_error_code: originalErrorCode },
  })),

  // Request
  BodyParsingError: defineMessageError(
    'BODY_PARSING_ERROR',
    400,
    'The request body could not be parsed. Send valid JSON with the header Content-Type: application/json.',
  ),

  SchemaError: defineKnownError<'SCHEMA_ERROR', [message: string, details?: SchemaErrorDetails], SchemaErrorDetails | undefined>(
    'SCHEMA_ERROR',
    400,
    (message, details) => ({ message, details }),
  ),

  AllOverloadsFailed: defineKnownError('ALL_OVERLOADS_FAILED', 400, (overloadErrors: readonly unknown[]) => ({
    message:
      'This endpoint accepts several request shapes, but the request matched none of them.\n\n' +
      overloadErrors.map((e, i) => `Shape ${i + 1}: ${JSON.stringify(e, undefined, 2)}`).join('\n\n'),
    details: { overload_errors: overloadErrors },
  })),
} as const;
