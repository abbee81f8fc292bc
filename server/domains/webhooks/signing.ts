import { createHmac, randomBytes } from 'node:crypto';
import { decrypt, deriveKey, encrypt } from '../../crypto/encryption.js';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the secret is `whsec_<base64 key>`,
 * and a delivery carries `webhook-signature: v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`,
 * several space-separated during a secret rotation. Secrets are stored sealed, bound to their endpoint.
 */

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

function sealingKey(rootSecret: string): Buffer {
  return deriveKey(rootSecret, 'webhook-secrets');
}

const aad = (tenancyId: string, endpointId: string) => `${tenancyId}:${endpointId}`;

export function sealWebhookSecret(rootSecret: string, tenancyId: string, endpointId: string, secret: string): string {
  return encrypt(sealingKey(rootSecret), secret, aad(tenancyId, endpointId));
}

export function openWebhookSecret(rootSecret: string, tenancyId: string, endpointId: string, sealed: string): string {
  return decrypt(sealingKey(rootSecret), sealed, aad(tenancyId, endpointId));
}

/** One `v1,<signature>` for one secret. */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}
