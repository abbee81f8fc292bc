/**
 * The provider zoo: one node:http server that speaks each OAuth provider's own JSON (GitHub's
 * /user + /user/emails, Graph /me, Helix /users with its Client-Id header, Apple's form_post and
 * ES256 client secret, Google's signed ID token, …) under a prefix per provider, so each
 * provider's parsing is tested, not a generic mock's. `overrides()` is the value for
 * LatchEnv.oauth.endpointOverrides. Errors on demand with `failNext`.
 *
 * The authorize endpoint approves at once (the signed-in zoo user is `setUser(provider, …)`) and
 * redirects back with code, state and, where the provider sends it, the RFC 9207 `iss`.
 */
import { createHash, generateKeyPairSync, randomBytes, sign as signBytes } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { type JWK, SignJWT, exportJWK, generateKeyPair, jwtVerify, importJWK } from 'jose';
import { OAUTH_PROVIDER_IDS, type OAuthProviderId } from '../../contract/config/oauth.js';

export interface ZooUser {
  id: string;
  email?: string | null;
  emailVerified?: boolean;
  name?: string;
}

export type ZooFailure =
  | 'access_denied'
  | 'invalid_grant'
  | 'userinfo_429'
  | 'userinfo_500'
  | 'userinfo_429_always'
  | 'iss_missing'
  | 'iss_wrong'
  | 'refresh_invalid_grant'
  | 'wrong_nonce';

/** The issuers the providers really use (GitHub's since RFC 9207 support, 2026). */
const ISSUERS: Partial<Record<OAuthProviderId, string>> = {
  github: 'https://github.com/login/oauth',
  google: 'https://accounts.google.com',
  apple: 'https://appleid.apple.com',
};

interface Grant {
  provider: OAuthProviderId;
  clientId: string;
  redirectUri: string;
  codeChallenge: string | null;
  nonce: string | null;
  scope: string;
  user: ZooUser;
}

interface Issued {
  provider: OAuthProviderId;
  user: ZooUser;
  scope: string;
  clientId: string;
}

