import type { Request, Response } from 'express';
import type { AnyRouter } from '@trpc/server';
import { KnownErrors } from '../../contract/errors/known-errors.js';
import { retryAfterSeconds, toWireError } from '../errors/wire.js';
import type { Deps } from '../deps.js';
import { createRequestContext } from './context.js';
import { ACTUAL_STATUS_HEADER, STACK_ACTUAL_STATUS_HEADER, headerNames, setKnownErrorHeaders } from './header-dialect.js';
import { type ProcedureRunner, procedureRunner } from './run-procedure.js';
import type { LatchMeta } from './init.js';

/**
 * Serves the router's `meta.openapi` procedures as REST under /api/v1. trpc-to-openapi generates
 * the document (openapi.ts); this dispatcher replaces its runtime adapter, which coerces body
 * values by mutating the shared zod schemas (a JSON body `"false"` would pass as `true`, on tRPC
 * too), lets `{id}` routes capture literal siblings, does not URL-decode path params, and writes
 * its own error body. Here: literal segments win, path params are decoded, only query strings are
 * coerced (per request, schemas untouched), and every error leaves as `{code, details, error}`.
 */

type Segment = { literal: string } | { param: string };

interface Route {
  method: string;
  template: string;
  segments: Segment[];
  procedurePath: string;
  /** The procedure, resolved once here instead of through a caller proxy per request. */
  procedure: ProcedureLike;
  /** Runs the procedure's middlewares and resolver (run-procedure.ts). */
  run: ProcedureRunner;
  inputShape: Record<string, ZodLike> | null;
  hasInput: boolean;
  successStatus: number;
  successStatusOf: ((data: unknown) => number) | undefined;
}

interface ZodLike {
  _zod: { def: { type: string; innerType?: ZodLike; in?: ZodLike; out?: ZodLike; element?: ZodLike; shape?: Record<string, ZodLike> } };
}

interface ProcedureLike {
  _def: { meta?: LatchMeta; inputs: unknown[]; type: 'query' | 'mutation' | 'subscription' };
}

function unwrap(schema: ZodLike): ZodLike {
  let current = schema;
  for (let i = 0; i < 10; i++) {
    const def = current._zod.def;
    if ((def.type === 'optional' || def.type === 'nullable' || def.type === 'default' || def.type === 'prefault') && def.innerType) current = def.innerType;
    else if (def.type === 'pipe' && def.in) current = def.in;
    else break;
  }
  return current;
}

function shapeOf(input: unknown): Record<string, ZodLike> | null {
  if (!input || typeof input !== 'object' || !('_zod' in input)) return null;
  const unwrapped = unwrap(input as ZodLike);
  const shape = unwrapped._zod.def.shape;
  return unwrapped._zod.def.type === 'object' && shape ? shape : null;
}

function parseTemplate(template: string): Segment[] {
  return template
    .split('/')
    .filter(Boolean)
    .map((part) => {
      const param = /^\{(\w+)\}$/.exec(part);
      return param?.[1] ? { param: param[1] } : { literal: part.toLowerCase() };
    });
}

/** Literal segments sort before parameters, position by position: `/users/me` before `/users/{id}`. */
function compareSpecificity(a: Route, b: Route): number {
  for (let i = 0; i < Math.min(a.segments.length, b.segments.length); i++) {
    const al = 'literal' in a.segments[i]! ? 0 : 1;
    const bl = 'literal' in b.segments[i]! ? 0 : 1;
    if (al !== bl) return al - bl;
  }
  return 0;
}

export function collectRoutes(router: AnyRouter): Route[] {
  const procedures = router._def.procedures as Record<string, ProcedureLike>;
  const routes: Route[] = [];
  for (const [procedurePath, procedure] of Object.entries(procedures)) {
    const openapi = procedure._def.meta?.openapi;
    if (!openapi || openapi.enabled === false) continue;
    const input = procedure._def.inputs[0];
    routes.push({
      method: openapi.method,
      template: openapi.path,
      segments: parseTemplate(openapi.path),
      procedurePath,
      procedure,
      run: procedureRunner(procedure),
      inputShape: shapeOf(input),
      hasInput: input !== undefined && (input as ZodLike)._zod?.def.type !== 'void',
      successStatus: procedure._def.meta?.successStatus ?? 200,
      successStatusOf: procedure._def.meta?.successStatusOf,
    });
  }
  return routes.sort(compareSpecificity);
}

/** Exported for the ReDoS test (server/test/redos.test.ts). */
export const QUERY_NUMBER = /^-?\d+(\.\d+)?$/;

/**
 * Query values arrive as strings: numbers and booleans are converted where the schema wants them.
 * Parameter names are attacker-chosen: only the shape's own keys are looked up (`?__proto__=` must
 * not find Object.prototype), and the result has no prototype, so such a name stays a plain
 * unknown key that strict inputs refuse.
 */
function coerceQuery(params: URLSearchParams, shape: Record<string, ZodLike> | null): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    const field = shape && Object.hasOwn(shape, key) ? shape[key] : undefined;
    const type = field ? unwrap(field)._zod.def.type : 'string';
    const convert = (value: string): unknown => {
      if (type === 'number' && QUERY_NUMBER.test(value)) return Number(value);
      if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
      return value;
    };
    out[key] = type === 'array' ? values.map(convert) : convert(values[values.length - 1]!);
  }
  return out;
}

