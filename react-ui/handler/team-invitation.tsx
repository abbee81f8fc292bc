/** The team-invitation page: the link's `code` shows the team, and goes to the accept call. */
import { useState } from 'react';
import { Alert, Button, Link, Page, errorMessage } from '../components/ui.js';
import { useApp, useLatchContext, useUser } from '../hooks.js';
import { usePageLocation } from '../location.js';
import { currentRelativeUrl, withReturnTo } from '../urls.js';
import { CodePage, useDelayedRedirect, useOnce } from './shared.js';

/** Shows the invited team; a signed-in user accepts (signed-out users sign in first and come back). */
export function TeamInvitationPage() {
  return <CodePage title="Team invitation">{(code) => <TeamInvitation code={code} />}</CodePage>;
}

function TeamInvitation({ code }: { code: string }) {
  const app = useApp();
  const user = useUser();
  const { urls } = useLatchContext();
  const location = usePageLocation();
  const details = useOnce(`invitation:${code}`, () => app.getTeamInvitationDetails(code));
  const [state, setState] = useState<'idle' | 'pending' | 'accepted' | 'ignored' | { error: string }>('idle');
  useDelayedRedirect(state === 'accepted' ? urls.home : null);

  if (details.status === 'error') {
    return (
      <Page title="Team invitation">
        <Alert kind="error">{details.error.message}</Alert>
      </Page>
    );
  }
  const team = details.data.team_display_name;
  if (!user) {
    const here = currentRelativeUrl(location);
    return (
      <Page title="Team invitation" subtitle={`You are invited to join ${team}.`}>
        <Alert kind="info">Sign in or create an account to accept the invitation.</Alert>
        <div className="latch-row">
          <Link href={withReturnTo(urls.signIn, here)} className="latch-button">
            Sign in
          </Link>
          <Link href={withReturnTo(urls.signUp, here)} className="latch-button latch-button-secondary">
            Sign up
          </Link>
        </div>
      </Page>
    );
  }
  const accept = async () => {
    setState('pending');
    try {
      const result = await app.acceptTeamInvitation(code);
      if (result.status === 'error') return setState({ error: result.error.message });
      await app.selectTeam(result.data.team_id);
      setState('accepted');
    } catch (error) {
      setState({ error: errorMessage(error) });
    }
  };
  return (
    <Page title="Team invitation" subtitle={`You are invited to join ${team}.`}>
      {state === 'accepted' ? (
        <Alert kind="success">
          You joined {team}. <Link href={urls.home}>Continue</Link>
        </Alert>
      ) : state === 'ignored' ? (
        <Alert kind="info">
          Invitation ignored. <Link href={urls.home}>Go home</Link>
        </Alert>
      ) : (
        <>
          {typeof state === 'object' ? <Alert kind="error">{state.error}</Alert> : null}
          <div className="latch-row">
            <Button onClick={accept} loading={state === 'pending'}>
              Join {team}
            </Button>
            <Button variant="secondary" onClick={() => setState('ignored')} disabled={state === 'pending'}>
              Ignore
            </Button>
          </div>
        </>
      )}
    </Page>
  );
}
