import { useQuery } from '@tanstack/react-query';
import type { AdminApp } from '../../sdk/index.js';
import { Card, ConfirmButton, Empty, QueryTable, formatDate } from './ui.js';

/**
 * A user's passkeys on their console page: name, the host it works on, whether it is synced,
 * added and last used; the owner may remove one (a lost device). Removing the last one turns
 * passkey sign-in off for the user.
 */
export function PasskeysCard({ admin, userId }: { admin: AdminApp; userId: string }) {
  const passkeys = useQuery(admin.passkeysQuery({ userId }), admin.queryClient);
  return (
    <Card title="Passkeys">
      <QueryTable
        query={passkeys}
        loadingLabel="Loading passkeys…"
        empty={<Empty title="No passkeys">The user has not added a passkey.</Empty>}
        label="Passkeys"
        columns={['Name', 'Host', 'Added', 'Last used', null]}
        row={(passkey) => (
          <tr key={passkey.id}>
            <td>
              {passkey.name} {passkey.backed_up ? <span className="badge">synced</span> : null}
            </td>
            <td className="mono small">{passkey.rp_id}</td>
            <td>{formatDate(passkey.created_at_millis)}</td>
            <td>{formatDate(passkey.last_used_at_millis)}</td>
            <td className="actions end">
              <ConfirmButton
                className="button small danger"
                label="Remove"
                title="Remove this passkey?"
                message={<p>The user can no longer sign in with “{passkey.name}”. They can add it again from their account settings.</p>}
                onConfirm={() => admin.deletePasskey(passkey.id, { userId })}
              />
            </td>
          </tr>
        )}
      />
    </Card>
  );
}
