import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode, Suspense, lazy, useEffect } from 'react';
import { createRoot } from 'react-dom/client';
import { internalApp } from './api.js';
import { ErrorMessage, Loading } from './components/ui.js';
import { matchPath, navigate, useLocation } from './components/router.js';
import { AuthPage, PASSWORD_RESET_PATH } from './routes/auth.js';
import { OwnerInvitationPage } from './routes/owner-invitation.js';
import { ProjectsPage } from './routes/projects.js';
import { useOwner } from './session.js';
import './styles.css';

// A project's pages are a separate chunk: the sign-in page and the project list load first.
const ProjectPage = lazy(() => import('./routes/project.js').then((module) => ({ default: module.ProjectPage })));
// The popup of "Test this provider" lands here: it needs no owner session of its own.
const OAuthTestCallbackPage = lazy(() => import('./routes/oauth-test.js').then((module) => ({ default: module.OAuthTestCallbackPage })));
const OAUTH_TEST_CALLBACK_PATH = '/oauth-test-callback';
// The owner's account page draws QR codes (the qrcode package): a chunk of its own.
const AccountPage = lazy(() => import('./routes/account.js').then((module) => ({ default: module.AccountPage })));
// The emailed reset link works signed in or out (a reset ends every session of that owner anyway).
const PasswordResetPage = lazy(() => import('./routes/password-reset.js').then((module) => ({ default: module.PasswordResetPage })));

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
  if (!owner.data) {
    const invited = pathname === '/owner-invitation';
    return (
      <AuthPage
        mode={pathname === '/sign-up' ? 'sign-up' : 'sign-in'}
        notice={
          invited ? (
            <div className="alert alert-ok" role="status">
              You are invited to co-own projects on Latch: sign in, or create an account with the invited email, to accept.
            </div>
          ) : undefined
        }
      />
    );
  }
  if (onAuthPage) return null;
  if (pathname === '/owner-invitation') return <OwnerInvitationPage />;
  if (pathname === '/account')
    return (
      <Suspense fallback={<Loading label="Loading…" />}>
        <AccountPage />
      </Suspense>
    );
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
      ) : window.location.pathname === PASSWORD_RESET_PATH ? (
        <Suspense fallback={<Loading label="Loading…" />}>
          <PasswordResetPage />
        </Suspense>
      ) : (
        <App />
      )}
    </QueryClientProvider>
  </StrictMode>,
);
