import { useQuery } from '@tanstack/react-query';
import { internalApp } from '../api.js';
import { Link, navigate } from '../components/router.js';
import { ErrorMessage, Loading, useAction } from '../components/ui.js';
import { ConsoleShell } from './projects.js';

/**
 * Where an owner invitation's emailed link lands (`/owner-invitation?code=…`, on this server: the
 * server writes the link itself). Signed out, the console shows the sign-in page first and comes
 * back here; signed in, the invitation's team is shown and accepting joins it, which makes the
 * owner of every project that team owns.
 */
export function OwnerInvitationPage() {
  const code = new URLSearchParams(window.location.search).get('code') ?? '';
  const details = useQuery(
    {
      queryKey: ['owner-invitation', code],
      queryFn: async () => {
        const result = await internalApp.getTeamInvitationDetails(code);
        if (result.status === 'error') throw result.error;
        return result.data;
      },
      retry: false,
      enabled: code !== '',
    },
    internalApp.queryClient,
  );
  const accept = useAction(async () => {
    const result = await internalApp.acceptTeamInvitation(code);
    if (result.status === 'error') throw result.error;
    await internalApp.queryClient.invalidateQueries();
    navigate('/projects', { replace: true });
  });
  return (
    <ConsoleShell current={null}>
      <div className="card auth-card stack" style={{ margin: '40px auto' }}>
        <h1 style={{ fontSize: '1.2rem', margin: 0 }}>Invitation to co-own projects</h1>
        {!code ? (
          <ErrorMessage error={new Error('This link has no invitation code. Open the link from the email again.')} title="Broken link" />
        ) : details.isPending ? (
          <Loading label="Checking the invitation…" />
        ) : details.isError ? (
          <ErrorMessage error={details.error} title="This invitation cannot be used" />
        ) : (
          <>
            <p style={{ margin: 0 }}>
              You are invited to join <strong>{details.data.team_display_name}</strong>. Its members own its projects: they manage their users, keys and
              settings.
            </p>
            <ErrorMessage error={accept.error} title="Could not accept" />
            <div className="actions">
              <button type="button" className="button primary" disabled={accept.pending} onClick={() => void accept.run()}>
                {accept.pending ? 'Joining…' : 'Accept and open my projects'}
              </button>
              <Link className="button" href="/projects">
                Not now
              </Link>
            </div>
          </>
        )}
      </div>
    </ConsoleShell>
  );
}
