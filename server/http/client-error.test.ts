import { connect } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { useHarness } from '../test/harness.js';
import { MAX_URL_LENGTH } from './client-error.js';

/**
 * Issue 13 item 13: every error is catalogued, even the HTTP parser's. Raw sockets, since no HTTP
 * client will send (or read back) what these tests need.
 */

const h = useHarness();
let port: number;
beforeAll(async () => {
  port = h.latch.port;
});

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** Sends `request` verbatim and reads the response until the server closes the connection. */
function raw(request: string | Buffer[], options: { endAfterWrite?: boolean } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error) => (chunks.length ? undefined : reject(error)));
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      const bodyText = rest.join('\r\n\r\n');
      let body: unknown = bodyText;
      try {
        body = JSON.parse(bodyText);
      } catch {
        // not JSON: the test fails on it below
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
    socket.setTimeout(15_000, () => socket.destroy());
    for (const part of Array.isArray(request) ? request : [Buffer.from(request)]) socket.write(part);
    if (options.endAfterWrite) socket.end();
  });
}

function expectCatalogued(res: RawResponse, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.code }, JSON.stringify(res)).toEqual({ status, code });
  expect(res.headers['x-latch-known-error']).toBe(code);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(typeof res.body.error).toBe('string');
  expect(res.headers['x-latch-request-id']).toMatch(/^[0-9a-f-]{36}$/);
}

describe('errors of the HTTP parser', () => {
  it('answers a header block over the limit with 431 REQUEST_HEADERS_TOO_LARGE', async () => {
    const res = await raw(`GET /api/v1/users/me HTTP/1.1\r\nHost: localhost\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`);
    expectCatalogued(res, 431, 'REQUEST_HEADERS_TOO_LARGE');
    expect(res.body.details.max_bytes).toBeGreaterThan(0);
  });

  it('answers a URL over the parser limit with 431, and one over MAX_URL_LENGTH with 414 URI_TOO_LONG', async () => {
    expectCatalogued(await raw(`GET /api/v1/users?query=${'q'.repeat(20_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`), 431, 'REQUEST_HEADERS_TOO_LARGE');
    const long = await raw(`GET /api/v1/users?query=${'q'.repeat(MAX_URL_LENGTH)} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
    expectCatalogued(long, 414, 'URI_TOO_LONG');
    expect(long.body.details).toEqual({ max_length: MAX_URL_LENGTH });
    // Just under the limit is routed as usual (here: a catalogued auth error, not 414).
    const fits = await h.get(`/users?query=${'q'.repeat(MAX_URL_LENGTH - 100)}`);
    expect(fits.status).not.toBe(414);
    expect(fits.headers.get('x-latch-known-error')).toBeTruthy();
  });

  it('answers a malformed request with 400 MALFORMED_HTTP_REQUEST', async () => {
    expectCatalogued(await raw('THIS IS NOT HTTP\r\n\r\n'), 400, 'MALFORMED_HTTP_REQUEST');
    expectCatalogued(await raw('GET /health HTTP/1.1\r\nHost: localhost\r\nBad Header Name: x\r\n\r\n'), 400, 'MALFORMED_HTTP_REQUEST');
    // A chunked body whose chunk size is not hexadecimal.
    expectCatalogued(
      await raw(
        'POST /api/v1/auth/password/sign-in HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
      ),
      400,
      'MALFORMED_HTTP_REQUEST',
    );
  });

  it('answers oversized chunk extensions with 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await raw(
      `POST /api/v1/auth/password/sign-in HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2;ext=${'e'.repeat(20_000)}\r\n{}\r\n0\r\n\r\n`,
    );
    expectCatalogued(res, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('answers a body over the JSON limit with 413 PAYLOAD_TOO_LARGE on REST and tRPC', async () => {
    const big = JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(3_000_000) });
    for (const path of ['/api/v1/auth/password/sign-in', '/api/trpc/auth.passwordSignIn']) {
      const res = await raw(
        `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(big)}\r\nConnection: close\r\n\r\n${big}`,
      );
      expectCatalogued(res, 413, 'PAYLOAD_TOO_LARGE');
    }
  });

  it('keeps serving ordinary requests after the refusals', async () => {
    expect((await h.get('/health')).status).toBe(200);
  });
});
