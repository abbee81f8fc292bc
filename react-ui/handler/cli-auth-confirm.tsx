/** The CLI login confirmation page (the CLI lands with its own issue). */
import { NotEnabled } from './shared.js';

/** CLI login confirmation (query `login_code`) lands with the CLI issue. */
export function CliAuthConfirmPage() {
  return <NotEnabled title="Confirm CLI sign-in" feature="CLI sign-in" />;
}
