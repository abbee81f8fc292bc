import { z } from 'zod';

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

export const EMAIL_MAX_LENGTH = 256;
export const DISPLAY_NAME_MAX_LENGTH = 256;
export const IMAGE_URL_MAX_LENGTH = 1_000_000;
export const IDENTIFIER_MAX_LENGTH = 63;
export const BRANCH_MAX_LENGTH = 255;

/**
 * Email shape of spec section 5: one @, a local part without leading, trailing or consecutive
 * dots, a dotted domain whose top level has at least two letters.
 */
export function isValidEmail(value: string): boolean {
  if (value.length > EMAIL_MAX_LENGTH) return false;
  const at = value.lastIndexOf('@');
  if (at <= 0 || at !== value.indexOf('@')) return false;
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (!/^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+$/.test(local)) return false;
  if (local.startsWith('.') || local.endsWith('.') || local.includes('..')) return false;
  const labels = domain.split('.');
  if (labels.length < 2) return false;
  if (!labels.every((label) => /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(label))) return false;
  return /^[A-Za-z]{2,}$/.test(labels[labels.length - 1]!);
}

export const emailSchema = z.string().max(EMAIL_MAX_LENGTH).refine(isValidEmail, 'must be a valid email');

/** Length is checked by the service (PASSWORD_TOO_SHORT / PASSWORD_TOO_LONG carry the limits). */
export const passwordSchema = z.string();

export const displayNameSchema = z.string().max(DISPLAY_NAME_MAX_LENGTH);

/** An http(s) URL or a base64 image data URL, at most 1e6 characters. */
export const imageUrlSchema = z
  .string()
  .max(IMAGE_URL_MAX_LENGTH)
  .refine((value) => /^data:image\/[a-z0-9.+-]+;base64,[A-Za-z0-9+/=]+$/i.test(value) || isHttpUrl(value), 'must be an http(s) URL or a base64 image data URL');

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

export const identifierSchema = z.string().max(IDENTIFIER_MAX_LENGTH).regex(/^[A-Za-z0-9_][A-Za-z0-9_-]*$/, 'must contain only letters, digits, underscores and hyphens, and not start with a hyphen');

export const branchSchema = z.string().min(1).max(BRANCH_MAX_LENGTH);

export const portSchema = z.number().int().min(0).max(65535);

/** Any JSON value (metadata fields). */
export const jsonValueSchema = z.json();

export const millisSchema = z.number().int().min(0);

/** Query booleans: the REST dispatcher turns 'true'/'false' into booleans; tRPC sends booleans. */
export const queryBoolean = z.boolean();

export const successSchema = z.object({ success: z.literal(true) });

export function paginatedList<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), is_paginated: z.literal(true), pagination: z.object({ next_cursor: z.string().nullable() }) });
}

export function shortList<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), is_paginated: z.literal(false) });
}
