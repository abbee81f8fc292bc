/** The OAuth callback page (OAuth lands with its own issue). */
import { NotEnabled } from './shared.js';

/** OAuth lands with its own issue; until then, the callback says it is not enabled. */
export function OAuthCallbackPage() {
  return <NotEnabled title="Signing in" feature="OAuth sign-in" />;
}
