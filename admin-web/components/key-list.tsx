import type { UseQueryResult } from '@tanstack/react-query';
import type { TeamApiKey, UserApiKey } from '../../sdk/index.js';
import { Card, ConfirmButton, Empty, QueryView, formatDate } from './ui.js';

/** A user's or a team's API keys (last four only), with revoke; created by the app, not here. */
export function ApiKeyListCard({ title, query, enabled, onRevoke }: { title: string; query: UseQueryResult<Array<UserApiKey | TeamApiKey>>; enabled: boolean; onRevoke: (id: string) => Promise<unknown> }) {
  return (
    <Card title={title}>
      <QueryView query={query} loadingLabel="Loading API keys…">
        {(items) =>
          items.length === 0 ? (
            <Empty title="No API keys">{enabled ? 'Keys created through your app appear here.' : 'API keys of this kind are switched off (API keys page).'}</Empty>
          ) : (
            <div className="table-wrap">
              <table aria-label={title}>
                <thead><tr><th scope="col">Description</th><th scope="col">Key</th><th scope="col">Created</th><th scope="col">Expires</th><th scope="col">Status</th><th scope="col"><span className="visually-hidden">Actions</span></th></tr></thead>
                <tbody>
                  {items.map((key) => {
                    const revoked = key.manually_revoked_at_millis !== null;
                    const expired = key.expires_at_millis !== null && key.expires_at_millis < Date.now();
                    return (
                      <tr key={key.id}>
                        <td>{key.description || <span className="muted">—</span>}</td>
                        <td><code>…{key.value.last_four}</code></td>
                        <td>{formatDate(key.created_at_millis)}</td>
                        <td>{key.expires_at_millis === null ? 'never' : formatDate(key.expires_at_millis)}</td>
                        <td>{revoked ? <span className="badge danger">revoked</span> : expired ? <span className="badge warn">expired</span> : <span className="badge ok">active</span>}</td>
                        <td className="actions">
                          {revoked ? null : <ConfirmButton className="button small danger" label="Revoke" title="Revoke this API key?" message={<p>The key ending in {key.value.last_four} stops working at once, for good.</p>} onConfirm={() => onRevoke(key.id)} />}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )
        }
      </QueryView>
    </Card>
  );
}
