import { type UseQueryResult, useQuery } from '@tanstack/react-query';
import type { AdminApp, TeamApiKey, UserApiKey } from '../../sdk/index.js';
import { KeyStatusBadge } from './key-status.js';
import { Card, ConfirmButton, Empty, QueryTable, formatDate } from './ui.js';

/**
 * A user's or a team's API keys (last four only), with revoke; created by the app, not here. The
 * empty list says whether the project lets the app create keys of this kind (`enabledBy`).
 */
export function ApiKeyListCard({
  admin,
  title,
  query,
  enabledBy,
  onRevoke,
}: {
  admin: AdminApp;
  title: string;
  query: UseQueryResult<Array<UserApiKey | TeamApiKey>>;
  enabledBy: 'allow_user_api_keys' | 'allow_team_api_keys';
  onRevoke: (id: string) => Promise<unknown>;
}) {
  const project = useQuery(admin.projectQuery(), admin.queryClient);
  const enabled = project.data?.config[enabledBy] ?? false;
  return (
    <Card title={title}>
      <QueryTable
        query={query}
        loadingLabel="Loading API keys…"
        empty={
          <Empty title="No API keys">
            {enabled ? 'Keys created through your app appear here.' : 'API keys of this kind are switched off (API keys page).'}
          </Empty>
        }
        label={title}
        columns={['Description', 'Key', 'Created', 'Expires', 'Status', null]}
        row={(key) => (
          <tr key={key.id}>
            <td>{key.description || <span className="muted">—</span>}</td>
            <td>
              <code>…{key.value.last_four}</code>
            </td>
            <td>{formatDate(key.created_at_millis)}</td>
            <td>{key.expires_at_millis === null ? 'never' : formatDate(key.expires_at_millis)}</td>
            <td>
              <KeyStatusBadge revokedAtMillis={key.manually_revoked_at_millis} expiresAtMillis={key.expires_at_millis} />
            </td>
            <td className="actions">
              {key.manually_revoked_at_millis !== null ? null : (
                <ConfirmButton
                  className="button small danger"
                  label="Revoke"
                  title="Revoke this API key?"
                  message={<p>The key ending in {key.value.last_four} stops working at once, for good.</p>}
                  onConfirm={() => onRevoke(key.id)}
                />
              )}
            </td>
          </tr>
        )}
      />
    </Card>
  );
}
