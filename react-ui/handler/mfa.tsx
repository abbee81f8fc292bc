/** The multi-factor page (MFA lands with its own issue). */
import { NotEnabled } from './shared.js';

/**
 * Multi-factor sign-in lands with its own issue. A password sign-in that the server answers with
 * MULTI_FACTOR_AUTHENTICATION_REQUIRED already stores the attempt code (session storage, key
 * ending in `mfa_attempt_code`) and comes here; until the TOTP form lands, this says so.
 */
export function MfaPage() {
  return <NotEnabled title="Multi-factor authentication" feature="Multi-factor authentication" />;
}
