import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ClientApp, type ClientProject } from '../sdk/index.js';
import { LatchHandler } from './handler/handler.js';
import { LatchProvider } from './provider.js';

/**
 * The handler's routing without a browser: a framework passes `location`, the provider a handler
 * path, and the project's settings are put in the SDK's cache (where a fetch would put them).
 */

const PROJECT: ClientProject = {
  id: 'p1',
  display_name: 'Acme notes',
  logo_url: null,
  full_logo_url: null,
  config: {
    sign_up_enabled: true,
    credential_enabled: true,
    magic_link_enabled: false,
    passkey_enabled: false,
    anonymous_enabled: false,
    client_team_creation_enabled: false,
    client_user_deletion_enabled: false,
    allow_user_api_keys: false,
    allow_team_api_keys: false,
    enabled_oauth_providers: [],
    domains: [],
  },
};

function render(pathname: string, options: { handlerPath?: string; project?: ClientProject; search?: string; theme?: 'light' | 'dark' } = {}) {
  const app = new ClientApp({ projectId: 'p1', publishableClientKey: 'pck', baseUrl: 'http://127.0.0.1:9', tokenStore: 'memory' });
  app.queryClient.setQueryData(app.projectQuery().queryKey, options.project ?? PROJECT);
  app.queryClient.setQueryData(app.currentUserQuery().queryKey, null);
  return renderToString(
    <LatchProvider app={app} handlerPath={options.handlerPath} theme={options.theme}>
      <LatchHandler location={{ pathname, search: options.search ?? '', hash: '' }} />
    </LatchProvider>,
  );
}

const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#x27;/g, "'")
    .replace(/\s+/g, ' ')
    .trim();

describe('LatchHandler', () => {
  it('serves the routes under a custom handler path, from the location prop', () => {
    const html = render('/auth/sign-in', { handlerPath: '/auth', search: '?after_auth_return_to=%2Fnotes' });
    expect(text(html)).toContain('Sign in to Acme notes');
    // Only the enabled method: no tabs when magic link is off.
    expect(html).not.toContain('role="tablist"');
    // The links keep after_auth_return_to, under the custom path.
    expect(html).toContain('href="/auth/sign-up?after_auth_return_to=%2Fnotes"');
    expect(html).toContain('href="/auth/forgot-password?after_auth_return_to=%2Fnotes"');
    expect(text(render('/handler/sign-in', { handlerPath: '/auth' }))).toContain('Page not found');
  });

  it('shows both methods as tabs when magic link is on, and says when sign-up is off', () => {
    const both = { ...PROJECT, config: { ...PROJECT.config, magic_link_enabled: true } };
    expect(render('/handler/sign-in', { project: both })).toContain('role="tablist"');
    const closed = { ...PROJECT, config: { ...PROJECT.config, sign_up_enabled: false } };
    expect(text(render('/handler/sign-up', { project: closed }))).toContain('Sign-up is not enabled for this project.');
    expect(render('/handler/sign-in', { project: closed })).not.toContain('/handler/sign-up');
  });

  it('shows a button per enabled OAuth provider, named for what it does, with a decorative brand icon', () => {
    const oauth = { ...PROJECT, config: { ...PROJECT.config, enabled_oauth_providers: [{ id: 'github' as const }, { id: 'google' as const }] } };
    const signIn = render('/handler/sign-in', { project: oauth });
    expect(text(signIn)).toContain('Sign in with GitHub Sign in with Google or');
    // The icon is hidden from assistive technology: the button's text is its accessible name.
    expect(signIn.match(/<svg[^>]*>/g)?.every((tag) => tag.includes('aria-hidden="true"'))).toBe(true);
    expect(signIn.match(/<svg/g)).toHaveLength(2);
    expect(signIn).toContain('role="group" aria-label="Sign in with a provider"');
    expect(text(render('/handler/sign-up', { project: oauth }))).toContain('Sign up with GitHub Sign up with Google');
    // OAuth alone is a sign-in method: no "nothing enabled" message, no divider.
    const only = { ...oauth, config: { ...oauth.config, credential_enabled: false } };
    expect(text(render('/handler/sign-in', { project: only }))).not.toContain('No sign-in method is enabled');
    expect(render('/handler/sign-in', { project: only })).not.toContain('role="separator"');
    // Sign-up off: no sign-up buttons either.
    const closed = { ...oauth, config: { ...oauth.config, sign_up_enabled: false } };
    expect(text(render('/handler/sign-up', { project: closed }))).not.toContain('Sign up with GitHub');
    // No provider enabled: no buttons.
    expect(render('/handler/sign-in')).not.toContain('latch-oauth');
  });

  it('the mfa page without a sign-in waiting says so', () => {
    // No attempt code in session storage.
    expect(text(render('/handler/mfa'))).toContain('No sign-in is waiting for a second factor.');
  });

  it('a forced theme reaches every .latch-root; by default the system decides', () => {
    expect(render('/handler/sign-in', { theme: 'dark' })).toMatch(/class="latch-root latch-page" data-latch-theme="dark"/);
    expect(render('/handler/sign-in')).not.toContain('data-latch-theme');
  });

  it('callback pages without a code say the link is incomplete', () => {
    for (const route of ['email-verification', 'password-reset', 'magic-link-callback', 'team-invitation']) {
      expect(text(render(`/handler/${route}`)), route).toContain('This link is incomplete');
    }
    expect(text(render('/handler/cli-auth-confirm'))).toMatch(/This link is incomplete: it has no login_code/);
  });
});
