import { type FormEvent, type ReactNode, useState } from 'react';
import { type Column, Empty, InlineForm, InlineInput, type RowRemoval, formatDate } from './ui.js';

/**
 * A page of the project's own handler (`sign-in`, `team-invitation`): under its first trusted
 * domain that is not a wildcard, with that domain's handler path. Emailed links go to the app the
 * user belongs to, never to this console. With no such domain, a local dev server's address: the
 * owner edits it (the server accepts only trusted domains, or localhost while it is allowed).
 */
export function projectHandlerUrl(domains: ReadonlyArray<{ domain: string; handler_path: string }>, page: string): string {
  const first = domains.find((entry) => !entry.domain.includes('*'));
  if (!first) return `http://localhost:3000/handler/${page}`;
  return `${first.domain.replace(/\/+$/, '')}${first.handler_path.replace(/\/+$/, '')}/${page}`;
}

/** A pending invitation as a list shows it (a team's, or the project's owner invitations). */
interface PendingInvitation {
  id: string;
  recipient_email: string;
  expires_at_millis: number;
}

/**
 * The DataTable props of a list of pending invitations: their address and expiry, and a confirmed
 * Withdraw that runs `withdraw` (after which the emailed link stops working).
 */
export function pendingInvitationsTable<T extends PendingInvitation>(
  withdraw: (invitation: T) => Promise<unknown>,
): { loadingLabel: string; empty: ReactNode; columns: Column<T>[]; remove: RowRemoval<T> } {
  return {
    loadingLabel: 'Loading invitations…',
    empty: <Empty title="No pending invitations" />,
    columns: [
      { title: 'Email', cell: (invitation) => invitation.recipient_email },
      { title: 'Expires', cell: (invitation) => formatDate(invitation.expires_at_millis) },
    ],
    remove: {
      label: 'Withdraw',
      title: 'Withdraw this invitation?',
      message: () => <p>The emailed link stops working.</p>,
      run: withdraw,
    },
  };
}

/** The note once an invitation went out (`to`: its address), none before. */
export function InvitationSent({ to }: { to: string | null }) {
  return to ? (
    <div className="alert alert-ok" role="status">
      Invitation sent to {to}.
    </div>
  ) : null;
}

/** What an invitation form sends: the address, and the page of the user's app that the emailed link opens. */
export interface InvitationInput {
  email: string;
  callback_url: string;
}

/**
 * An emailed invitation (to sign in, to join a team): the address and the app page its link opens,
 * on one row. `send` validates and sends (useFormAction's submit); once it succeeds the address is cleared.
 */
export function InvitationForm({
  emailLabel,
  callbackUrlLabel,
  callbackUrlHint,
  initialCallbackUrl,
  errors,
  spaced,
  send,
}: {
  emailLabel: string;
  callbackUrlLabel: string;
  callbackUrlHint: string;
  initialCallbackUrl: string;
  errors: Record<string, string>;
  spaced?: boolean;
  send: (input: InvitationInput) => Promise<boolean>;
}) {
  const [email, setEmail] = useState('');
  const [callbackUrl, setCallbackUrl] = useState(initialCallbackUrl);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (await send({ email: email.trim(), callback_url: callbackUrl.trim() })) setEmail('');
  };
  return (
    <InlineForm onSubmit={(event) => void submit(event)} submitLabel="Send invitation" align="start" spaced={spaced}>
      <InlineInput label={emailLabel} error={errors.email} type="email" value={email} onValue={setEmail} style={{ flex: 1, minWidth: 220 }} />
      <InlineInput
        label={callbackUrlLabel}
        error={errors.callback_url}
        hint={callbackUrlHint}
        type="url"
        value={callbackUrl}
        onValue={setCallbackUrl}
        style={{ flex: 1, minWidth: 260 }}
      />
    </InlineForm>
  );
}
