/** CLI login (spec section 7, "Sessions and CLI"; README "CLI login"). */
import { z } from 'zod';

/** A CLI login request lives 10 minutes unless the CLI asks otherwise (Stack Auth: 2 hours). */
export const CLI_LOGIN_DEFAULT_EXPIRY_MILLIS = 10 * 60 * 1000;
/** The longest a CLI may ask for: the window in which a phished confirm link still works. */
export const CLI_LOGIN_MAX_EXPIRY_MILLIS = 60 * 60 * 1000;
/**
 * The least time between two polls of one polling code; a faster poll answers RATE_LIMITED (429,
 * Retry-After: 1). Half the SDK's default wait (spec section 9, "CLI poll default wait": 2000 ms),
 * so a client that waits as told never meets it.
 */
export const CLI_POLL_MIN_INTERVAL_MILLIS = 1000;

/** The codes are 224-bit secrets (38 characters); the bound only keeps junk out. */
const cliCodeSchema = z.string().min(1).max(256);

export const cliCreateSchema = z.strictObject({
  expires_in_millis: z.number().int().min(1000).max(CLI_LOGIN_MAX_EXPIRY_MILLIS).optional(),
});

export const cliCreateResultSchema = z.object({
  /** Kept by the CLI, which polls with it. */
  polling_code: z.string(),
  /** Goes into the confirm link: /handler/cli-auth-confirm?login_code=… */
  login_code: z.string(),
  /** Unix milliseconds. */
  expires_at: z.number(),
});

export const cliPollSchema = z.strictObject({ polling_code: cliCodeSchema });

/** 200 `waiting`; 201 `success` with the new session's refresh token (once). Expired, used and denied are errors. */
export const cliPollResultSchema = z.object({
  status: z.enum(['waiting', 'success']),
  refresh_token: z.string().optional(),
});

/**
 * What the confirm page sends, as a signed-in user (access token). `mode`: `check` reads the
 * request (to show who asks), `complete` (the default, Stack's name) approves it, `deny` refuses it.
 * `refresh_token` is the spec's field, still accepted: it may stand in for the access token to say
 * who approves, but it is never handed to the CLI, which always gets a session of its own.
 */
export const cliCompleteSchema = z.strictObject({
  login_code: cliCodeSchema,
  mode: z.enum(['check', 'complete', 'deny']).optional(),
  refresh_token: z.string().min(1).max(1024).optional(),
});

export const cliCompleteResultSchema = z.object({
  status: z.enum(['waiting', 'approved', 'denied']),
  /** Which app asks: the project's display name. */
  project_display_name: z.string(),
  /** When and from where the CLI asked (Unix milliseconds; the IP as the server saw it). */
  requested_at: z.number(),
  requester_ip: z.string().nullable(),
  expires_at: z.number(),
});
