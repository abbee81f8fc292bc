import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { isNonPublicAddress } from '../emails/public-address.js';

/**
 * One webhook POST, with the SSRF rules of owner-chosen SMTP servers (emails/public-address.ts):
 * the host is resolved once, every address must be public unless LATCH_WEBHOOKS_ALLOW_PRIVATE is
 * set, and the connection goes to the checked address (pinned; a DNS answer that changes between
 * the check and the connection cannot move it). Redirects are not followed (a 3xx is a failure),
 * the whole exchange has a timeout, and only the start of the response body is kept.
 */

export const WEBHOOK_TIMEOUT_MS = 15_000;
let timeoutMs = WEBHOOK_TIMEOUT_MS;

/** Tests shorten the 15 s timeout (as sign-in.ts's setMaxSessionsPerUser); nothing else calls it. */
export function setWebhookTimeoutMs(ms: number): void {
  timeoutMs = ms;
}
export const RESPONSE_SNIPPET_BYTES = 1024;

export class WebhookTargetRefused extends Error {
  constructor(readonly reason: 'bad-url' | 'not-resolved' | 'address-not-allowed') {
    super(reason);
  }
}

export function parseWebhookUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new WebhookTargetRefused('bad-url');
  }
  if ((parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || parsed.username || parsed.password) throw new WebhookTargetRefused('bad-url');
  return parsed;
}

/** The checked address to connect to for `url`. */
export async function resolveWebhookTarget(url: string, allowPrivate: boolean): Promise<{ url: URL; address: string; family: 4 | 6 }> {
  const parsed = parseWebhookUrl(url);
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  let addresses: { address: string; family: number }[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await dnsLookup(host, { all: true, verbatim: true });
    } catch {
      throw new WebhookTargetRefused('not-resolved');
    }
  }
  if (addresses.length === 0) throw new WebhookTargetRefused('not-resolved');
  if (!allowPrivate && addresses.some((a) => isNonPublicAddress(a.address))) throw new WebhookTargetRefused('address-not-allowed');
  const first = addresses[0]!;
  return { url: parsed, address: first.address, family: first.family === 6 ? 6 : 4 };
}

export interface WebhookResponse {
  status: number;
  snippet: string;
}

export function postWebhook(target: { url: URL; address: string; family: 4 | 6 }, headers: Record<string, string>, body: string): Promise<WebhookResponse> {
  const client = target.url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      target.url,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'Latch-Webhooks/1' },
        // Pinned: the connection goes to the address that was checked, whatever DNS says now.
        lookup: (_hostname, options, callback) => {
          if ((options as { all?: boolean }).all)
            (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: target.address, family: target.family }]);
          else (callback as (e: null, a: string, f: number) => void)(null, target.address, target.family);
        },
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          if (size < RESPONSE_SNIPPET_BYTES) chunks.push(chunk);
          size += chunk.length;
        });
        response.on('end', () => {
          clearTimeout(timer);
          resolve({ status: response.statusCode ?? 0, snippet: Buffer.concat(chunks).subarray(0, RESPONSE_SNIPPET_BYTES).toString('utf8') });
        });
        response.on('error', (error) => {
          clearTimeout(timer);
          reject(error);
        });
      },
    );
    const timer = setTimeout(() => request.destroy(new Error(`no response within ${timeoutMs / 1000} s`)), timeoutMs);
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.end(body);
  });
}