export interface Zoo {
  url: string;
  overrides(): Record<string, Record<string, string>>;
  /** The client credentials the zoo accepts, per provider (what the project or env configures). */
  clients: Record<string, { clientId: string; clientSecret: string }>;
  setUser(provider: OAuthProviderId, user: ZooUser): void;
  failNext(provider: OAuthProviderId, failure: ZooFailure, times?: number): void;
  /**
   * How the next ID tokens are made (reset it to `{}` after use): `expOffsetSeconds` sets exp that
   * many seconds from now (negative: expired that long ago, iat ten minutes before); `weakRsaKey`
   * signs with a 1024-bit RSA key that the JWKS publishes too.
   */
  idTokenOptions: { expOffsetSeconds?: number; weakRsaKey?: boolean };
  /** Refresh tokens rotate on every refresh (the old one dies). */
  rotateRefreshTokens: boolean;
  /** Revokes every refresh token issued so far (the user removed the app at the provider). */
  revokeRefreshTokens(): void;
  /** Requests the zoo saw, for assertions (method, path, headers, body). */
  requests: { provider: string; path: string; headers: IncomingMessage['headers']; body: string }[];
  /** When each request arrived and was answered (performance.now()), for timing Latch without the provider. */
  timings: { path: string; start: number; end: number }[];
  /** Apple's developer key: the client secret JSON the project stores. */
  appleClientSecret: string;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function profileFor(provider: OAuthProviderId, path: string, user: ZooUser): unknown {
  const email = user.email ?? null;
  const verified = user.emailVerified ?? true;
  switch (provider) {
    case 'github':
      if (path.endsWith('/user/emails'))
        return email
          ? [
              { email: `other-${email}`, primary: false, verified: true, visibility: null },
              { email, primary: true, verified, visibility: 'private' },
            ]
          : [];
      return {
        login: `gh-${user.id}`,
        id: Number(user.id.replace(/\D/g, '') || 1),
        name: user.name ?? null,
        email: null,
        avatar_url: `https://avatars.example/${user.id}`,
      };
    case 'microsoft':
      return { id: user.id, displayName: user.name ?? null, mail: email, userPrincipalName: email ?? `${user.id}@contoso.onmicrosoft.com` };
    case 'spotify':
      return { id: user.id, display_name: user.name ?? null, email, images: [{ url: `https://i.scdn.example/${user.id}`, height: 300, width: 300 }] };
    case 'facebook':
      return { id: user.id, name: user.name ?? null, ...(email && verified ? { email } : {}), picture: { data: { url: `https://fb.example/${user.id}.jpg` } } };
    case 'discord':
      return { id: user.id, username: `d-${user.id}`, global_name: user.name ?? null, avatar: 'abc123', email, verified };
    case 'gitlab':
      return {
        id: Number(user.id.replace(/\D/g, '') || 1),
        username: `gl-${user.id}`,
        name: user.name ?? null,
        email,
        avatar_url: null,
        confirmed_at: verified ? '2024-01-01T00:00:00Z' : null,
      };
    case 'bitbucket':
      if (path.endsWith('/user/emails')) return { values: email ? [{ email, is_primary: true, is_confirmed: verified, type: 'email' }] : [] };
      return { uuid: `{${user.id}}`, account_id: user.id, display_name: user.name ?? null, links: { avatar: { href: `https://bb.example/${user.id}` } } };
    case 'linkedin':
      return { sub: user.id, name: user.name ?? null, email, email_verified: verified, picture: null };
    case 'x':
      return { data: { id: user.id, name: user.name ?? 'X user', username: `x_${user.id}`, profile_image_url: `https://pbs.example/${user.id}` } };
    case 'twitch':
      return {
        data: [
          { id: user.id, login: `t_${user.id}`, display_name: user.name ?? `t_${user.id}`, ...(email && verified ? { email } : {}), profile_image_url: null },
        ],
      };
    default:
      return {};
  }
}

/** The profile path of each provider under its API prefix. */
const PROFILE_PATHS: Record<string, RegExp> = {
  github: /^\/github\/api\/user(\/emails)?$/,
  microsoft: /^\/microsoft\/graph\/v1\.0\/me$/,
  spotify: /^\/spotify\/api\/v1\/me$/,
  facebook: /^\/facebook\/graph\/me$/,
  discord: /^\/discord\/api\/users\/@me$/,
  gitlab: /^\/gitlab\/api\/v4\/user$/,
  bitbucket: /^\/bitbucket\/api\/2\.0\/user(\/emails)?$/,
  linkedin: /^\/linkedin\/v2\/userinfo$/,
  x: /^\/x\/api\/2\/users\/me$/,
  twitch: /^\/twitch\/helix\/users$/,
};

export async function startZoo(): Promise<Zoo> {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { modulusLength: 2048 });
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'zoo-1', alg: 'RS256', use: 'sig' };
  // A key below the spec's 2048-bit minimum, published beside the good one, for the weak-key test.
  // jose refuses to make or use one, so node:crypto makes it and signs by hand.
  const weak = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const weakJwk: JWK = { ...(await exportJWK(weak.publicKey)), kid: 'zoo-weak', alg: 'RS256', use: 'sig' };
  const apple = await generateKeyPair('ES256', { extractable: true });
  const applePkcs8 = (await import('jose')).exportPKCS8(apple.privateKey);
  const applePublic = await exportJWK(apple.publicKey);

  const grants = new Map<string, Grant>();
  const accessTokens = new Map<string, Issued>();
  const refreshTokens = new Map<string, Issued>();
  const users = new Map<string, ZooUser>();
  const failures = new Map<string, ZooFailure[]>();
  const requests: Zoo['requests'] = [];
  const clients: Zoo['clients'] = {};
  const providers: readonly OAuthProviderId[] = OAUTH_PROVIDER_IDS;
  for (const p of providers) clients[p] = { clientId: `${p}-client-id`, clientSecret: `${p}-client-secret-${randomBytes(6).toString('hex')}` };

  const take = (provider: string, failure: ZooFailure): boolean => {
    const list = failures.get(provider) ?? [];
    const index = list.indexOf(failure);
    if (index < 0) return false;
    list.splice(index, 1);
    return true;
  };
  const has = (provider: string, failure: ZooFailure) => (failures.get(provider) ?? []).includes(failure);

  let url = '';
  const state: { rotate: boolean; idToken: Zoo['idTokenOptions'] } = { rotate: false, idToken: {} };

  async function checkClient(provider: OAuthProviderId, req: IncomingMessage, form: URLSearchParams): Promise<string | null> {
    let clientId = form.get('client_id');
    let clientSecret = form.get('client_secret');
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
    if (basic) {
      const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      clientId = decodeURIComponent(decoded.slice(0, colon));
      clientSecret = decodeURIComponent(decoded.slice(colon + 1));
    }
    const expected = clients[provider]!;
    if (clientId !== expected.clientId) return null;
    if (provider === 'apple') {
      // Apple's client secret is an ES256 JWT: iss team id, sub the client id, aud Apple.
      try {
        const { payload } = await jwtVerify(clientSecret ?? '', await importJWK(applePublic, 'ES256'), {
          issuer: 'ZOOTEAM01',
          subject: expected.clientId,
          audience: 'https://appleid.apple.com',
        });
        return payload.sub ?? null;
      } catch {
        return null;
      }
    }
    return clientSecret === expected.clientSecret ? clientId : null;
  }

  async function idToken(provider: OAuthProviderId, grant: Grant): Promise<string> {
    const user = grant.user;
    const offset = state.idToken.expOffsetSeconds;
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      ...(user.email ? { email: user.email, email_verified: provider === 'apple' ? String(user.emailVerified ?? true) : (user.emailVerified ?? true) } : {}),
      ...(user.name && provider === 'google' ? { name: user.name, picture: `https://lh3.example/${user.id}` } : {}),
      ...(grant.nonce ? { nonce: has(provider, 'wrong_nonce') && take(provider, 'wrong_nonce') ? 'not-the-nonce' : grant.nonce } : {}),
    };
    const iat = offset === undefined ? now : now - 600;
    const exp = offset === undefined ? now + 600 : now + offset;
    if (state.idToken.weakRsaKey) {
      const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const payload = { ...claims, iss: ISSUERS[provider]!, sub: user.id, aud: grant.clientId, iat, exp };
      const input = `${part({ alg: 'RS256', kid: 'zoo-weak' })}.${part(payload)}`;
      return `${input}.${signBytes('sha256', Buffer.from(input), weak.privateKey).toString('base64url')}`;
    }
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'zoo-1' })
      .setIssuer(ISSUERS[provider]!)
      .setSubject(user.id)
      .setAudience(grant.clientId)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(privateKey);
  }

  const timings: Zoo['timings'] = [];
  const server: Server = createServer((req, res) => {
    const start = performance.now();
    res.once('finish', () => timings.push({ path: req.url ?? '', start, end: performance.now() }));
    void (async () => {
      const full = new URL(req.url ?? '/', url);
      const provider = (full.pathname.split('/')[1] ?? '') as OAuthProviderId;
      const body = await readBody(req);
      requests.push({ provider, path: full.pathname, headers: req.headers, body });

      if (full.pathname === `/${provider}/jwks`) return json(res, 200, { keys: [jwk, weakJwk] });

      if (full.pathname === `/${provider}/authorize`) {
        const q = full.searchParams;
        const redirectUri = q.get('redirect_uri') ?? '';
        const back = new URL(redirectUri);
        const user = users.get(provider);
        if (take(provider, 'access_denied') || !user) {
          back.searchParams.set('error', 'access_denied');
          back.searchParams.set('state', q.get('state') ?? '');
          res.writeHead(302, { location: back.toString() });
          return res.end();
        }
        if (q.get('client_id') !== clients[provider]!.clientId) return json(res, 400, { error: 'invalid_client' });
        const code = randomBytes(16).toString('hex');
        grants.set(code, {
          provider,
          clientId: q.get('client_id')!,
          redirectUri,
          codeChallenge: q.get('code_challenge'),
          nonce: q.get('nonce'),
          scope: q.get('scope') ?? '',
          user,
        });
        const params: Record<string, string> = { code, state: q.get('state') ?? '' };
        const issuer = ISSUERS[provider];
        if (issuer && provider === 'github' && !take(provider, 'iss_missing')) params.iss = take(provider, 'iss_wrong') ? 'https://evil.example' : issuer;
        if (q.get('response_mode') === 'form_post') {
          if (user.name) params.user = JSON.stringify({ name: { firstName: user.name.split(' ')[0], lastName: user.name.split(' ').slice(1).join(' ') } });
          res.writeHead(200, { 'content-type': 'text/html' });
          return res.end(
            `<form method="post" action="${redirectUri}">` +
              Object.entries(params)
                .map(([k, v]) => `<input type="hidden" name="${k}" value="${v.replace(/"/g, '&quot;')}">`)
                .join('') +
              `</form>`,
          );
        }
        for (const [k, v] of Object.entries(params)) back.searchParams.set(k, v);
        res.writeHead(302, { location: back.toString() });
        return res.end();
      }

      if (full.pathname === `/${provider}/token` && req.method === 'POST') {
        const form = new URLSearchParams(body);
        const clientId = await checkClient(provider, req, form);
        if (!clientId) return json(res, 401, { error: 'invalid_client' });
        if (form.get('grant_type') === 'authorization_code') {
          const grant = grants.get(form.get('code') ?? '');
          grants.delete(form.get('code') ?? '');
          if (!grant || take(provider, 'invalid_grant') || grant.redirectUri !== form.get('redirect_uri'))
            return json(res, 400, { error: 'invalid_grant', error_description: 'bad code' });
          if (grant.codeChallenge) {
            const verifier = form.get('code_verifier') ?? '';
            if (createHash('sha256').update(verifier).digest('base64url') !== grant.codeChallenge)
              return json(res, 400, { error: 'invalid_grant', error_description: 'PKCE' });
          } else if (form.get('code_verifier')) {
            return json(res, 400, { error: 'invalid_request', error_description: 'no PKCE was started' });
          }
          const access = `zoo_at_${randomBytes(16).toString('hex')}`;
          const refresh = `zoo_rt_${randomBytes(16).toString('hex')}`;
          const issued: Issued = { provider, user: grant.user, scope: grant.scope, clientId };
          accessTokens.set(access, issued);
          refreshTokens.set(refresh, issued);
          const scope = provider === 'github' ? grant.scope.split(' ').join(',') : grant.scope;
          return json(res, 200, {
            access_token: access,
            token_type: provider === 'github' ? 'bearer' : 'Bearer',
            expires_in: 3600,
            refresh_token: refresh,
            scope,
            ...(provider === 'google' || provider === 'apple' ? { id_token: await idToken(provider, grant) } : {}),
          });
        }
        if (form.get('grant_type') === 'refresh_token') {
          const old = form.get('refresh_token') ?? '';
          const issued = refreshTokens.get(old);
          if (!issued || take(provider, 'refresh_invalid_grant')) return json(res, 400, { error: 'invalid_grant', error_description: 'refresh token revoked' });
          const access = `zoo_at_${randomBytes(16).toString('hex')}`;
          accessTokens.set(access, issued);
          let refresh: string | undefined;
          if (state.rotate) {
            refreshTokens.delete(old);
            refresh = `zoo_rt_${randomBytes(16).toString('hex')}`;
            refreshTokens.set(refresh, issued);
          }
          return json(res, 200, {
            access_token: access,
            token_type: 'Bearer',
            expires_in: 3600,
            scope: issued.scope,
            ...(refresh ? { refresh_token: refresh } : {}),
          });
        }
        return json(res, 400, { error: 'unsupported_grant_type' });
      }

      const pattern = PROFILE_PATHS[provider];
      if (pattern?.test(full.pathname)) {
        if (take(provider, 'userinfo_429') || has(provider, 'userinfo_429_always')) return json(res, 429, { message: 'slow down' }, { 'retry-after': '1' });
        if (take(provider, 'userinfo_500')) return json(res, 500, { message: 'oops' });
        const token = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
        const issued = token ? accessTokens.get(token) : undefined;
        if (!issued || issued.provider !== provider) return json(res, 401, { message: 'Bad credentials' });
        if (provider === 'twitch' && req.headers['client-id'] !== issued.clientId)
          return json(res, 401, { error: 'Unauthorized', message: 'Client ID and OAuth token do not match' });
        return json(res, 200, profileFor(provider, full.pathname, issued.user));
      }
      json(res, 404, { error: 'not_found', path: full.pathname });
    })().catch((error: unknown) => json(res, 500, { error: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

  const appleSecret = JSON.stringify({ team_id: 'ZOOTEAM01', key_id: 'ZOOKEY01', private_key: await applePkcs8 });

  return {
    url,
    clients,
    requests,
    timings,
    appleClientSecret: appleSecret,
    get rotateRefreshTokens() {
      return state.rotate;
    },
    set rotateRefreshTokens(value: boolean) {
      state.rotate = value;
    },
    get idTokenOptions() {
      return state.idToken;
    },
    set idTokenOptions(value: Zoo['idTokenOptions']) {
      state.idToken = value;
    },
    revokeRefreshTokens() {
      refreshTokens.clear();
    },
    overrides() {
      const base = (p: string) => ({ authorizationEndpoint: `${url}/${p}/authorize`, tokenEndpoint: `${url}/${p}/token` });
      return {
        google: { ...base('google'), jwksUri: `${url}/google/jwks` },
        github: { ...base('github'), apiBase: `${url}/github/api` },
        microsoft: { ...base('microsoft'), apiBase: `${url}/microsoft/graph` },
        spotify: { ...base('spotify'), apiBase: `${url}/spotify/api` },
        facebook: { ...base('facebook'), apiBase: `${url}/facebook/graph` },
        discord: { ...base('discord'), apiBase: `${url}/discord/api` },
        gitlab: { ...base('gitlab'), apiBase: `${url}/gitlab/api/v4` },
        bitbucket: { ...base('bitbucket'), apiBase: `${url}/bitbucket/api/2.0` },
        linkedin: { ...base('linkedin'), userinfoEndpoint: `${url}/linkedin/v2/userinfo` },
        apple: { ...base('apple'), jwksUri: `${url}/apple/jwks` },
        x: { ...base('x'), apiBase: `${url}/x/api` },
        twitch: { ...base('twitch'), apiBase: `${url}/twitch/helix` },
      };
    },
    setUser(provider, user) {
      users.set(provider, user);
    },
    failNext(provider, failure, times = 1) {
      const list = failures.get(provider) ?? [];
      for (let i = 0; i < times; i++) list.push(failure);
      failures.set(provider, list);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
