/**
 * TOTP (RFC 6238: SHA-1, 6 digits, 30-second steps, the authenticator apps' defaults) on otplib 13.
 * Secrets travel as base64 of the raw bytes (the spec's totp_secret_base64); authenticator apps get
 * them as base32 inside the otpauth:// URI.
 */
import { randomBytes } from 'node:crypto';
import { generate, generateURI, ScureBase32Plugin, verify } from 'otplib';

/** Seconds per time step. */
export const TOTP_PERIOD_SECONDS = 30;
/** Bytes of a new secret: 160 bits, RFC 4226's recommendation and otplib's default. */
export const TOTP_SECRET_BYTES = 20;

/**
 * The clock TOTP checks read, in milliseconds. Tests replace `now` to check codes at a fixed time
 * (each vitest file runs in its own module graph, so a test's clock stays its own).
 */
export const totpClock = { now: (): number => Date.now() };

const base32 = new ScureBase32Plugin();

function secretBytes(secretBase64: string): Uint8Array {
  return new Uint8Array(Buffer.from(secretBase64, 'base64'));
}

/** A new random secret, base64. */
export function newTotpSecret(): string {
  return randomBytes(TOTP_SECRET_BYTES).toString('base64');
}

/** The secret as authenticator apps type it (base32, no padding). */
export function totpSecretBase32(secretBase64: string): string {
  return base32.encode(secretBytes(secretBase64), { padding: false });
}

/** otpauth://totp/<issuer>:<account>?secret=…&issuer=… for a QR code. */
export function totpUri(secretBase64: string, issuer: string, account: string): string {
  return generateURI({ issuer, label: account, secret: totpSecretBase32(secretBase64) });
}

/** The code for a moment (tests and the SDK's examples; the server only verifies). */
export function totpCode(secretBase64: string, atMillis: number = totpClock.now()): Promise<string> {
  return generate({ secret: secretBase64Bytes(secretBase64), epoch: Math.floor(atMillis / 1000) });
}

function secretBase64Bytes(secretBase64: string): Uint8Array {
  return secretBytes(secretBase64);
}

/**
 * The time step a code belongs to, or null when it is not valid now. The current step and the one
 * before it are accepted (a code typed just as it rolled over), never a future one (RFC 6238 §5.2).
 * Steps not after `afterStep` are refused here already; the caller still claims the returned step
 * atomically, because two requests can pass this check at once.
 */
export async function verifyTotp(secretBase64: string, code: string, afterStep: number | null): Promise<number | null> {
  if (!/^\d{6}$/.test(code)) return null;
  const result = await verify({
    secret: secretBase64Bytes(secretBase64),
    token: code,
    epoch: Math.floor(totpClock.now() / 1000),
    epochTolerance: [TOTP_PERIOD_SECONDS, 0],
    ...(afterStep !== null ? { afterTimeStep: afterStep } : {}),
  });
  // The functional verify's result type is the HOTP|TOTP union; a TOTP check always has timeStep.
  return result.valid ? (result as { timeStep: number }).timeStep : null;
}
