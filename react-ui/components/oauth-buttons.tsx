/**
 * OAuth provider buttons: one per provider the project enables (`enabled_oauth_providers` of
 * `GET /projects/current`), each with the brand's mark as inline SVG (no request to a CDN, works
 * offline) and an accessible name that says what it does ("Sign in with GitHub"). A click starts
 * the flow with the SDK, which sends the browser to the provider; the flow comes back to the
 * oauth-callback page, carrying `after_auth_return_to`.
 */
import { OAUTH_PROVIDER_DISPLAY_NAMES } from '../../contract/config/oauth-providers.js';
import { type ReactNode, useState } from 'react';
import { useApp, useLatchContext, useProject } from '../hooks.js';
import { absoluteUrl, usePageLocation } from '../location.js';
import { readReturnTo, withReturnTo } from '../urls.js';
import { Alert, Button, errorMessage } from './ui.js';

/** Display names of the providers (the ids are the spec's). */
export const OAUTH_PROVIDER_NAMES: Record<string, string> = {
  ...OAUTH_PROVIDER_DISPLAY_NAMES,
  // The generic OpenID Connect provider (the project's own IdP: Okta, Keycloak, Entra…).
  oidc: 'single sign-on',
};

/** A provider's display name (the id, capitalised, for one the UI kit does not know). */
export function oauthProviderName(id: string): string {
  return OAUTH_PROVIDER_NAMES[id] ?? id.charAt(0).toUpperCase() + id.slice(1);
}

