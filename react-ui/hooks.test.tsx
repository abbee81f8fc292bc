import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ClientApp, type ClientUser } from '../sdk/index.js';
import { DESTRUCTURE_USER_HINT, useApp, useUser } from './hooks.js';
import { LatchProvider } from './provider.js';

/**
 * The hooks rendered with react-dom/server (no DOM needed): the user is put in the SDK's cache
 * first, exactly where a fetch would put it, so `useUser` reads it without a server.
 */

const USER: ClientUser = {
  id: '00000000-0000-4000-8000-000000000001',
  display_name: 'Ann',
  primary_email: 'ann@example.com',
  primary_email_verified: true,
  auth_with_email: true,
  profile_image_url: null,
  signed_up_at_millis: 0,
  client_metadata: null,
  client_read_only_metadata: null,
  has_password: true,
  otp_auth_enabled: false,
  passkey_auth_enabled: false,
  requires_totp_mfa: false,
  oauth_providers: [],
  selected_team_id: null,
  is_anonymous: false,
};

function appWith(user: ClientUser | null) {
  const app = new ClientApp({ projectId: 'p1', publishableClientKey: 'pck', baseUrl: 'http://127.0.0.1:9', tokenStore: 'memory' });
  app.queryClient.setQueryData(app.currentUserQuery().queryKey, user);
  return app;
}

function render(app: ClientApp, Component: () => React.ReactNode) {
  return renderToString(
    <LatchProvider app={app}>
      <Component />
    </LatchProvider>,
  );
}

describe('useUser', () => {
  it('returns the cached user; destructuring it throws the hint', () => {
    const app = appWith(USER);
    expect(render(app, () => <p>{useUser()?.display_name}</p>)).toBe('<p>Ann</p>');
    expect(render(app, () => <p>{useUser({ or: 'throw' }).primary_email}</p>)).toBe('<p>ann@example.com</p>');
    expect(() =>
      render(app, () => {
        const { user } = useUser() as unknown as { user: ClientUser };
        return <p>{user.display_name}</p>;
      }),
    ).toThrow(DESTRUCTURE_USER_HINT);
  });

  it('keeps the identity of the returned user between renders', () => {
    const app = appWith(USER);
    const seen: unknown[] = [];
    const Component = () => (seen.push(useUser()), null);
    render(app, Component);
    render(app, Component);
    expect(seen[0]).toBe(seen[1]);
    expect(seen[0]).toEqual(USER);
  });

  it('signed out: null by default, the spec message with or: throw', () => {
    const app = appWith(null);
    expect(render(app, () => <p>{useUser() === null ? 'nobody' : 'somebody'}</p>)).toBe('<p>nobody</p>');
    expect(() => render(app, () => <p>{useUser({ or: 'throw' }).id}</p>)).toThrow('User is not signed in but getUser was called with { or: throw }');
  });

  it('an anonymous user counts as signed out unless anonymous is asked for', () => {
    const app = appWith({ ...USER, is_anonymous: true, primary_email: null });
    expect(render(app, () => <p>{useUser() === null ? 'nobody' : 'somebody'}</p>)).toBe('<p>nobody</p>');
    expect(render(app, () => <p>{useUser({ or: 'anonymous' }).is_anonymous ? 'anonymous' : 'named'}</p>)).toBe('<p>anonymous</p>');
  });

  it('outside the provider, says where it must be used', () => {
    expect(() => renderToString(<Hook />)).toThrow('inside <LatchProvider app={app}>');
    function Hook() {
      useApp();
      return null;
    }
  });
});

describe('LatchProvider', () => {
  it('refuses a handler path that does not start with /', () => {
    expect(() => renderToString(<LatchProvider app={appWith(null)} handlerPath="handler" />)).toThrow('Handler path must start with /');
  });
});
