import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { adminAppFor } from '../api.js';
import { Link } from '../components/router.js';
import { ErrorMessage, Loading } from '../components/ui.js';
import { ApiKeysPage } from './api-keys.js';
import { DataVaultPage } from './data-vault.js';
import { WebhooksPage } from './webhooks.js';
import { AuthMethodsPage } from './auth-methods.js';
import { DomainsPage } from './domains.js';
import { PaymentsPage } from './payments.js';
import { EmailsPage } from './emails.js';
import { AiChatPage } from './ai-chat.js';
import { EmailEditorPage } from './email-editor.js';
import { OverviewPage } from './overview.js';
import { PermissionsPage } from './permissions.js';
import { Shell } from './projects.js';
import { SettingsPage } from './settings.js';
import { TeamsPage } from './teams.js';
import { UserDetailPage } from './user-detail.js';
import { UsersPage } from './users.js';
import type { PageProps } from './page-props.js';

/** The project's pages, in sidebar order: each renders from the page props and the path's item id (a user, a team, an email, a tab). */
export const PAGES: Array<{ id: string; label: string; section: string; render: (props: PageProps, itemId: string | null) => ReactNode }> = [
  { id: 'overview', label: 'Overview', section: 'Project', render: (props) => <OverviewPage {...props} /> },
  {
    id: 'users',
    label: 'Users',
    section: 'Users',
    render: (props, itemId) => (itemId ? <UserDetailPage {...props} userId={itemId} /> : <UsersPage {...props} />),
  },
  { id: 'teams', label: 'Teams', section: 'Users', render: (props, itemId) => <TeamsPage {...props} teamId={itemId} /> },
  { id: 'permissions', label: 'Permissions', section: 'Users', render: (props) => <PermissionsPage {...props} /> },
  { id: 'auth-methods', label: 'Auth methods', section: 'Configuration', render: (props) => <AuthMethodsPage {...props} /> },
  { id: 'domains', label: 'Domains', section: 'Configuration', render: (props) => <DomainsPage {...props} /> },
  { id: 'api-keys', label: 'API keys', section: 'Configuration', render: (props) => <ApiKeysPage {...props} /> },
  { id: 'emails', label: 'Emails', section: 'Configuration', render: (props, itemId) => <EmailsPage {...props} emailId={itemId} /> },
  { id: 'email-editor', label: 'Email editor', section: 'Configuration', render: (props, itemId) => <EmailEditorPage {...props} itemId={itemId} /> },
  { id: 'ai-chat', label: 'AI assistant', section: 'Configuration', render: (props) => <AiChatPage {...props} /> },
  { id: 'payments', label: 'Payments', section: 'Configuration', render: (props, itemId) => <PaymentsPage {...props} tab={itemId} /> },
  { id: 'webhooks', label: 'Webhooks', section: 'Configuration', render: (props) => <WebhooksPage {...props} /> },
  { id: 'data-vault', label: 'Data vault', section: 'Configuration', render: (props) => <DataVaultPage {...props} /> },
  { id: 'settings', label: 'Project settings', section: 'Configuration', render: (props) => <SettingsPage {...props} /> },
];

/** One project: the sidebar of its pages, and the page itself. */
export function ProjectPage({ projectId, page, itemId }: { projectId: string; page: string; itemId: string | null }) {
  const admin = adminAppFor(projectId);
  const project = useQuery(admin.projectQuery(), admin.queryClient);
  const sections = [...new Set(PAGES.map((entry) => entry.section))];

  let content: ReactNode;
  if (project.isPending) content = <Loading label="Loading the project…" />;
  else if (project.isError) {
    content = (
      <>
        <ErrorMessage error={project.error} title="Could not open this project" />
        <Link className="button" href="/projects">
          Back to your projects
        </Link>
      </>
    );
  } else {
    const entry = PAGES.find((candidate) => candidate.id === page);
    content = entry ? (
      entry.render({ projectId, admin, project: project.data }, itemId)
    ) : (
      <ErrorMessage error={new Error(`There is no page "${page}".`)} title="Not found" />
    );
  }

  const nav = (
    <>
      <Link className="nav-link" href="/projects">
        ← All projects
      </Link>
      <div className="nav-section" style={{ textTransform: 'none', fontSize: '0.95rem', color: 'var(--text)', fontWeight: 600 }}>
        {project.data?.display_name ?? '…'}
      </div>
      <nav aria-label="Project pages">
        {sections.map((section) => (
          <div key={section}>
            <div className="nav-section">{section}</div>
            {PAGES.filter((entry) => entry.section === section).map((entry) => (
              <Link key={entry.id} className="nav-link" href={`/projects/${projectId}/${entry.id}`} aria-current={entry.id === page ? 'page' : undefined}>
                {entry.label}
              </Link>
            ))}
          </div>
        ))}
      </nav>
    </>
  );
  return (
    <Shell label="Project" nav={nav}>
      {content}
    </Shell>
  );
}
