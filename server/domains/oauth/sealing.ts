/** Sealing of OAuth secrets at rest: provider tokens, in-flight flows, outer codes' sessions ('oauth-tokens' key). */
import { decrypt, deriveKey, encrypt } from '../../crypto/encryption.js';
import type { Deps } from '../../deps.js';

const keys = new WeakMap<Deps, Buffer>();

/** The 'oauth-tokens' sub-key of this deployment's root secret (derived once per server). */
export function oauthKey(deps: Deps): Buffer {
  let key = keys.get(deps);
  if (!key) {
    key = deriveKey(deps.env.secret, 'oauth-tokens');
    keys.set(deps, key);
  }
  return key;
}

/** Seals a JSON value, bound to its row (`binding`: tenancy, row id and kind). */
export function seal(deps: Deps, value: unknown, binding: string): string {
  return encrypt(oauthKey(deps), JSON.stringify(value), binding);
}

export function unseal<T>(deps: Deps, sealed: string, binding: string): T {
  return JSON.parse(decrypt(oauthKey(deps), sealed, binding)) as T;
}
