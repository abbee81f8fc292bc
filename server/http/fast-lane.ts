import { IncomingMessage, type ServerOptions, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type express from 'express';
import type { Request, Response } from 'express';
import type { createRestDispatcher } from '../trpc/rest.js';
import { refuseLongUrl } from './client-error.js';
import { readLeanJsonBody } from './json-body.js';
import type { Middleware } from './middleware.js';

/** What the fast lane runs: the same middlewares and dispatcher the app mounts, handed over by app.ts. */
export interface FastLaneParts {
  tagRequest: Middleware;
  apiHeaders: Middleware;
  parseJson: Middleware;
  guardBody: Middleware;
  dispatcher: ReturnType<typeof createRestDispatcher>;
  handleError: (error: unknown, req: Request, res: Response) => void;
}

/** The two calls every signed-in client makes most: the exact paths, no query string. */
const HOT_ROUTES = new Set(['GET /api/v1/users/me', 'POST /api/v1/auth/sessions/current/refresh']);

/** The node:http handler, with the request and response classes its server should create. */
export type RequestHandler = ((req: IncomingMessage, res: ServerResponse) => void) & {
  serverOptions: ServerOptions<typeof IncomingMessage, typeof ServerResponse>;
};

/**
 * The node:http handler: the app, with a lean path for the hottest routes. A hot request skips
 * only express's router (its walk over every mounted layer and path pattern); it runs the same
 * middlewares as through the app, in the same order (request id and metrics, CORS and no-store,
 * the JSON body parser — or, for a small plain JSON body, json-body.ts — and its guard), then the same REST dispatcher (auth context, procedure,
 * errors, DTOs), and body-parser failures go to the same error mapping. Anything else, including
 * other spellings of these paths, goes through express.
 *
 * `serverOptions` makes node:http create each request and response with express's prototypes
 * (app.request, app.response) from the start, so neither express nor the lean path re-parents them
 * per request: Object.setPrototypeOf on a live object migrates its map and sends the property
 * lookups that follow down V8's slow path (about a tenth of a hot request's instructions).
 */
export function withFastLane(app: express.Express, parts: FastLaneParts): RequestHandler {
  const handle = (rawReq: IncomingMessage, rawRes: ServerResponse) => {
    if (refuseLongUrl(rawReq, rawRes)) return;
    if (!HOT_ROUTES.has(`${rawReq.method} ${rawReq.url}`)) {
      app(rawReq, rawRes);
      return;
    }
    // What express.handle and its router do before a route runs, for the fields our code reads.
    const req = rawReq as Request;
    const res = rawRes as Response;
    req.res = res;
    res.req = req;
    // A server made without serverOptions: re-parent them as express would.
    if (Object.getPrototypeOf(req) !== app.request) Object.setPrototypeOf(req, app.request);
    if (Object.getPrototypeOf(res) !== app.response) Object.setPrototypeOf(res, app.response);
    res.locals = Object.create(null) as Response['locals'];
    req.originalUrl = req.url;
    const fail = (error: unknown) => parts.handleError(error, req, res);
    try {
      const afterBody = (error?: unknown) => {
        if (error) return fail(error);
        parts.guardBody(req, res, () => void parts.dispatcher.handle(req, res));
      };
      parts.tagRequest(req, res, () =>
        parts.apiHeaders(req, res, () => {
          if (!readLeanJsonBody(req, afterBody)) parts.parseJson(req, res, afterBody);
        }),
      );
    } catch (error) {
      fail(error);
    }
  };
  return Object.assign(handle, { serverOptions: expressServerOptions(app) });
}

/**
 * node:http's request and response constructors with express's per-app prototypes: the same
 * constructors node:http uses, whose instances start out as what express would turn them into.
 */
function expressServerOptions(app: express.Express): ServerOptions<typeof IncomingMessage, typeof ServerResponse> {
  // They are plain functions (Node 20 and 22), callable on a new `this`; were one to become a class,
  // node's own are kept and requests are re-parented per request as before.
  if ([IncomingMessage, ServerResponse].some((f) => Function.prototype.toString.call(f).startsWith('class'))) return {};
  function LatchRequest(this: IncomingMessage, socket: Socket) {
    IncomingMessage.call(this, socket);
  }
  LatchRequest.prototype = app.request;
  function LatchResponse(this: ServerResponse, req: IncomingMessage, options?: unknown) {
    (ServerResponse as unknown as (this: ServerResponse, req: IncomingMessage, options?: unknown) => void).call(this, req, options);
  }
  LatchResponse.prototype = app.response;
  return { IncomingMessage: LatchRequest as unknown as typeof IncomingMessage, ServerResponse: LatchResponse as unknown as typeof ServerResponse };
}
