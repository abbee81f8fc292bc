/**
 * Impersonation by link (beyond the spec; README "Impersonation"): the console (or a server)
 * asks for a short-lived, single-use code for one user, and opens the host app's
 * /handler/impersonate?code=… in a new tab, which exchanges it for an impersonation session. No
 * token is ever shown to the owner or copied by hand.
 */
import { z } from 'zod';
import { uuidSchema } from '../validation/schemas.js';

/** A code works for this long after it is made: long enough to open a tab, too short to share. */
export const IMPERSONATION_CODE_TTL_MILLIS = 60 * 1000;
/** The impersonation session's default and longest life. */
export const IMPERSONATION_SESSION_DEFAULT_MILLIS = 60 * 60 * 1000;
export const IMPERSONATION_SESSION_MAX_MILLIS = 24 * 60 * 60 * 1000;

export const impersonationCodeCreateSchema = z.strictObject({
  user_id: uuidSchema,
  /** How long the session the code starts lasts (default 1 hour, at most 24 hours). */
  session_expires_in_millis: z.number().int().min(60_000).max(IMPERSONATION_SESSION_MAX_MILLIS).optional(),
});

export const impersonationCodeSchema = z.object({
  /** Shown once; stored as its SHA-256; single use. */
  code: z.string(),
  user_id: z.string(),
  /** When the code stops working (Unix milliseconds). */
  expires_at_millis: z.number(),
});

export const impersonationSignInSchema = z.strictObject({ code: z.string().min(1).max(256) });
