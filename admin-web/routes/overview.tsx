import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { BarChart, ProportionBars } from '../components/charts.js';
import { Link } from '../components/router.js';
import { Card, PageHeader, QueryView, Switch } from '../components/ui.js';
import type { PageProps } from './page-props.js';

/** The project at a glance: totals, sign-ups and activity charts, and what to do next. */
export function OverviewPage({ projectId, admin, project }: PageProps) {
  const [includeAnonymous, setIncludeAnonymous] = useState(false);
  // Metrics move on their own (sign-ups, activity): refreshed on focus and after 30 s.
  const metrics = useQuery({ ...admin.metricsQuery({ includeAnonymous }), staleTime: 30_000, refetchOnWindowFocus: true }, admin.queryClient);
  return (
    <>
      <PageHeader title={project.display_name} description={project.description ?? `Project ID ${projectId}`} />
      {project.production_mode_problems.length > 0 && project.is_production_mode ? (
        <div className="alert alert-warn" role="note">
          <strong>Production mode has problems</strong>
          <Link href={`/projects/${projectId}/domains`}>Review {project.production_mode_problems.length} problem(s)</Link>
        </div>
      ) : null}
      <div style={{ maxWidth: 320 }}>
        <Switch label="Include anonymous users" checked={includeAnonymous} onChange={setIncludeAnonymous} />
      </div>
      <QueryView query={metrics} loadingLabel="Loading metrics…">
        {(data) => (
          <>
            <div className="stats">
              <Stat label="Total users" value={data.total_users} />
              <Stat label="Active today" value={data.active_users.last_day} hint="Last 24 hours" />
              <Stat label="Active this week" value={data.active_users.last_7_days} hint="Last 7 days" />
              <Stat label="Active this month" value={data.active_users.last_30_days} hint="Last 30 days" />
            </div>
            {data.total_users === 0 && !includeAnonymous ? (
              <Card title="Get started">
                <p className="muted">No users yet. Enable the sign-in methods you want, then sign users up with the SDK or create one by hand.</p>
                <div className="actions">
                  <Link className="button" href={`/projects/${projectId}/auth-methods`}>
                    Choose auth methods
                  </Link>
                  <Link className="button" href={`/projects/${projectId}/users`}>
                    Create a user
                  </Link>
                  <Link className="button" href={`/projects/${projectId}/api-keys`}>
                    API keys
                  </Link>
                </div>
              </Card>
            ) : null}
            <Card title="Sign-ups per day">
              <BarChart data={data.sign_ups_per_day} label="Sign-ups per day" />
            </Card>
            <div className="two">
              <Card title="Daily active users">
                <p className="muted small" style={{ marginTop: 0 }}>
                  Users who signed up or used the app each day (kept per day).
                </p>
                <BarChart data={data.daily_active_users} label="Daily active users" height={150} width={380} />
              </Card>
              <Card title="Users by sign-in method">
                <ProportionBars
                  items={[
                    { label: 'Password', value: data.users_by_auth_method.password },
                    { label: 'Email code / magic link', value: data.users_by_auth_method.email_code },
                    { label: 'Passkey', value: data.users_by_auth_method.passkey },
                    { label: 'None (created without a method)', value: data.users_by_auth_method.none },
                  ]}
                />
                {data.anonymous_users > 0 ? <p className="muted small">{data.anonymous_users} anonymous user(s).</p> : null}
              </Card>
            </div>
          </>
        )}
      </QueryView>
    </>
  );
}

function Stat({ label, value, hint }: { label: string; value: number; hint?: string }) {
  return (
    <div className="card stat">
      <span className="muted">{label}</span>
      <span className="stat-value">{value.toLocaleString()}</span>
      {hint ? <span className="muted small">{hint}</span> : null}
    </div>
  );
}
