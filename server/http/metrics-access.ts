/**
 * Who may read `/metrics` (issue 13 item 12). Prometheus text names no secret, but it tells anyone
 * the server's traffic by status and its memory: not for the public internet.
 * - With LATCH_METRICS_TOKEN set: only requests with `Authorization: Bearer <token>` (compared in
 *   constant time), from anywhere, so a scraper on another machine works.
 * - Without it: only loopback peers, and only requests that did not pass through a proxy (no
 *   X-Forwarded-For / Forwarded / X-Real-IP header): a reverse proxy on the same host would
 *   otherwise make every visitor look local.
 */
import type { IncomingMessage } from 'node:http';
import { constantTimeEqual } from '../crypto/tokens.js';
import type { KnownError } from '../../contract/errors/known-error.js';
import { KnownErrors } from '../../contract/errors/known-errors.js';

function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const plain = address.startsWith('::ffff:') ? address.slice(7) : address;
  return plain === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(plain);
}

/** Null when the request may read /metrics, else the catalogued refusal. */
export function metricsAccessError(req: IncomingMessage, metricsToken: string | null): KnownError | null {
  if (metricsToken !== null) {
    const given = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
    return given !== undefined && constantTimeEqual(given, metricsToken) ? null : new KnownErrors.MetricsTokenRequired();
  }
  const proxied = req.headers['x-forwarded-for'] !== undefined || req.headers.forwarded !== undefined || req.headers['x-real-ip'] !== undefined;
  return isLoopback(req.socket.remoteAddress) && !proxied ? null : new KnownErrors.MetricsLoopbackOnly();
}
