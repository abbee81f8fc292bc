/**
 * Trusted-domain and localhost rules of spec section 5. Pure functions; the email issue adds the
 * redirect-URL matcher that uses them.
 */

/** localhost, *.localhost, or 127.x.x.x */
export function isLocalhost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(host) || host === '::1';
}

export function isIpAddress(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(':');
}

/** localhost, or a dotted domain whose top level is at least two letters. */
export function isValidHostname(hostname: string): boolean {
  if (hostname === 'localhost') return true;
  const labels = hostname.split('.');
  if (labels.length < 2) return false;
  if (!labels.every((l) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i.test(l))) return false;
  return /^[a-z]{2,}$/i.test(labels[labels.length - 1]!);
}

/**
 * A trusted domain: an http(s) URL, wildcards (`*`) allowed only in the hostname, and a wildcard
 * hostname may not start or end with a dot or contain two dots in a row.
 */
export function validateTrustedDomain(domain: string): string | null {
  if (/\s/.test(domain)) return 'must not contain spaces';
  const match = /^(https?):\/\/([^/?#]*)(.*)$/i.exec(domain);
  if (!match) return 'must be an http or https URL';
  const authority = match[2]!;
  const rest = match[3]!;
  if (rest.includes('*')) return 'may only use wildcards in the hostname';
  if (authority.includes('@')) return 'must not contain a user or password';
  const hostname = authority.replace(/:\d+$/, '');
  if (hostname.includes('*')) {
    if (hostname.startsWith('.') || hostname.endsWith('.') || hostname.includes('..')) return 'has an invalid wildcard hostname';
    if (!/^[a-z0-9*.-]+$/i.test(hostname)) return 'has an invalid wildcard hostname';
    return null;
  }
  try {
    new URL(domain);
  } catch {
    return 'must be a valid URL';
  }
  return null;
}
