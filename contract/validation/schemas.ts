import { z } from 'zod';
import { EMAIL_MAX_LENGTH, isValidEmail } from './email.js';

export { EMAIL_MAX_LENGTH, isValidEmail };

/**
 * Wire schemas shared by every domain (spec section 5). The admin console imports these too, so
 * forms and server validate with the same rules.
 */

// Messages in the spec's words ("required field", "must be a valid email", "must be at least N
// characters"), so a schema error reads the same whichever field failed.
z.config({
  customError: (issue) => {
    if (issue.code === 'invalid_type' && issue.input === undefined) return 'is a required field';
    if (issue.code === 'invalid_type') return `must be of type ${issue.expected}`;
    if (issue.code === 'too_small' && issue.origin === 'string') return `must be at least ${issue.minimum} characters`;
    if (issue.code === 'too_big' && issue.origin === 'string') return `must be at most ${issue.maximum} characters`;
    if (issue.code === 'unrecognized_keys') return `contains unknown properties: ${issue.keys.join(', ')}`;
    return undefined;
  },
});

export const DISPLAY_NAME_MAX_LENGTH = 256;
export const IMAGE_URL_MAX_LENGTH = 1_000_000;
export const IDENTIFIER_MAX_LENGTH = 63;
export const BRANCH_MAX_LENGTH = 255;

export const emailSchema = z.string().max(EMAIL_MAX_LENGTH).refine(isValidEmail, 'must be a valid email');

/** Length is checked by the service (PASSWORD_TOO_SHORT / PASSWORD_TOO_LONG carry the limits). */
export const passwordSchema = z.string();

export const displayNameSchema = z.string().max(DISPLAY_NAME_MAX_LENGTH);

/** A data-URL image holds less than this many bytes once decoded (spec: profile images "under 100KB"). */
export const IMAGE_DATA_MAX_BYTES = 100 * 1024;
/** An http(s) image URL is at most this long: room for any signed CDN URL, not for a payload. */
export const IMAGE_HTTP_URL_MAX_LENGTH = 8192;

/**
 * Whether an image URL is within its size: a data URL's decoded bytes under IMAGE_DATA_MAX_BYTES,
 * an http(s) URL at most IMAGE_HTTP_URL_MAX_LENGTH characters. Without it every user and team
 * could store a 1e6-character URL (issue 13, quotas).
 */
export function isImageUrlWithinSize(value: string): boolean {
  if (!/^data:/i.test(value)) return value.length <= IMAGE_HTTP_URL_MAX_LENGTH;
  const payload = value.slice(value.indexOf(',') + 1);
  const padding = payload.endsWith('==') ? 2 : payload.endsWith('=') ? 1 : 0;
  return Math.floor((payload.length * 3) / 4) - padding < IMAGE_DATA_MAX_BYTES;
}

/** An http(s) URL or a base64 image data URL, at most 1e6 characters, under 100KB of image. */
export const imageUrlSchema = z
  .string()
  .max(IMAGE_URL_MAX_LENGTH)
  .refine((value) => /^data:image\/[a-z0-9.+-]+;base64,[A-Za-z0-9+/=]+$/i.test(value) || isHttpUrl(value), 'must be an http(s) URL or a base64 image data URL')
  .refine(
    isImageUrlWithinSize,
    `must be an image under 100KB (a data URL of less than ${IMAGE_DATA_MAX_BYTES} bytes, or an http(s) URL of at most ${IMAGE_HTTP_URL_MAX_LENGTH} characters)`,
  );

export function isHttpUrl(value: string): boolean {
  if (/\s/.test(value)) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

export const urlSchema = z.string().max(2048).refine(isHttpUrl, 'must be a valid http(s) URL without spaces');

/** UUID version 4 only (spec section 5). */
export const uuidSchema = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i, 'must be a valid UUID (version 4)');

/** A user id, or `me` for the current user where the endpoint allows it. */
export const userIdOrMeSchema = z.union([z.literal('me'), uuidSchema]);

