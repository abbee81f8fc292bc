import type { IncomingMessage } from 'node:http';
import { KnownErrors } from '../../contract/errors/known-errors.js';

/** Bodies the lean reader takes: the hot routes' are `{}` or absent. Larger ones go to body-parser. */
const LEAN_BODY_LIMIT = 16 * 1024;
const LEAN_CONTENT_TYPES = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);

/**
 * Reads a small plain JSON body the way express.json({ strict: false }) would (an empty body is
 * `{}`, no body at all leaves req.body unset), for the hot routes only and only in the common case: a JSON content type in utf-8, no
 * content encoding, a content-length within LEAN_BODY_LIMIT. Returns false for anything else, which
 * then goes through body-parser (charsets, compression, chunked and large bodies, its limits and
 * errors). body-parser's generic machinery (type-is, raw-body, iconv) costs about 6 % of a refresh.
 */
export function readLeanJsonBody(req: IncomingMessage & { body?: unknown }, done: (error?: unknown) => void): boolean {
  // No body at all (a GET): nothing to read, as body-parser decides from the same two headers.
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) {
    done();
    return true;
  }
  const type = req.headers['content-type'];
  const length = req.headers['content-length'];
  const encoding = req.headers['content-encoding'];
  if (type === undefined || !LEAN_CONTENT_TYPES.has(type.toLowerCase())) return false;
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
  if (length === undefined || !/^\d{1,5}$/.test(length) || Number(length) > LEAN_BODY_LIMIT || req.headers['transfer-encoding'] !== undefined) return false;
  const chunks: Buffer[] = [];
  let finished = false;
  const finish = (error?: unknown) => {
    if (finished) return;
    finished = true;
    done(error);
  };
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('error', finish);
  req.on('end', () => {
    const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
    if (text.length === 0) {
      req.body = {};
      return finish();
    }
    try {
      req.body = JSON.parse(text) as unknown;
    } catch {
      return finish(new KnownErrors.BodyParsingError('The request body is not valid JSON.'));
    }
    finish();
  });
  return true;
}