// Simplified single-path marks in the brands' colours (24×24 view box). Decorative: the button's
// text names the provider, so every icon is aria-hidden.
const ICONS: Record<string, { color: string; path: string }> = {
  github: {
    color: 'currentColor',
    path: 'M12 .5a11.5 11.5 0 0 0-3.64 22.41c.58.1.79-.25.79-.56v-2c-3.2.7-3.88-1.36-3.88-1.36-.52-1.33-1.28-1.68-1.28-1.68-1.05-.72.08-.7.08-.7 1.16.08 1.77 1.19 1.77 1.19 1.03 1.77 2.7 1.26 3.36.96.1-.75.4-1.26.73-1.55-2.55-.29-5.24-1.28-5.24-5.69 0-1.26.45-2.28 1.19-3.09-.12-.29-.52-1.46.11-3.05 0 0 .97-.31 3.17 1.18a11 11 0 0 1 5.77 0c2.2-1.49 3.17-1.18 3.17-1.18.63 1.59.23 2.76.11 3.05.74.81 1.19 1.83 1.19 3.09 0 4.42-2.69 5.39-5.26 5.68.41.36.78 1.06.78 2.14v3.17c0 .31.21.67.8.56A11.5 11.5 0 0 0 12 .5Z',
  },
  google: {
    color: '#4285F4',
    path: 'M21.6 12.23c0-.71-.06-1.4-.18-2.05H12v3.88h5.38a4.6 4.6 0 0 1-2 3.02v2.5h3.24c1.9-1.75 2.98-4.33 2.98-7.35ZM12 22c2.7 0 4.97-.9 6.62-2.42l-3.24-2.5c-.9.6-2.04.95-3.38.95-2.6 0-4.8-1.76-5.59-4.12H3.07v2.6A10 10 0 0 0 12 22Zm-5.59-8.09a6 6 0 0 1 0-3.82v-2.6H3.07a10 10 0 0 0 0 9.02l3.34-2.6ZM12 5.98c1.47 0 2.79.5 3.83 1.5l2.87-2.87A9.6 9.6 0 0 0 12 2a10 10 0 0 0-8.93 5.49l3.34 2.6C7.2 7.74 9.4 5.98 12 5.98Z',
  },
  microsoft: { color: '#737373', path: 'M2 2h9.5v9.5H2V2Zm10.5 0H22v9.5h-9.5V2ZM2 12.5h9.5V22H2v-9.5Zm10.5 0H22V22h-9.5v-9.5Z' },
  spotify: {
    color: '#1DB954',
    path: 'M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20Zm4.6 14.43a.62.62 0 0 1-.86.2c-2.35-1.43-5.3-1.76-8.79-.96a.62.62 0 1 1-.28-1.21c3.81-.87 7.09-.5 9.72 1.11.3.18.39.57.2.86Zm1.22-2.72a.78.78 0 0 1-1.07.26c-2.69-1.66-6.8-2.14-9.98-1.17a.78.78 0 1 1-.45-1.5c3.64-1.1 8.16-.57 11.24 1.33.37.22.48.71.26 1.08Zm.1-2.83C14.7 8.97 9.38 8.8 6.3 9.73a.94.94 0 1 1-.54-1.8c3.53-1.07 9.4-.86 13.1 1.34a.94.94 0 0 1-.95 1.61Z',
  },
  facebook: {
    color: '#1877F2',
    path: 'M22 12a10 10 0 1 0-11.56 9.88v-6.99H7.9V12h2.54V9.8c0-2.5 1.5-3.9 3.77-3.9 1.1 0 2.24.2 2.24.2v2.47h-1.26c-1.24 0-1.63.77-1.63 1.56V12h2.78l-.45 2.89h-2.33v6.99A10 10 0 0 0 22 12Z',
  },
  discord: {
    color: '#5865F2',
    path: 'M19.3 5.3A16.5 16.5 0 0 0 15.2 4l-.2.4c1.5.4 2.2.9 2.2.9a13.6 13.6 0 0 0-10.4 0s.7-.5 2.3-.9L8.8 4a16.5 16.5 0 0 0-4.1 1.3C2.1 9.2 1.4 13 1.7 16.7A16.6 16.6 0 0 0 6.8 19.3l1.1-1.7c-.6-.2-1.2-.5-1.7-.9l.4-.3a11.8 11.8 0 0 0 10.8 0l.4.3c-.5.4-1.1.7-1.7.9l1.1 1.7a16.5 16.5 0 0 0 5.1-2.6c.4-4.3-.7-8-3-11.4ZM8.9 14.5c-1 0-1.8-.9-1.8-2s.8-2 1.8-2 1.8.9 1.8 2-.8 2-1.8 2Zm6.2 0c-1 0-1.8-.9-1.8-2s.8-2 1.8-2 1.8.9 1.8 2-.8 2-1.8 2Z',
  },
  gitlab: {
    color: '#FC6D26',
    path: 'm12 21.4 3.7-11.3H8.3L12 21.4ZM3.1 10.1l-1 3.1c-.1.3 0 .6.2.8L12 21.4 3.1 10.1Zm0 0h5.2L6 3.2a.4.4 0 0 0-.7 0l-2.2 6.9Zm17.8 0 1 3.1c.1.3 0 .6-.2.8L12 21.4l8.9-11.3Zm0 0h-5.2L18 3.2a.4.4 0 0 1 .7 0l2.2 6.9Z',
  },
  bitbucket: {
    color: '#2684FF',
    path: 'M2.7 3a.7.7 0 0 0-.7.8l2.9 17.4c.1.5.5.8.9.8h12.5c.4 0 .7-.2.7-.6L21.9 3.8a.7.7 0 0 0-.7-.8H2.7Zm11.5 12.6h-4.4L8.6 9.4h6.8l-1.2 6.2Z',
  },
  linkedin: {
    color: '#0A66C2',
    path: 'M20.45 20.45h-3.56v-5.57c0-1.33-.02-3.04-1.85-3.04-1.85 0-2.14 1.45-2.14 2.94v5.67H9.35V9h3.41v1.56h.05c.48-.9 1.64-1.85 3.37-1.85 3.6 0 4.27 2.37 4.27 5.46v6.28ZM5.34 7.43a2.06 2.06 0 1 1 0-4.13 2.06 2.06 0 0 1 0 4.13ZM7.12 20.45H3.56V9h3.56v11.45ZM22.22 0H1.77C.79 0 0 .77 0 1.73v20.54C0 23.23.79 24 1.77 24h20.45c.98 0 1.78-.77 1.78-1.73V1.73C24 .77 23.2 0 22.22 0Z',
  },
  apple: {
    color: 'currentColor',
    path: 'M16.4 12.6c0-2.5 2-3.7 2.1-3.8a4.6 4.6 0 0 0-3.6-2c-1.5-.2-3 .9-3.7.9-.8 0-2-.9-3.2-.8-1.7 0-3.2 1-4 2.4-1.7 3-.5 7.4 1.2 9.8.8 1.2 1.8 2.5 3 2.5 1.2-.1 1.7-.8 3.2-.8s1.9.8 3.2.8c1.3 0 2.2-1.2 3-2.4a10 10 0 0 0 1.4-2.8c-.1 0-2.6-1-2.6-3.8ZM14 5.2c.7-.8 1.1-1.9 1-3-1 0-2.1.6-2.8 1.4-.6.7-1.2 1.8-1 2.9 1 .1 2.1-.5 2.8-1.3Z',
  },
  x: {
    color: 'currentColor',
    path: 'M17.75 3h3.07l-6.7 7.66L22 21h-6.17l-4.83-6.32L5.47 21H2.4l7.17-8.2L2 3h6.33l4.37 5.77L17.75 3Zm-1.08 16.2h1.7L7.4 4.73H5.58l11.1 14.47Z',
  },
  twitch: {
    color: '#9146FF',
    path: 'M4.3 2 3 5.4v13.5h4.6V22h2.6l3-3.1h3.8L22 13.9V2H4.3Zm15.9 11-2.9 2.9h-4.6l-2.5 2.5v-2.5H6.4V3.8h13.8V13Zm-2.8-5.8h-1.8v5.1h1.8V7.2Zm-4.9 0h-1.8v5.1h1.8V7.2Z',
  },
};

