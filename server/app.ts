import express, { type NextFunction, type Request, type Response } from 'express';
import type { Deps } from './deps.js';
import { stripeWebhookRouter } from './http/stripe-webhook.js';
import { buildOpenApiDocument } from './trpc/openapi.js';
import { trpcExpressHandler } from './trpc/express-adapter.js';
import { createRestDispatcher } from './trpc/rest.js';
import { appRouter } from './router.js';
import { bodyParsers, uncaughtErrorHandler } from './http/body.js';
import { mountConsoleApp } from './http/console-app.js';
import { consoleSessionRouter } from './http/console-session.js';
import { mountDocs } from './http/docs.js';
import { type FastLaneParts, type RequestHandler, withFastLane } from './http/fast-lane.js';
import { mountHealth } from './http/health.js';
import { httpMetrics } from './http/metrics.js';
import { apiHeaders, requestTagger } from './http/middleware.js';
import { handleOAuthToken } from './http/oauth-token.js';
import { handleOAuthAuthorize, handleOAuthCallback } from './http/oauth-flow.js';
import { handleUnsubscribePage, handleUnsubscribePost } from './http/unsubscribe.js';
import { handleAiChatStream } from './http/ai-chat-stream.js';

/**
 * The express app, composed; each piece lives in server/http/ (routes that are not procedures,
 * the middlewares) or server/trpc/ (the two transports of the procedures). The order of the mounts
 * is the order a request meets them.
 */
export function createApp(deps: Deps): { app: express.Express; fastLane: FastLaneParts } {
  const app = express();
  app.disable('x-powered-by');
  // Responses are no-store API answers: hashing each body for an ETag (express's default) buys nothing.
  app.set('etag', false);
  app.set('trust proxy', deps.env.trustProxy);
  const metrics = httpMetrics(deps);
  const dispatcher = createRestDispatcher(appRouter, deps);
  const body = bodyParsers(deps);
  const handleUncaught = uncaughtErrorHandler(deps);

  const tagRequest = requestTagger(deps, metrics.countResponse);
  app.use(tagRequest);
  const api = apiHeaders(deps);
  app.use('/api', api);

  mountHealth(app, deps);
  app.get('/metrics', metrics.route);
  // Built on the first request for it, not at start: generating the reference takes most of a second.
  mountDocs(app, () => buildOpenApiDocument(appRouter));

  // Routes that are not procedures and read their own bodies come before /api/v1 (server/http/):
  app.post('/api/v1/auth/oauth/token', body.oauthBody, (req: Request, res: Response) => handleOAuthToken(deps, req, res));
  // The console keeps the owner's refresh token in an HttpOnly cookie (http/console-session.ts).
  app.use('/api/console', consoleSessionRouter(deps));
  // The OAuth browser legs (http/oauth-flow.ts): redirects and pages, not JSON calls. The callback
  // is GET, or POST for Apple's form_post.
  app.get('/api/v1/auth/oauth/authorize/:provider', (req: Request, res: Response) => handleOAuthAuthorize(deps, req, res));
  app.get('/api/v1/auth/oauth/callback/:provider', (req: Request, res: Response) => handleOAuthCallback(deps, req, res));
  app.post('/api/v1/auth/oauth/callback/:provider', body.oauthBody, (req: Request, res: Response) => handleOAuthCallback(deps, req, res));
  // One-click unsubscribe (http/unsubscribe.ts): a page and a form post, used without signing in.
  app.get('/api/v1/emails/unsubscribe', (req: Request, res: Response, next: NextFunction) => handleUnsubscribePage(deps, req, res).catch(next));
  app.post('/api/v1/emails/unsubscribe', body.oauthBody, (req: Request, res: Response, next: NextFunction) =>
    handleUnsubscribePost(deps, req, res).catch(next),
  );
  // The AI drafting assistant's turn as server-sent events (http/ai-chat-stream.ts).
  app.post('/api/v1/internal/ai-chat/:thread_id/stream', body.jsonBody, (req: Request, res: Response, next: NextFunction) =>
    handleAiChatStream(deps, req, res).catch(next),
  );
  // The Stripe webhook (domains/payments): it needs the raw body to check the signature, so it
  // must not get jsonBody.
  app.use('/api/v1/integrations/stripe/webhooks', stripeWebhookRouter(deps));

  app.use('/api/trpc', body.jsonBody, trpcExpressHandler(deps));
  app.use('/api/v1', body.jsonBody, (req: Request, res: Response) => {
    void dispatcher.handle(req, res);
  });

  mountConsoleApp(app);
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => handleUncaught(error, req, res));
  return {
    app,
    fastLane: { tagRequest, apiHeaders: api, parseJson: body.parseJson, guardBody: body.guardBody, dispatcher, handleError: handleUncaught },
  };
}

/**
 * The node:http handler: the app, with the fast lane for the hottest routes, and the request and
 * response classes its server should create (http/fast-lane.ts).
 */
export function createRequestHandler(deps: Deps): RequestHandler {
  const { app, fastLane } = createApp(deps);
  return withFastLane(app, fastLane);
}