/** Exported for the ReDoS test (server/test/redos.test.ts); `/` never matches the inner class, so no backtracking. */
export const PLAIN_PATH = /^(?:\/[A-Za-z0-9_-]+)+$/;

export interface RestDispatcher {
  handle(req: Request, res: Response): Promise<void>;
  routes: Route[];
}

export function createRestDispatcher(router: AnyRouter, deps: Deps): RestDispatcher {
  const routes = collectRoutes(router);
  const byMethod = new Map<string, Route[]>();
  const exact = new Map<string, Route>();
  for (const route of routes) {
    if (route.segments.every((s) => 'literal' in s))
      exact.set(`${route.method} /${route.segments.map((s) => (s as { literal: string }).literal).join('/')}`, route);
    const list = byMethod.get(route.method) ?? [];
    list.push(route);
    byMethod.set(route.method, list);
  }

  function match(method: string, parts: string[]): { route: Route; params: Record<string, string> } | null {
    const lowered = parts.map((p) => p.toLowerCase());
    const hit = exact.get(`${method} /${lowered.join('/')}`);
    if (hit) return { route: hit, params: {} };
    for (const route of byMethod.get(method) ?? []) {
      if (route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const segment = route.segments[i]!;
        if ('literal' in segment) ok = segment.literal === lowered[i];
        else params[segment.param] = parts[i]!;
      }
      if (ok) return { route, params };
    }
    return null;
  }

  return {
    routes,
    async handle(req, res) {
      const requestId = String(res.locals.requestId);
      const ctx = createRequestContext(deps, req, requestId);
      try {
        // Most calls are a plain path (letters, digits, - and _ between slashes): the URL parser
        // would return it unchanged. Anything else (query, dots, escapes) is parsed and normalised.
        const url = PLAIN_PATH.test(req.originalUrl) ? null : new URL(req.originalUrl, 'http://localhost');
        const pathname = url ? url.pathname : req.originalUrl;
        const rest = pathname.replace(/^\/api\/v1/, '');
        const parts = rest.split('/').filter(Boolean);
        const found = match(req.method, parts);
        if (!found) {
          const otherMethod = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'].some((m) => m !== req.method && match(m, parts));
          throw otherMethod
            ? new KnownErrors.MethodNotAllowed(`${req.method} is not allowed on ${pathname}.`)
            : new KnownErrors.RouteNotFound(`No route for ${req.method} ${pathname}.`);
        }
        const { route, params } = found;
        let input: unknown;
        if (route.hasInput) {
          const decoded: Record<string, string> = {};
          for (const [name, value] of Object.entries(params)) {
            try {
              decoded[name] = decodeURIComponent(value);
            } catch {
              throw new KnownErrors.SchemaError(`Path parameter ${name} is not valid URL encoding.`);
            }
          }
          let fields: Record<string, unknown>;
          if (route.method === 'GET' || route.method === 'DELETE') {
            // No query string (the hot GET /users/me): nothing to coerce.
            fields = url === null || url.searchParams.size === 0 ? {} : coerceQuery(url.searchParams, route.inputShape);
          } else {
            const body: unknown = req.body ?? {};
            if (typeof body !== 'object' || body === null || Array.isArray(body)) {
              throw new KnownErrors.SchemaError('Request validation failed:\n  - body must be a JSON object', {
                issues: [{ path: 'body', message: 'must be a JSON object' }],
              });
            }
            fields = body as Record<string, unknown>;
          }
          input = { ...fields, ...decoded };
        }
        const data = await route.run({ path: route.procedurePath, ctx, getRawInput: async () => input });
        sendJson(res, route.successStatusOf ? route.successStatusOf(data) : route.successStatus, data);
      } catch (error) {
        sendError(req, res, deps, requestId, error);
      }
    },
  };
}

/**
 * What express's res.json does for our answers, without its generic send (ETag is off, API answers
 * are never "fresh" since they carry no validators, and HEAD is not routed here).
 */
function sendJson(res: Response, status: number, data: unknown): void {
  const body = JSON.stringify(data) ?? '';
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(body));
  res.end(body);
}

/** Writes any error as `{code, details, error}` with x-latch-known-error (and x-stack-known-error); 500s are logged, never detailed. */
export function sendError(req: Request, res: Response, deps: Deps, requestId: string, error: unknown): void {
  const wire = toWireError(error, requestId);
  if (wire.unexpected) {
    deps.log.error(`unexpected error on ${req.method} ${req.originalUrl} (request ${requestId})`, {
      error: wire.unexpected instanceof Error ? (wire.unexpected.stack ?? wire.unexpected.message) : String(wire.unexpected),
    });
  }
  if (res.headersSent) return;
  setKnownErrorHeaders(res, wire.body.code);
  if (req.headers[headerNames(req.headers).overrideErrorStatus] === 'true') {
    // Both names: the Stack SDK sends X-Stack-Override-Error-Status and reads x-stack-actual-status.
    res.setHeader(ACTUAL_STATUS_HEADER, String(wire.status));
    res.setHeader(STACK_ACTUAL_STATUS_HEADER, String(wire.status));
    res.status(200);
  } else {
    res.status(wire.status);
  }
  const retryAfter = retryAfterSeconds(wire);
  if (retryAfter !== null) res.setHeader('retry-after', String(retryAfter));
  res.json(wire.body);
}
