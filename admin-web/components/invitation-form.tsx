import { type FormEvent, useState } from 'react';
import { InlineForm, InlineInput } from './ui.js';

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
