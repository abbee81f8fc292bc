import { useQuery } from '@tanstack/react-query';
import type { AdminApp } from '../../sdk/index.js';
import { Empty, TableCard, formatDate } from './ui.js';

/**
 * A user's passkeys on their console page: name, the host it works on, whether it is synced,
 * added and last used; the owner may remove one (a lost device). Removing the last one turns
 * passkey sign-in off for the user.
 */
export function PasskeysCard({ admin, userId }: { admin: AdminApp; userId: string }) {
  const passkeys = useQuery(admin.passkeysQuery({ userId }), admin.queryClient);
  return (
    <TableCard
      title="Passkeys"
      query={passkeys}
      loadingLabel="Loading passkeys…"
      empty={<Empty title="No passkeys">The user has not added a passkey.</Empty>}
      columns={[
        {
          title: 'Name',
          cell: (passkey) => (
            <>
              {passkey.name} {passkey.backed_up ? <span className="badge">synced</span> : null}
            </>
          ),
        },
        { title: 'Host', cell: (passkey) => passkey.rp_id, className: 'mono small' },
        { title: 'Added', cell: (passkey) => formatDate(passkey.created_at_millis) },
        { title: 'Last used', cell: (passkey) => formatDate(passkey.last_used_at_millis) },
      ]}
      remove={{
        label: 'Remove',
        title: 'Remove this passkey?',
        message: (passkey) => <p>The user can no longer sign in with “{passkey.name}”. They can add it again from their account settings.</p>,
        run: (passkey) => admin.deletePasskey(passkey.id, { userId }),
      }}
    />
  );
}
