import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { internalApp } from './api.js';
import { Loading } from './components/ui.js';
import { matchPath, navigate, useLocation } from './components/router.js';
import { AuthPage } from './routes/auth.js';
import { ProjectPage } from './routes/project.js';
import { ProjectsPage } from './routes/projects.js';
import { useOwner } from './session.js';
import './styles.css';

/** The console: signed out, the sign-in page; signed in, the project list or one project's pages. */
function App() {
  const owner = useOwner();
  const { pathname } = useLocation();

  if (owner.isPending) return <div className="auth-screen"><Loading label="Loading the console…" /></div>;
  if (!owner.data) {
    const mode = pathname === '/sign-up' ? 'sign-up' : 'sign-in';
    return <AuthPage mode={mode} />;
  }
  if (pathname === '/sign-in' || pathname === '/sign-up') {
    navigate('/projects', { replace: true });
    return null;
  }
  const project = matchPath('/projects/:projectId', pathname) ?? matchPath('/projects/:projectId/:page', pathname) ?? matchPath('/projects/:projectId/:page/:itemId', pathname);
  if (project?.projectId && project.projectId !== 'new') return <ProjectPage projectId={project.projectId} page={project.page ?? 'overview'} itemId={project.itemId ?? null} />;
  return <ProjectsPage creating={pathname === '/projects/new'} />;
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={internalApp.queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
