import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { userCreateSchema } from '../../contract/schemas/users.js';
import type { UserCreateInput } from '../../sdk/index.js';
import { Link, navigate } from '../components/router.js';
import {
  DialogFooter,
  Empty,
  Field,
  Modal,
  PageHeader,
  Pager,
  PrimaryButton,
  QueryView,
  Switch,
  Table,
  formatDate,
  useDebounced,
  useFormAction,
  StatusNote,
} from '../components/ui.js';
import type { PageProps } from './page-props.js';

const PAGE_SIZE = 50;

/**
 * The users table. Built for a million rows: keyset cursors from the API (each page is one index
 * range scan, never OFFSET), no total count, a debounced search (the API searches email, name and
 * id with trigram indexes), and the previous page kept on screen while the next one loads.
 */
export function UsersPage({ projectId, admin }: PageProps) {
  const [search, setSearch] = useState('');
  const [includeAnonymous, setIncludeAnonymous] = useState(false);
  const [newestFirst, setNewestFirst] = useState(true);
  // Cursors of the pages before this one, so "Previous" needs no reverse query.
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const [creating, setCreating] = useState(false);
  const query = useDebounced(search.trim(), 300);
  const cursor = cursors[cursors.length - 1];
  const users = useQuery(
    {
      ...admin.usersQuery({
        limit: PAGE_SIZE,
        desc: newestFirst,
        include_anonymous: includeAnonymous,
        ...(query ? { query } : {}),
        ...(cursor ? { cursor } : {}),
      }),
      placeholderData: keepPreviousData,
      // End users sign up while the owner watches: unlike the SDK's default (fresh until a
      // mutation), the table refreshes when the tab regains focus and after 30 s.
      staleTime: 30_000,
      refetchOnWindowFocus: true,
    },
    admin.queryClient,
  );
  const resetPaging = () => setCursors([undefined]);

  return (
    <>
      <PageHeader
        title="Users"
        description="Everyone who signed up to this project."
        actions={<PrimaryButton onClick={() => setCreating(true)}>Create user</PrimaryButton>}
      />
      <div className="toolbar">
        <label className="visually-hidden" htmlFor="user-search">
          Search users
        </label>
        <input
          id="user-search"
          type="search"
          placeholder="Search by email, name or ID"
          value={search}
          onChange={(event) => {
            setSearch(event.target.value);
            resetPaging();
          }}
        />
        <label className="visually-hidden" htmlFor="user-order">
          Order
        </label>
        <select
          id="user-order"
          style={{ width: 'auto' }}
          value={newestFirst ? 'newest' : 'oldest'}
          onChange={(event) => {
            setNewestFirst(event.target.value === 'newest');
            resetPaging();
          }}
        >
          <option value="newest">Newest first</option>
          <option value="oldest">Oldest first</option>
        </select>
        <div style={{ minWidth: 240 }}>
          <Switch
            label="Show anonymous users"
            checked={includeAnonymous}
            onChange={(checked) => {
              setIncludeAnonymous(checked);
              resetPaging();
            }}
          />
        </div>
        <button type="button" className="button small" onClick={() => void users.refetch()} disabled={users.isFetching}>
          Refresh
        </button>
        <StatusNote show={users.isFetching && !users.isPending}>Updating…</StatusNote>
      </div>
      <QueryView query={users} loadingLabel="Loading users…">
        {(page) =>
          page.items.length === 0 ? (
            query ? (
              <Empty title="No users match">Nobody's email, name or ID contains “{query}”.</Empty>
            ) : (
              <Empty title="No users yet">
                <p>Users appear here when they sign up through your app, or when you create one.</p>
                <PrimaryButton onClick={() => setCreating(true)}>Create user</PrimaryButton>
              </Empty>
            )
          ) : (
            <>
              <Table
                label="Users"
                columns={['User', 'Email', 'Signed up', 'Last active', 'Sign-in']}
                items={page.items}
                row={(user) => (
                  <tr key={user.id} className="clickable" onClick={() => navigate(`/projects/${projectId}/users/${user.id}`)}>
                    <td>
                      <Link href={`/projects/${projectId}/users/${user.id}`} onClick={(event) => event.stopPropagation()}>
                        {user.display_name || (user.is_anonymous ? 'Anonymous user' : (user.primary_email ?? user.id.slice(0, 8)))}
                      </Link>
                    </td>
                    <td>
                      {user.primary_email ?? <span className="muted">—</span>}{' '}
                      {user.primary_email && user.primary_email_verified ? <span className="badge ok">verified</span> : null}
                    </td>
                    <td>{formatDate(user.signed_up_at_millis)}</td>
                    <td>{formatDate(user.last_active_at_millis)}</td>
                    <td className="small">
                      {[
                        user.has_password && 'password',
                        user.auth_with_email && 'email code',
                        user.passkey_auth_enabled && 'passkey',
                        ...user.oauth_providers.map((p) => p.id),
                        user.is_anonymous && 'anonymous',
                      ]
                        .filter(Boolean)
                        .join(', ') || '—'}
                    </td>
                  </tr>
                )}
              />
              <Pager label="Pages of users" cursors={cursors} onCursors={setCursors} next={page.pagination.next_cursor} showPage />
            </>
          )
        }
      </QueryView>
      <CreateUserDialog
        open={creating}
        onClose={() => setCreating(false)}
        onCreate={async (input) => {
          const user = await admin.createUser(input);
          setCreating(false);
          navigate(`/projects/${projectId}/users/${user.id}`);
        }}
      />
    </>
  );
}

