/**
 * The team switcher: a labelled native <select> of the user's teams (keyboard and screen-reader
 * behaviour for free), which makes the chosen team the user's selected team.
 */
import { useSuspenseQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useApp, useUser } from '../hooks.js';
import { LatchRoot, errorMessage } from './ui.js';

/**
 * Lets the signed-in user pick their selected team; renders nothing when nobody is signed in.
 *
 * @example
 * <Suspense fallback={null}><TeamSwitcher /></Suspense>
 */
export function TeamSwitcher({ label = 'Team' }: { label?: string }) {
  const user = useUser();
  if (!user) return null;
  return <TeamSelect label={label} selectedTeamId={user.selected_team_id} />;
}

function TeamSelect({ label, selectedTeamId }: { label: string; selectedTeamId: string | null }) {
  const app = useApp();
  const teams = useSuspenseQuery(app.teamsQuery()).data;
  const id = useId();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const change = async (teamId: string) => {
    setPending(true);
    setError(null);
    try {
      await app.selectTeam(teamId || null);
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setPending(false);
    }
  };
  return (
    <LatchRoot className="latch-row">
      <label className="latch-label" htmlFor={id}>
        {label}
      </label>
      <select
        id={id}
        className="latch-select"
        value={selectedTeamId ?? ''}
        disabled={pending}
        aria-busy={pending || undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(event) => void change(event.target.value)}
      >
        {selectedTeamId === null ? <option value="">{teams.length ? 'Choose a team' : 'No teams'}</option> : null}
        {teams.map((team) => (
          <option key={team.id} value={team.id}>
            {team.display_name}
          </option>
        ))}
      </select>
      {error ? (
        <span className="latch-field-error" id={`${id}-error`} role="alert">
          {error}
        </span>
      ) : null}
    </LatchRoot>
  );
}
