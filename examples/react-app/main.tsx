/**
 * The example host app: a home page, a page only signed-in users may see, and the Latch handler
 * under /handler, with no router library. Its config (project id, publishable key, Latch URL)
 * comes from `window.__LATCH_CONFIG__` when a test sets it, else from /latch-config.json, which
 * `npm run example` serves.
 */
import { StrictMode, Suspense, useSyncExternalStore } from 'react';
import { createRoot } from 'react-dom/client';
import { ClientApp } from '../../sdk/index.js';
import {
  LatchHandler,
  LatchProvider,
  Loading,
  type PaymentItemsChoice,
  type Plan,
  PlanPicker,
  TeamSwitcher,
  UserButton,
  useUser,
} from '../../react-ui/index.js';
import { example } from './example.css.js';

interface ExampleConfig {
  projectId: string;
  publishableClientKey: string;
  baseUrl: string;
  inboxUrl?: string;
  /** How the kit navigates (default 'history': no page loads). */
  redirectMethod?: 'window' | 'history';
  /** The items account settings and team management show (the project's payments config names them). */
  paymentItems?: PaymentItemsChoice;
  /** The pricing page's plans (default: {@link PLANS}). */
  plans?: Plan[];
}

/**
 * The pricing page's plans: products `starter` and `pro` of one product line in the project's
 * payments config, each with a `monthly` price (see README, "Payments").
 */
const PLANS: Plan[] = [
  { productId: 'starter', priceId: 'monthly', name: 'Starter', price: '$5 / month', features: ['10 credits a month'] },
  { productId: 'pro', priceId: 'monthly', name: 'Pro', price: '$20 / month', features: ['100 credits a month', 'Priority support'] },
];

declare global {
  interface Window {
    __LATCH_CONFIG__?: ExampleConfig;
  }
}

function usePathname(): string {
  return useSyncExternalStore(
    (onChange) => {
      window.addEventListener('popstate', onChange);
      return () => window.removeEventListener('popstate', onChange);
    },
    () => window.location.pathname,
  );
}

function go(event: React.MouseEvent<HTMLAnchorElement>) {
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  event.preventDefault();
  window.history.pushState(null, '', event.currentTarget.getAttribute('href'));
  window.dispatchEvent(new PopStateEvent('popstate'));
}

function Header({ config }: { config: ExampleConfig }) {
  return (
    <header style={example.header}>
      <a href="/" onClick={go} style={example.brand}>
        Acme notes
      </a>
      <nav style={example.nav}>
        <a href="/protected" onClick={go} style={example.navLink}>
          Protected page
        </a>
        <a href="/pricing" onClick={go} style={example.navLink}>
          Pricing
        </a>
        {config.inboxUrl ? (
          <a href={config.inboxUrl} target="_blank" rel="noreferrer" style={example.navLink}>
            Dev inbox
          </a>
        ) : null}
        <Suspense fallback={null}>
          <TeamSwitcher />
          <UserButton />
        </Suspense>
      </nav>
    </header>
  );
}

function Home() {
  const user = useUser();
  return (
    <main style={example.main}>
      <h1>Welcome{user ? `, ${user.display_name ?? user.primary_email}` : ''}</h1>
      {user ? (
        <>
          <p data-testid="greeting">
            Signed in as <strong data-testid="display-name">{user.display_name ?? '(no display name)'}</strong> ({user.primary_email}
            {user.primary_email_verified ? ', verified' : ', not verified yet'}).
          </p>
          <p>
            <a href="/handler/account-settings" onClick={go}>
              Account settings
            </a>{' '}
            ·{' '}
            <a href="/handler/sign-out" onClick={go}>
              Sign out
            </a>
          </p>
        </>
      ) : (
        <p>
          You are signed out.{' '}
          <a href="/handler/sign-in" onClick={go}>
            Sign in
          </a>{' '}
          or{' '}
          <a href="/handler/sign-up" onClick={go}>
            create an account
          </a>
          .
        </p>
      )}
    </main>
  );
}

function Protected() {
  const user = useUser({ or: 'redirect' });
  return (
    <main style={example.main}>
      <h1>Protected page</h1>
      <p data-testid="protected">
        Only signed-in users see this. You are <strong>{user.display_name ?? user.primary_email}</strong>.
      </p>
    </main>
  );
}

/** Plans for the signed-in user; buying one goes through Stripe Checkout and comes back here. */
function Pricing({ plans }: { plans: Plan[] }) {
  return (
    <main style={example.main}>
      <h1>Pricing</h1>
      <PlanPicker plans={plans} />
    </main>
  );
}

function App({ config }: { config: ExampleConfig }) {
  const pathname = usePathname();
  // The header stays on the handler's pages too: a name changed in account settings shows in
  // the user button above it at once.
  return (
    <>
      <Header config={config} />
      {pathname.startsWith('/handler/') ? (
        <LatchHandler />
      ) : (
        <Suspense fallback={<Loading />}>
          {pathname === '/protected' ? <Protected /> : pathname === '/pricing' ? <Pricing plans={config.plans ?? PLANS} /> : <Home />}
        </Suspense>
      )}
    </>
  );
}

async function main() {
  const config: ExampleConfig = window.__LATCH_CONFIG__ ?? (await (await fetch('/latch-config.json')).json());
  const app = new ClientApp({ projectId: config.projectId, publishableClientKey: config.publishableClientKey, baseUrl: config.baseUrl });
  const root = document.getElementById('root');
  if (!root) throw new Error('no #root element');
  createRoot(root).render(
    <StrictMode>
      <LatchProvider app={app} redirectMethod={config.redirectMethod ?? 'history'} paymentItems={config.paymentItems}>
        <App config={config} />
      </LatchProvider>
    </StrictMode>,
  );
}

void main();
