import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { adminAppFor } from '../api.js';
import { Link } from '../components/router.js';
import { ErrorMessage, Loading } from '../components/ui.js';
import { useOwner } from '../session.js';
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
import { OwnerFooter } from './projects.js';
import { SettingsPage } from './settings.js';
import { TeamsPage } from './teams.js';
import { UserDetailPage } from './user-detail.js';
import { UsersPage } from './users.js';

export const PAGES: Array<{ id: string; label: string; section: string }> = [
  { id: 'overview', label: 'Overview', section: 'Project' },
  { id: 'users', label: 'Users', section: 'Users' },
  { id: 'teams', label: 'Teams', section: 'Users' },
  { id: 'permissions', label: 'Permissions', section: 'Users' },
  { id: 'auth-methods', label: 'Auth methods', section: 'Configuration' },
  { id: 'domains', label: 'Domains', section: 'Configuration' },
  { id: 'api-keys', label: 'API keys', section: 'Configuration' },
  { id: 'emails', label: 'Emails', section: 'Configuration' },
  { id: 'email-editor', label: 'Email editor', section: 'Configuration' },
  { id: 'ai-chat', label: 'AI assistant', section: 'Configuration' },
  { id: 'payments', label: 'Payments', section: 'Configuration' },
  { id: 'webhooks', label: 'Webhooks', section: 'Configuration' },
  { id: 'data-vault', label: 'Data vault', section: 'Configuration' },
  { id: 'settings', label: 'Project settings', section: 'Configuration' },
];

/** One project: the sidebar of its pages, and the page itself. */
export function ProjectPage({ projectId, page, itemId }: { projectId: string; page: string; itemId: string | null }) {
  const owner = useOwner();
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
    const props = { projectId, admin, project: project.data };
    switch (page) {
      case 'overview':
        content = <OverviewPage {...props} />;
        break;
      case 'users':
        content = itemId ? <UserDetailPage {...props} userId={itemId} /> : <UsersPage {...props} />;
        break;
      case 'teams':
        content = <TeamsPage {...props} teamId={itemId} />;
        break;
      case 'permissions':
        content = <PermissionsPage {...props} />;
        break;
      case 'auth-methods':
        content = <AuthMethodsPage {...props} />;
        break;
      case 'domains':
        content = <DomainsPage {...props} />;
        break;
      case 'payments':
        content = <PaymentsPage {...props} tab={itemId} />;
        break;
      case 'webhooks':
        content = <WebhooksPage {...props} />;
        break;
      case 'data-vault':
        content = <DataVaultPage {...props} />;
        break;
      case 'api-keys':
        content = <ApiKeysPage {...props} />;
        break;
      case 'emails':
        content = <EmailsPage {...props} emailId={itemId} />;
        break;
      case 'email-editor':
        content = <EmailEditorPage {...props} itemId={itemId} />;
        break;
      case 'ai-chat':
        content = <AiChatPage {...props} />;
        break;
      case 'settings':
        content = <SettingsPage {...props} />;
        break;
      default:
        content = <ErrorMessage error={new Error(`There is no page "${page}".`)} title="Not found" />;
    }
  }

  return (
    <div className="shell">
      <aside className="sidebar" aria-label="Project">
        <Link className="brand" href="/projects">
          <span className="brand-mark" aria-hidden="true" /> Latch
        </Link>
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
        <OwnerFooter email={owner.data?.primary_email ?? null} />
      </aside>
      <main>{content}</main>
    </div>
  );
}
