import type { Request, Response } from 'express';
import type { Deps } from '../../deps.js';
import { KnownErrors } from '../../errors/known-errors.js';
import { resolveAuth, parseLatchHeaders } from '../../trpc/context.js';
import { sendError } from '../../trpc/rest.js';
import { refreshAccessToken } from './service.js';

/**
 * POST /api/v1/auth/oauth/token, grant_type=refresh_token, as form or JSON (OAuth 2.0 §6). The
 * client authenticates as the project: client_id = project id, client_secret = publishable client
 * key, in the body or as HTTP Basic; the x-latch-* headers work too. A plain express route because
 * trpc-to-openapi refuses form bodies; it is added to openapi.json by hand.
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
      const match = /^Basic ([A-Za-z0-9+/=]+)$/.exec(authorization);
      const decoded = match?.[1] ? Buffer.from(match[1], 'base64').toString('utf8') : '';
      if (!match || !decoded.includes(':')) throw malformed();
      const colon = decoded.indexOf(':');
      // RFC 6749 §2.3.1: both parts are form-urlencoded; a bad %-escape is the client's error, not a 500.
      try {
        clientId = decodeURIComponent(decoded.slice(0, colon));
        clientSecret = decodeURIComponent(decoded.slice(colon + 1));
      } catch {
        throw malformed();
      }
    }
    if (field('grant_type') !== 'refresh_token') {
      throw new KnownErrors.SchemaError('Request validation failed:\n  - grant_type must be refresh_token', { issues: [{ path: 'grant_type', message: 'must be refresh_token' }] });
    }
    const refreshToken = field('refresh_token');
    if (!refreshToken) throw new KnownErrors.SchemaError('Request validation failed:\n  - refresh_token is a required field', { issues: [{ path: 'refresh_token', message: 'is a required field' }] });

    const headers = parseLatchHeaders(req);
    const auth = await resolveAuth(deps, {
      ...headers,
      projectId: clientId ?? headers.projectId,
      accessType: headers.accessType ?? 'client',
      publishableClientKey: clientSecret ?? headers.publishableClientKey,
      accessToken: null,
      authHeader: null,
    });
    if (!auth) throw new KnownErrors.ClientAuthenticationRequired();
    const accessToken = await refreshAccessToken(deps, auth.tenancy, refreshToken, req.ip ?? null);
    res.json({ access_token: accessToken, token_type: 'Bearer', expires_in: deps.env.accessTokenTtlSeconds, refresh_token: refreshToken, scope: 'openid' });
  } catch (error) {
    sendError(req, res, deps, requestId, error);
  }
}