export const identifierSchema = z
  .string()
  .max(IDENTIFIER_MAX_LENGTH)
  .regex(/^[A-Za-z0-9_][A-Za-z0-9_-]*$/, 'must contain only letters, digits, underscores and hyphens, and not start with a hyphen');

export const branchSchema = z.string().min(1).max(BRANCH_MAX_LENGTH);

export const portSchema = z.number().int().min(0).max(65535);

/** Any JSON value (metadata fields). */
export const jsonValueSchema = z.json();

/**
 * Milliseconds since the epoch, up to the end of the year 9999. A Date beyond it serializes with a
 * six-digit year (`+031453-09-04T…`) that PostgreSQL refuses, so a larger value would be a 500
 * instead of a SCHEMA_ERROR (found by the fuzzer); no expiry needs more.
 */
export const MAX_DATE_MILLIS = 253_402_300_799_999;
export const millisSchema = z.number().int().min(0).max(MAX_DATE_MILLIS);

export const successSchema = z.object({ success: z.literal(true) });

/** Deeper input is refused before validation: zod and JSON.stringify recurse, and no field needs it. */
export const MAX_INPUT_DEPTH = 64;

const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * What no input may contain, whatever its schema: the NUL character (PostgreSQL refuses it in text
 * and jsonb, so it would end in a 500), unpaired UTF-16 surrogates (not Unicode: they would be
 * stored as U+FFFD, silently changing the value), a `__proto__` key inside a field's value
 * (silently dropped by parsing; checked even when strings are not), and nesting deeper than MAX_INPUT_DEPTH. Object
 * keys are checked like values. Iterative, so hostile nesting cannot overflow the stack here.
 *
 * @example findInputProblem({ display_name: 'a\u0000b' }) // { path: 'display_name', message: 'must not contain the NUL character' }
 */
export function findInputProblem(input: unknown, options: { maxDepth?: number; checkStrings?: boolean } = {}): { path: string; message: string } | null {
  const { maxDepth = MAX_INPUT_DEPTH, checkStrings = true } = options;
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: input, path: '', depth: 0 }];
  const checkString = (value: string, path: string) => {
    if (!checkStrings) return null;
    if (value.includes('\u0000')) return { path: path || 'body', message: 'must not contain the NUL character' };
    if (UNPAIRED_SURROGATE.test(value)) return { path: path || 'body', message: 'must be valid Unicode (it contains an unpaired surrogate)' };
    return null;
  };
  while (stack.length) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      const problem = checkString(value, path);
      if (problem) return problem;
    } else if (value !== null && typeof value === 'object') {
      if (depth >= maxDepth) return { path: path || 'body', message: `is nested too deeply (more than ${maxDepth} levels)` };
      const entries: [string, unknown][] = Array.isArray(value) ? value.map((item, i) => [String(i), item]) : Object.entries(value);
      for (const [key, item] of entries) {
        const child = path ? `${path}.${key}` : key;
        // JSON.parse keeps a "__proto__" key as an own property, but every object built from it
        // (zod's parsed copy, a spread) assigns it as the prototype instead: the key and its value
        // would vanish between the request and the database. Refused inside any field's value
        // (metadata, nested objects); at the top level it is an unknown parameter like any other,
        // which every schema ignores anyway (a query string's ?__proto__=1).
        if (key === '__proto__' && depth >= 1 && !Array.isArray(value)) return { path: child, message: 'is not an allowed key ("__proto__" cannot be stored)' };
        const keyProblem = Array.isArray(value) ? null : checkString(key, child);
        if (keyProblem) return keyProblem;
        stack.push({ value: item, path: child, depth: depth + 1 });
      }
    }
  }
  return null;
}

export function paginatedList<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), is_paginated: z.literal(true), pagination: z.object({ next_cursor: z.string().nullable() }) });
}

export function shortList<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), is_paginated: z.literal(false) });
}
