import type { Request, Response } from 'express';
import type { Deps } from '../deps.js';
import { KnownErrors } from '../../contract/errors/known-errors.js';
import { clientIp, parseLatchHeaders } from '../trpc/context.js';
import { limitCodeChecks } from '../domains/verification/service.js';
import { resolveAuth } from '../access/resolve.js';
import { sendError } from '../trpc/rest.js';
import { refreshGrant } from '../domains/sessions/refresh.js';
import { redeemAuthorizationCode } from '../domains/oauth/flow.js';
import { KnownError } from '../../contract/errors/known-error.js';

/** `Basic <base64>`; exported for the ReDoS test (contract/validation/redos.test.ts). */
export const BASIC_AUTHORIZATION = /^basic ([A-Za-z0-9+/=]+)$/i;

/**
 * POST /api/v1/auth/oauth/token, grant_type=refresh_token, as form or JSON (OAuth 2.0 §6). The
 * client authenticates as the project: client_id = project id, client_secret = publishable client
 * key, in the body or as HTTP Basic; the x-latch-* headers work too. A plain express route because
 * trpc-to-openapi refuses form bodies; it is added to openapi.json by hand. The grant itself is
 * domains/sessions/refresh.ts (refreshGrant), shared with /auth/sessions/current/refresh.
 */
export async function handleOAuthToken(deps: Deps, req: Request, res: Response): Promise<void> {
  const requestId = String(res.locals.requestId);
  try {
    const body = (typeof req.body === 'object' && req.body !== null ? req.body : {}) as Record<string, unknown>;
    const field = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : undefined);
    let clientId = field('client_id');
    let clientSecret = field('client_secret');
    const authorization = req.headers.authorization;
    if (authorization) {
      const malformed = () => new KnownErrors.SchemaError('Authorization header must be in the format "Basic <base64>"');
      // The scheme is case-insensitive (RFC 7235 §2.1).
      const match = BASIC_AUTHORIZATION.exec(authorization.trim());
      const decoded = match?.[1] ? Buffer.from(match[1], 'base64').toString('utf8') : '';
      if (!match || !decoded.includes(':')) throw malformed();
      const colon = decoded.indexOf(':');
      // RFC 6749 §2.3.1: both parts are form-urlencoded; a bad %-escape is the client's error, not a 500.
      try {
        const formDecode = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '));
        clientId = formDecode(decoded.slice(0, colon));
        clientSecret = formDecode(decoded.slice(colon + 1));
      } catch {
        throw malformed();
      }
    }
    const grantType = field('grant_type');
    if (grantType !== 'refresh_token' && grantType !== 'authorization_code') {
      throw new KnownErrors.SchemaError('Request validation failed:\n  - grant_type must be refresh_token or authorization_code', {
        issues: [{ path: 'grant_type', message: 'must be refresh_token or authorization_code' }],
      });
    }
    const requiredField = (name: string): string => {
      const value = field(name);
      if (!value)
        throw new KnownErrors.SchemaError(`Request validation failed:\n  - ${name} is a required field`, {
          issues: [{ path: name, message: 'is a required field' }],
        });
      return value;
    };
    const grant =
      grantType === 'refresh_token'
        ? ({ type: 'refresh_token', refreshToken: requiredField('refresh_token') } as const)
        : ({
            type: 'authorization_code',
            code: requiredField('code'),
            codeVerifier: requiredField('code_verifier'),
            redirectUri: requiredField('redirect_uri'),
          } as const);

    const headers = parseLatchHeaders(req);
    const resolve = () =>
      resolveAuth(deps, {
        ...headers,
        projectId: clientId ?? headers.projectId,
        // client_secret is a publishable client key: with it, the check is the client check, whatever headers say.
        accessType: clientSecret !== undefined ? 'client' : (headers.accessType ?? 'client'),
        publishableClientKey: clientSecret ?? headers.publishableClientKey,
        accessToken: null,
        authHeader: null,
      });
    let auth;
    try {
      auth = await resolve();
    } catch (error) {
      // With HTTP Basic, wrong client credentials get the spec's message (section 5, "Authorization header").
      if (
        authorization &&
        error instanceof KnownError &&
        ['CURRENT_PROJECT_NOT_FOUND', 'INVALID_PUBLISHABLE_CLIENT_KEY', 'BRANCH_DOES_NOT_EXIST'].includes(error.code)
      )
        throw new KnownErrors.InvalidOAuthClientIdOrSecret(
          clientId,
          'Invalid client_id:client_secret values; did you use the correct values for the integration?',
        );
      throw error;
    }
    if (!auth) throw new KnownErrors.ClientAuthenticationRequired();
    if (grant.type === 'refresh_token') {
      res.json(await refreshGrant(deps, auth.tenancy, grant.refreshToken, clientIp(req)));
      return;
    }
    // A code is guessable input like every other code: counted per IP (verification/service.ts).
    await limitCodeChecks(deps, auth.tenancy, clientIp(req));
    res.json(await redeemAuthorizationCode(deps, auth.tenancy, grant));
  } catch (error) {
    sendError(req, res, deps, requestId, error);
  }
}
