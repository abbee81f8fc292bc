import type { CreatedInternalApiKey } from '../../sdk/index.js';
import { CopyButton } from './ui.js';

/** A freshly created key set: the only time the full keys exist outside the server's hashes. */
export function NewKeys({ projectId, keys }: { projectId: string; keys: CreatedInternalApiKey }) {
  const origin = window.location.origin;
  const rows: Array<[string, string, string | null]> = [
    ['Project ID', 'LATCH_PROJECT_ID', projectId],
    ['Publishable client key', 'LATCH_PUBLISHABLE_CLIENT_KEY', keys.publishable_client_key],
    ['Secret server key', 'LATCH_SECRET_SERVER_KEY', keys.secret_server_key],
    ['Super secret admin key', 'LATCH_SUPER_SECRET_ADMIN_KEY', keys.super_secret_admin_key],
  ];
  const present = rows.filter((row): row is [string, string, string] => row[2] !== null);
  const env = [`LATCH_API_URL=${origin}`, ...present.map(([, name, value]) => `${name}=${value}`)].join('\n');
  // Until @latch/sdk is published, `npm run pack:packages` in the Latch repository makes the tarball.
  const snippet = `// npm install @latch/sdk @latch/react
// (until they are published: npm install ./latch-sdk-0.1.0.tgz ./latch-react-0.1.0.tgz, from npm run pack:packages)
import { ClientApp } from '@latch/sdk';

export const latch = new ClientApp({
  projectId: '${projectId}',
  publishableClientKey: '${keys.publishable_client_key ?? 'pck_…'}', // safe in a browser
  baseUrl: '${origin}',
});

const result = await latch.signUpWithPassword({ email, password });
if (result.status === 'error') console.error(result.error.message);`;
  return (
    <div className="stack" data-testid="new-keys">
      <div className="alert alert-warn" role="note">
        <strong>Copy these keys now.</strong>
        <span>They are shown only once; afterwards the console shows their last four characters. Keep the secret keys on your server.</span>
      </div>
      <div>
        {present.map(([label, name, value]) => (
          <div className="key-row" key={name}>
            <div>
              <div>
                <strong>{label}</strong>
              </div>
              <code className="muted small">{name}</code>
            </div>
            <div className="key-value" aria-label={label}>
              {value}
            </div>
            <CopyButton value={value} label={`Copy ${label.toLowerCase()}`} />
          </div>
        ))}
      </div>
      <div className="stack">
        <div className="row" style={{ justifyContent: 'space-between' }}>
          <strong>.env</strong>
          <CopyButton value={env} label="Copy .env" />
        </div>
        <pre className="code" aria-label=".env file">
          {env}
        </pre>
      </div>
      <div className="stack">
        <div className="row" style={{ justifyContent: 'space-between' }}>
          <strong>Use the SDK</strong>
          <CopyButton value={snippet} label="Copy snippet" />
        </div>
        {/* Focusable: a long snippet scrolls, and the keyboard must reach it (axe: scrollable-region-focusable). */}
        <pre className="code" aria-label="SDK snippet" tabIndex={0}>
          {snippet}
        </pre>
      </div>
    </div>
  );
}
