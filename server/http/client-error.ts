/**
 * Catalogued answers for requests that never reach a route (issue 13 item 13): Node's HTTP parser
 * refuses a header block over its limit, a malformed request line or chunk, or a request that
 * arrives too slowly, and by default answers with a bare status line (`431`, `400`, …) that no
 * client of ours can read. Here every such refusal is the usual `{code, details, error}` body with
 * the `x-latch-known-error` header; and URLs longer than MAX_URL_LENGTH (but within the parser's
 * limit) are refused with URI_TOO_LONG before routing.
 */
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, maxHeaderSize } from 'node:http';
import type { Duplex } from 'node:stream';
import type { KnownError } from '../../contract/errors/known-error.js';
import { KnownErrors } from '../../contract/errors/known-errors.js';

/** Longest accepted request target (path and query), in characters. Large inputs belong in a body. */
export const MAX_URL_LENGTH = 8192;

/** The known error for one of the parser's error codes (llhttp's `HPE_*`, Node's `ERR_HTTP_*`). */
export function knownErrorForParserFailure(code: string | undefined): KnownError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new KnownErrors.RequestHeadersTooLarge(maxHeaderSize);
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new KnownErrors.PayloadTooLarge();
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return new KnownErrors.RequestTimeout();
    default:
      return new KnownErrors.MalformedHttpRequest();
  }
}

function headersOf(error: KnownError, requestId: string, body: string): [string, string][] {
  return [
    ['content-type', 'application/json; charset=utf-8'],
    ['content-length', String(Buffer.byteLength(body))],
    ['cache-control', 'no-store'],
    ['x-latch-known-error', error.code],
    ['x-stack-known-error', error.code],
    ['x-latch-request-id', requestId],
    // The request could not be framed, so the connection cannot carry another one.
    ['connection', 'close'],
  ];
}

/**
 * The server's `clientError` listener. Writes the catalogued response straight to the socket (there
 * is no request or response object at this point) and closes it; a socket that is gone, or whose
 * current response has already started, is only destroyed, so a peer never gets a corrupted stream.
 */
export function handleClientError(error: Error & { code?: string }, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const known = knownErrorForParserFailure(error.code);
  const body = JSON.stringify(known.toBody());
  const head = headersOf(known, randomUUID(), body)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${known.status} ${statusText(known.status)}\r\n${head}\r\n${body}`);
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  431: 'Request Header Fields Too Large',
};
function statusText(status: number): string {
  return STATUS_TEXT[status] ?? 'Error';
}

/**
 * Refuses a request whose URL is longer than MAX_URL_LENGTH with URI_TOO_LONG (414); returns
 * whether it did. Runs before routing, so no route ever sees such a URL.
 */
export function refuseLongUrl(req: IncomingMessage, res: ServerResponse): boolean {
  if ((req.url?.length ?? 0) <= MAX_URL_LENGTH) return false;
  const known = new KnownErrors.UriTooLong(MAX_URL_LENGTH);
  const body = JSON.stringify(known.toBody());
  res.shouldKeepAlive = false;
  res.writeHead(known.status, Object.fromEntries(headersOf(known, randomUUID(), body)));
  res.end(body);
  // The request's body (if any) is not read: drop it rather than parse it.
  req.resume();
  return true;
}
