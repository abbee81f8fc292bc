import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode, Suspense, lazy, useEffect } from 'react';
import { createRoot } from 'react-dom/client';
import { internalApp } from './api.js';
import { ErrorMessage, Loading } from './components/ui.js';
import { matchPath, navigate, useLocation } from './components/router.js';
import { AuthPage } from './routes/auth.js';
import { ProjectsPage } from './routes/projects.js';
import { useOwner } from './session.js';
import './styles.css';

// A project's pages are a separate chunk: the sign-in page and the project list load first.
const ProjectPage = lazy(() => import('./routes/project.js').then((module) => ({ default: module.ProjectPage })));
// The popup of "Test this provider" lands here: it needs no owner session of its own.
const OAuthTestCallbackPage = lazy(() => import('./routes/oauth-test.js').then((module) => ({ default: module.OAuthTestCallbackPage })));
const OAUTH_TEST_CALLBACK_PATH = '/oauth-test-callback';

/** The console: signed out, the sign-in page; signed in, the project list or one project's pages. */
function App() {
  const owner = useOwner();
  const { pathname } = useLocation();
  const onAuthPage = pathname === '/sign-in' || pathname === '/sign-up';
  // Signed in on the sign-in page (just now, or from a bookmark): on to the projects. Any other
  // page asked for while signed out is shown once signed in, so deep links survive.
  useEffect(() => {
    if (owner.data && onAuthPage) navigate('/projects', { replace: true });
  }, [owner.data, onAuthPage]);

  if (owner.isPending)
    return (
      <div className="auth-screen">
        <Loading label="Loading the console…" />
      </div>
    );
  // The server could not be reached (not "signed out"): say so instead of showing the sign-in form.
  if (owner.isError) {
    return (
      <div className="auth-screen">
        <div className="card auth-card stack">
          <ErrorMessage error={owner.error} title="Cannot reach Latch" />
          <button type="button" className="button" onClick={() => void owner.refetch()}>
            Try again
          </button>
        </div>
      </div>
    );
  }
  if (!owner.data) return <AuthPage mode={pathname === '/sign-up' ? 'sign-up' : 'sign-in'} />;
  if (onAuthPage) return null;
  const project =
    matchPath('/projects/:projectId', pathname) ??
    matchPath('/projects/:projectId/:page', pathname) ??
    matchPath('/projects/:projectId/:page/:itemId', pathname);
  if (project?.projectId && project.projectId !== 'new') {
    return (
      <Suspense
        fallback={
          <div className="auth-screen">
            <Loading label="Loading…" />
          </div>
        }
      >
        <ProjectPage projectId={project.projectId} page={project.page ?? 'overview'} itemId={project.itemId ?? null} />
      </Suspense>
    );
  }
  return <ProjectsPage creating={pathname === '/projects/new'} />;
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={internalApp.queryClient}>
      {window.location.pathname === OAUTH_TEST_CALLBACK_PATH ? (
        <Suspense fallback={<Loading label="Loading…" />}>
          <OAuthTestCallbackPage />
        </Suspense>
      ) : (
        <App />
      )}
    </QueryClientProvider>
  </StrictMode>,
);
