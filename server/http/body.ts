import express, { type Request, type Response } from 'express';
import type { Deps } from '../deps.js';
import { KnownErrors } from '../../contract/errors/known-errors.js';
import { KnownError } from '../../contract/errors/known-error.js';
import { findInputProblem } from '../../contract/validation/schemas.js';
import { sendError } from '../trpc/rest.js';
import type { Middleware } from './middleware.js';

export interface BodyParsers {
  /** express.json as every JSON route uses it. */
  parseJson: Middleware;
  /** Refuses unstorable input (absurd nesting) in a parsed body; strings are left to the procedures. */
  guardBody: Middleware;
  /** parseJson then guardBody: /api/trpc and /api/v1. */
  jsonBody: Middleware[];
  /** JSON or a form, strings checked too: /api/v1/auth/oauth/token reads its body directly. */
  oauthBody: Middleware[];
}

/**
 * Whether a request carries a body whose media type is not JSON (`application/json` or
 * `application/*+json`). body-parser would skip such a body and the procedure would then report
 * its first required field as missing, which sends the caller looking in the wrong place.
 */
function hasNonJsonBody(req: { headers: Record<string, string | string[] | undefined> }): boolean {
  const length = req.headers['content-length'];
  if (req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) return false;
  const type = req.headers['content-type'];
  const media = (typeof type === 'string' ? type.split(';', 1)[0]! : '').trim().toLowerCase();
  return !(media === 'application/json' || (media.startsWith('application/') && media.endsWith('+json')));
}

export function bodyParsers(deps: Deps): BodyParsers {
  const readJson = express.json({ limit: '2mb', strict: false, type: ['application/json', 'application/*+json'] });
  const parseJson: Middleware = (req, res, next) => {
    if (hasNonJsonBody(req)) {
      const type = req.headers['content-type'];
      return next(
        new KnownErrors.BodyParsingError(
          type
            ? `The request body must be JSON, but its content-type is ${JSON.stringify(type.slice(0, 100))}. Send it with the header Content-Type: application/json.`
            : 'The request body has no content-type. Send JSON with the header Content-Type: application/json.',
        ),
      );
    }
    readJson(req, res, next);
  };
  // Procedures refuse unstorable input themselves (trpc/procedures.ts); two places need it earlier:
  // the tRPC adapter re-serializes the parsed body (absurd nesting overflows the stack before any
  // procedure runs), and the OAuth route reads its body directly.
  const guardBody =
    (options: { checkStrings: boolean }): Middleware =>
    (req, res, next) => {
      const problem = findInputProblem(req.body, options);
      if (!problem) return next();
      sendError(
        req,
        res,
        deps,
        String(res.locals.requestId),
        new KnownErrors.SchemaError(`Request validation failed:\n  - ${problem.path} ${problem.message}`, { issues: [problem] }),
      );
    };
  const guardJson = guardBody({ checkStrings: false });
  return {
    parseJson,
    guardBody: guardJson,
    jsonBody: [parseJson, guardJson],
    oauthBody: [readJson, express.urlencoded({ extended: false, limit: '64kb' }), guardBody({ checkStrings: true })],
  };
}

/** Body-parser failures (malformed JSON, too large) and anything else that escaped a route. */
export function uncaughtErrorHandler(deps: Deps): (error: unknown, req: Request, res: Response) => void {
  return (error, req, res) => {
    const status = (error as { status?: number; type?: string }).status;
    const type = (error as { type?: string }).type;
    let mapped: unknown = error;
    if (type === 'entity.too.large' || status === 413) mapped = new KnownErrors.PayloadTooLarge();
    else if (type === 'entity.parse.failed' || type === 'charset.unsupported' || type === 'encoding.unsupported')
      mapped = new KnownErrors.BodyParsingError('The request body is not valid JSON.');
    // body-parser's other refusals (a body that does not match its content-encoding, a length that
    // does not match content-length, an aborted upload) carry a 4xx status and no catalogued code.
    else if (typeof status === 'number' && status >= 400 && status < 500 && !(error instanceof KnownError))
      mapped = new KnownErrors.BodyParsingError('The request body could not be read (check content-encoding and content-length).');
    sendError(req, res, deps, String(res.locals.requestId), mapped);
  };
}
