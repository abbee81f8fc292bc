/**
 * A TOTP secret as an authenticator app reads it (base32, RFC 4648, no padding) back to the base64
 * that `totpCode` (server/crypto/totp.ts) takes: what a test types into an "app" after enrolment.
 */
export function base32ToBase64(base32: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of base32) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  return Buffer.from(bits.match(/.{8}/g)!.map((b) => parseInt(b, 2))).toString('base64');
}

/** The secret of an otpauth:// URI (what a QR code carries), as base64. */
export function secretOfOtpauthUri(uri: string): string {
  return base32ToBase64(new URL(uri).searchParams.get('secret')!);
}
