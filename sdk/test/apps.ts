import type { ProjectFixture } from '../../server/test/harness.js';
import { ClientApp } from '../client-app.js';
import type { ClientAppOptions } from '../core.js';

/** A ClientApp already signed in with a server-made session (no password hashing: fast). */
export function sessionClientApp(
  project: ProjectFixture,
  baseUrl: string,
  tokens: { access_token: string; refresh_token: string },
  urls?: ClientAppOptions['urls'],
): ClientApp {
  return new ClientApp({
    projectId: project.id,
    publishableClientKey: project.publishableClientKey,
    baseUrl,
    tokenStore: { accessToken: tokens.access_token, refreshToken: tokens.refresh_token },
    ...(urls ? { urls } : {}),
  });
}
