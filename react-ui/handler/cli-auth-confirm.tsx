/**
 * The CLI login confirmation page (/handler/cli-auth-confirm?login_code=…; spec section 2). A
 * signed-in user sees which app asks, when and from where, and approves or denies; a signed-out
 * one is sent to sign-in and comes back here (after_auth_return_to). Approving gives the CLI a new
 * session of its own: this browser's tokens never leave it (README "CLI login").
 */
import { useState } from 'react';
import { Alert, Button, NoticePage, Page, errorMessage } from '../components/ui.js';
import { useApp, useLatchContext, useUser } from '../hooks.js';
import { MissingCode, useCode, useOnce } from './shared.js';

const TITLE = 'Confirm CLI sign-in';

/** Approve or deny a command line program's sign-in request. */
export function CliAuthConfirmPage() {
  const loginCode = useCode('login_code');
  if (!loginCode) return <MissingCode title={TITLE} parameter="login_code" />;
  return <CliAuthConfirm loginCode={loginCode} />;
}

function CliAuthConfirm({ loginCode }: { loginCode: string }) {
  const app = useApp();
  // Signed out: to sign-in, and back here afterwards.
  const user = useUser({ or: 'redirect' });
  const { urls } = useLatchContext();
  const details = useOnce(`cli-login:${user.id}:${loginCode}`, () => app.getCliLoginRequest(loginCode));
  const [state, setState] = useState<'idle' | 'approving' | 'denying' | 'approved' | 'denied' | { error: string }>('idle');

  if (details.status === 'error') {
    return (
      <NoticePage title={TITLE} kind="error" href={urls.home} linkLabel="Go home">
        {details.error.message}
      </NoticePage>
    );
  }
  const request = details.data;
  const decide = async (approve: boolean) => {
    setState(approve ? 'approving' : 'denying');
    try {
      const result = approve ? await app.approveCliLogin(loginCode) : await app.denyCliLogin(loginCode);
      setState(result.status === 'error' ? { error: result.error.message } : approve ? 'approved' : 'denied');
    } catch (error) {
      setState({ error: errorMessage(error) });
    }
  };
  const who = user.primary_email ?? user.display_name ?? 'your account';
  return (
    <Page title={TITLE} subtitle={`A command line app asks to sign in to ${request.projectDisplayName} as ${who}.`}>
      {state === 'approved' ? (
        <Alert kind="success">CLI sign-in approved. You can close this window and return to your terminal.</Alert>
      ) : state === 'denied' ? (
        <Alert kind="info">CLI sign-in denied. The command line app was not signed in.</Alert>
      ) : (
        <>
          <p className="latch-subtitle" data-testid="cli-request">
            Requested {request.requestedAt.toLocaleString()}
            {request.requesterIp ? ` from ${request.requesterIp}` : ''}. Approve only if you started this sign-in in your own terminal just now: the app gets
            its own session of your account.
          </p>
          {typeof state === 'object' ? <Alert kind="error">{state.error}</Alert> : null}
          <div className="latch-row">
            <Button onClick={() => decide(true)} loading={state === 'approving'} disabled={state === 'denying'}>
              Approve
            </Button>
            <Button variant="secondary" onClick={() => decide(false)} loading={state === 'denying'} disabled={state === 'approving'}>
              Deny
            </Button>
          </div>
        </>
      )}
    </Page>
  );
}
