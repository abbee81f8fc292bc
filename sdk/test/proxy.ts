/**
 * A small HTTP proxy for SDK tests, on 127.0.0.1 in front of a real Latch server: it counts the
 * tRPC calls it sees and can inject faults (a reset connection, a forged response) before
 * forwarding, so the SDK's transport rules are tested against the real server, not a mock.
 */
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Harness, useFixture } from '../../server/test/harness.js';

export interface SeenRequest {
  method: string;
  /** The tRPC procedure, e.g. `users.getMe`. */
  procedure: string;
  headers: IncomingMessage['headers'];
}

/** A forged response, or `'reset'` to destroy the connection without answering. */
export type Fault = 'reset' | { status: number; headers?: Record<string, string>; body: unknown };

export interface TestProxy {
  url: string;
  requests: SeenRequest[];
  /** How many calls of a procedure the proxy has seen. */
  count(procedure: string): number;
  /** Decides per request whether to inject a fault (return null to forward). */
  fault: ((request: SeenRequest, index: number) => Fault | null) | null;
  /**
   * Behave like a platform that hides the body of a non-2xx response from the code that made the
   * request: an answer with status 300 or more is forwarded with an empty body.
   */
  hideErrorBodies: boolean;
  close(): Promise<void>;
}

function procedureOf(url: string): string {
  const path = url.split('?')[0] ?? '';
  return decodeURIComponent(path.slice(path.lastIndexOf('/') + 1));
}

const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'content-encoding']);

export async function startProxy(target: string): Promise<TestProxy> {
  const proxy: TestProxy = {
    url: '',
    requests: [],
    count: (procedure) => proxy.requests.filter((r) => r.procedure === procedure).length,
    fault: null,
    hideErrorBodies: false,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const seen: SeenRequest = { method: req.method ?? 'GET', procedure: procedureOf(req.url ?? ''), headers: req.headers };
    proxy.requests.push(seen);
    const fault = proxy.fault?.(seen, proxy.requests.length - 1) ?? null;
    if (fault === 'reset') {
      req.socket.destroy();
      return;
    }
    if (fault) {
      res.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
      res.end(typeof fault.body === 'string' ? fault.body : JSON.stringify(fault.body));
      return;
    }
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(req.headers)) if (typeof value === 'string' && !HOP_BY_HOP.has(key)) headers[key] = value;
    const upstream = await fetch(`${target}${req.url ?? '/'}`, {
      method: req.method,
      headers,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    const out: Record<string, string> = {};
    upstream.headers.forEach((value, key) => {
      if (!HOP_BY_HOP.has(key)) out[key] = value;
    });
    const body = Buffer.from(await upstream.arrayBuffer());
    res.writeHead(upstream.status, out);
    res.end(proxy.hideErrorBodies && upstream.status >= 300 ? undefined : body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}

/** A tRPC error body as Latch sends it, for forged responses. */
export function latchErrorBody(code: string, message: string, status: number): unknown {
  return { error: { message, code: -32603, data: { httpStatus: status, latch: { code, error: message } } } };
}

/** A proxy in front of the file's harness for the whole test file (see useFixture). */
export function useProxy(h: Harness): TestProxy {
  return useFixture(
    () => startProxy(h.url),
    (proxy) => proxy.close(),
  );
}