function CreateUserDialog({ open, onClose, onCreate }: { open: boolean; onClose: () => void; onCreate: (input: UserCreateInput) => Promise<void> }) {
  const [email, setEmail] = useState('');
  const [displayName, setDisplayName] = useState('');
  const [password, setPassword] = useState('');
  const [verified, setVerified] = useState(false);
  // An empty form would make a user nobody can sign in as or find: without an email, the owner
  // says so explicitly (a user created for later linking, or for server-side use).
  const [withoutEmail, setWithoutEmail] = useState(false);
  const [emailMissing, setEmailMissing] = useState(false);
  const create = useFormAction(userCreateSchema, async (input: UserCreateInput) => {
    await onCreate(input);
    setEmail('');
    setDisplayName('');
    setPassword('');
    setWithoutEmail(false);
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const missing = !email.trim() && !withoutEmail;
    setEmailMissing(missing);
    if (missing) {
      create.clear();
      return;
    }
    void create.submit({
      ...(email.trim() ? { primary_email: email.trim(), primary_email_auth_enabled: true, primary_email_verified: verified } : {}),
      ...(displayName.trim() ? { display_name: displayName.trim() } : {}),
      ...(password ? { password } : {}),
    });
  };

  return (
    <Modal title="Create user" open={open} onClose={onClose}>
      <form className="form" onSubmit={submit} noValidate>
        <Field
          label="Email"
          error={
            create.errors.primary_email ??
            (emailMissing && !email.trim() && !withoutEmail ? 'Enter the user’s email, or confirm below that they have none.' : undefined)
          }
        >
          {(props) => <input {...props} type="email" value={email} onChange={(event) => setEmail(event.target.value)} autoFocus />}
        </Field>
        {!email.trim() ? (
          <label className="choice small">
            <input type="checkbox" checked={withoutEmail} onChange={(event) => setWithoutEmail(event.target.checked)} />
            <span>Create this user without an email (they cannot sign in with a password, code or link until one is added)</span>
          </label>
        ) : null}
        <Field label="Display name" error={create.errors.display_name}>
          {(props) => <input {...props} type="text" value={displayName} onChange={(event) => setDisplayName(event.target.value)} />}
        </Field>
        <Field label="Password (optional)" error={create.errors.password} hint="Leave empty for a user who signs in with an email code or magic link.">
          {(props) => <input {...props} type="password" autoComplete="new-password" value={password} onChange={(event) => setPassword(event.target.value)} />}
        </Field>
        <Switch label="Email is verified" checked={verified} onChange={setVerified} />
        <DialogFooter
          error={create.error}
          errorTitle="Could not create the user"
          submitLabel="Create user"
          onCancel={onClose}
          pending={create.pending}
          pendingLabel="Creating…"
        />
      </form>
    </Modal>
  );
}