/** A provider's mark (decorative; a generic key for an unknown provider). */
export function OAuthProviderIcon({ id, size = 18 }: { id: string; size?: number }): ReactNode {
  const icon = ICONS[id] ?? {
    color: 'currentColor',
    path: 'M12.65 10A6 6 0 1 0 7 18a6 6 0 0 0 5.65-4H17v4h4v-4h2v-4H12.65ZM7 14a2 2 0 1 1 0-4 2 2 0 0 1 0 4Z',
  };
  return (
    <svg className="latch-oauth-icon" width={size} height={size} viewBox="0 0 24 24" aria-hidden="true" focusable="false" fill={icon.color}>
      <path d={icon.path} />
    </svg>
  );
}

/**
 * The project's OAuth providers as sign-in (or sign-up) buttons; nothing when none is enabled.
 *
 * @example
 * <OAuthButtons kind="sign-in" />
 */
export function OAuthButtons({ kind }: { kind: 'sign-in' | 'sign-up' }) {
  const app = useApp();
  const project = useProject();
  const { urls } = useLatchContext();
  const { search } = usePageLocation();
  const [pending, setPending] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const providers = project.config.enabled_oauth_providers;
  if (providers.length === 0) return null;

  const start = async (id: string) => {
    setPending(id);
    setError(null);
    try {
      await app.signInWithOAuth(id, { callbackUrl: absoluteUrl(withReturnTo(urls.oauthCallback, readReturnTo(search))) });
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setPending(null);
    }
  };

  const verb = kind === 'sign-up' ? 'Sign up' : 'Sign in';
  return (
    <div className="latch-oauth" role="group" aria-label={`${verb} with a provider`}>
      {providers.map(({ id }) => (
        <Button key={id} variant="secondary" block loading={pending === id} disabled={pending !== null} onClick={() => void start(id)}>
          <OAuthProviderIcon id={id} />
          {`${verb} with ${oauthProviderName(id)}`}
        </Button>
      ))}
      {error ? <Alert kind="error">{error}</Alert> : null}
    </div>
  );
}
