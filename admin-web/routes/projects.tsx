import { useQuery } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useState } from 'react';
import { projectCreateSchema } from '../../contract/schemas/projects.js';
import type { AdminProject, CreatedInternalApiKey } from '../../sdk/index.js';
import { adminAppFor, forgetAdminApps, internalApp } from '../api.js';
import { NewKeys } from '../components/new-keys.js';
import { Link, navigate } from '../components/router.js';
import { DialogFooter, Empty, Field, Modal, PageHeader, PrimaryButton, QueryView, SmallButton, formatDate, useFormAction } from '../components/ui.js';
import { useOwner } from '../session.js';

/** The owner's home: their projects, and the create-project flow that ends with the new keys. */
export function ProjectsPage({ creating }: { creating: boolean }) {
  const projects = useQuery(internalApp.ownedProjectsQuery(), internalApp.queryClient);
  return (
    <ConsoleShell current="projects">
      <PageHeader
        title="Projects"
        description="Each project has its own users, teams, keys and settings."
        actions={<PrimaryButton onClick={() => navigate('/projects/new')}>New project</PrimaryButton>}
      />
      <QueryView query={projects} loadingLabel="Loading projects…">
        {(items) =>
          items.length === 0 ? (
            <Empty title="No projects yet">
              <p>Create your first project to get its API keys.</p>
              <PrimaryButton onClick={() => navigate('/projects/new')}>Create a project</PrimaryButton>
            </Empty>
          ) : (
            <div className="grid" role="list" aria-label="Your projects">
              {items.map((project) => (
                <ProjectCard key={project.id} project={project} />
              ))}
            </div>
          )
        }
      </QueryView>
      <CreateProjectDialog open={creating} onClose={() => navigate('/projects')} />
    </ConsoleShell>
  );
}

/** Every console page's frame: the sidebar (named `label`: the brand, `nav`, the owner's footer) and the main area. */
export function Shell({ label, nav, children }: { label: string; nav: ReactNode; children: ReactNode }) {
  const owner = useOwner();
  return (
    <div className="shell">
      <aside className="sidebar" aria-label={label}>
        <Link className="brand" href="/projects">
          <span className="brand-mark" aria-hidden="true" /> Latch
        </Link>
        {nav}
        <OwnerFooter email={owner.data?.primary_email ?? null} />
      </aside>
      <main>{children}</main>
    </div>
  );
}

/** The console's pages outside a project (the project list, the owner's account). */
export function ConsoleShell({ current, children }: { current: 'projects' | 'account' | null; children: ReactNode }) {
  const nav = (
    <>
      <div className="nav-section">Console</div>
      <Link className="nav-link" href="/projects" aria-current={current === 'projects' ? 'page' : undefined}>
        Projects
      </Link>
      <Link className="nav-link" href="/account" aria-current={current === 'account' ? 'page' : undefined}>
        Your account
      </Link>
      <a className="nav-link" href="/api/v1/docs">
        API reference
      </a>
    </>
  );
  return (
    <Shell label="Console" nav={nav}>
      {children}
    </Shell>
  );
}

export function OwnerFooter({ email }: { email: string | null }) {
  return (
    <div className="sidebar-footer">
      <Link className="muted small" href="/account" title={`Your account: ${email ?? ''}`}>
        {email}
      </Link>
      <SmallButton
        onClick={async () => {
          await internalApp.signOut();
          forgetAdminApps();
          navigate('/sign-in', { replace: true });
        }}
      >
        Sign out
      </SmallButton>
    </div>
  );
}

function ProjectCard({ project }: { project: AdminProject }) {
  return (
    <Link className="card project-card" href={`/projects/${project.id}`} role="listitem">
      <strong>{project.display_name}</strong>
      <span className="muted small">{project.description || 'No description'}</span>
      <span className="row small">
        {project.is_production_mode ? <span className="badge ok">Production</span> : <span className="badge">Development</span>}
        <span className="muted">Created {formatDate(project.created_at_millis)}</span>
      </span>
    </Link>
  );
}

function CreateProjectDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [created, setCreated] = useState<{ project: AdminProject; keys: CreatedInternalApiKey } | null>(null);
  const create = useFormAction(projectCreateSchema, async (input: { display_name: string; description?: string }) => {
    // New projects start with Stack Auth's team roles (team_admin for a team's creator, team_member after).
    const project = await internalApp.createProject({ ...input, default_team_roles: true });
    // A first key set right away, so the project is usable from the SDK with no extra step.
    const keys = await adminAppFor(project.id).createInternalApiKey({
      description: 'Created with the project',
      has_publishable_client_key: true,
      has_secret_server_key: true,
      has_super_secret_admin_key: false,
    });
    setCreated({ project, keys });
  });

  const close = () => {
    setName('');
    setDescription('');
    create.clear();
    setCreated(null);
    onClose();
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void create.submit({ display_name: name.trim(), ...(description.trim() ? { description: description.trim() } : {}) });
  };

  return (
    <Modal title={created ? `${created.project.display_name} is ready` : 'New project'} open={open} onClose={close} wide={Boolean(created)}>
      {created ? (
        <div className="stack">
          <NewKeys projectId={created.project.id} keys={created.keys} />
          <div className="actions end">
            <button
              type="button"
              className="button primary"
              onClick={() => {
                const id = created.project.id;
                setCreated(null);
                navigate(`/projects/${id}`);
              }}
            >
              I have copied the keys — open the project
            </button>
          </div>
        </div>
      ) : (
        <form className="form" onSubmit={submit} noValidate>
          <Field label="Project name" error={create.errors.display_name}>
            {(props) => <input {...props} type="text" value={name} onChange={(event) => setName(event.target.value)} placeholder="My app" autoFocus />}
          </Field>
          <Field label="Description (optional)" error={create.errors.description}>
            {(props) => <input {...props} type="text" value={description} onChange={(event) => setDescription(event.target.value)} />}
          </Field>
          <DialogFooter
            error={create.error}
            errorTitle="Could not create the project"
            submitLabel="Create project"
            onCancel={close}
            pending={create.pending}
            pendingLabel="Creating…"
          />
        </form>
      )}
    </Modal>
  );
}
