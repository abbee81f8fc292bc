/**
 * The email rule of spec section 5, free of zod and of any server code: the server's schemas and
 * the UI kit's forms (react-ui/validation.ts) both use this one function.
 */

export const EMAIL_MAX_LENGTH = 256;

/**
 * Email shape of spec section 5: one @, a local part without leading, trailing or consecutive
 * dots, a dotted domain whose top level has at least two letters.
 */
export function isValidEmail(value: string): boolean {
  if (value.length > EMAIL_MAX_LENGTH) return false;
  const at = value.lastIndexOf('@');
  if (at <= 0 || at !== value.indexOf('@')) return false;
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (!/^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+$/.test(local)) return false;
  if (local.startsWith('.') || local.endsWith('.') || local.includes('..')) return false;
  const labels = domain.split('.');
  if (labels.length < 2) return false;
  if (!labels.every((label) => /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(label))) return false;
  return /^[A-Za-z]{2,}$/.test(labels[labels.length - 1]!);
}
