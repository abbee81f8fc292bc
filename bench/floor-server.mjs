// The FLOOR: a minimal node:http + pg server doing only the essential work of two Latch requests,
// on the same PostgreSQL database and rows, so Latch's figures can be read as a fraction of it.
//   GET  /users/me                        verify the ES256 access token (jose, Latch's public key from
//                                         its JWKS), one primary-key SELECT, JSON out.
//   POST /auth/sessions/current/refresh   one indexed lookup by refresh-token hash (joined to the
//                                         user, whose claims go in the token), one ES256 sign.
//   POST /auth/password/sign-in           the user by sign-in email (Latch's lookup), one argon2id
//                                         verification (@node-rs/argon2 on libuv's pool, as Latch),
//                                         one session insert, one ES256 sign: the floor under
//                                         Latch's sign-in, for its ratio to the argon2id ceiling.
// No framework, no validation layer, no project/key check, no error catalogue: a floor, not a product.
// Env: DATABASE_URL, FLOOR_JWKS (JSON), FLOOR_TENANCY_ID, FLOOR_PROJECT_ID, PORT (0 = any),
// DATABASE_POOL_SIZE (default 20, as Latch), FLOOR_NAMED_STATEMENTS=1 (run both queries as named
// prepared statements, parsed and planned once per connection, as Latch does). Prints "floor listening on <port>".
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import { SignJWT, generateKeyPair, importJWK, jwtVerify } from 'jose';
import pg from 'pg';
import { verify } from '@node-rs/argon2';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DATABASE_POOL_SIZE ?? 20) });
pool.on('error', (error) => console.error('pool error', error.message));
const tenancyId = process.env.FLOOR_TENANCY_ID;
const named = process.env.FLOOR_NAMED_STATEMENTS === '1';
const query = (name, text, values) => pool.query(named ? { name, text, values } : { text, values });
const projectId = process.env.FLOOR_PROJECT_ID;
const jwks = JSON.parse(process.env.FLOOR_JWKS ?? '{"keys":[]}');
const verifyKeys = new Map();
for (const jwk of jwks.keys) verifyKeys.set(jwk.kid, await importJWK(jwk, 'ES256'));
// The floor signs with its own ES256 key: the same algorithm and cost as Latch's signing key.
const { privateKey } = await generateKeyPair('ES256');
const signKid = randomUUID();

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function userJson(u) {
  return {
    id: u.id,
    display_name: u.display_name,
    primary_email: u.primary_email,
    primary_email_verified: u.primary_email_verified,
    auth_with_email: u.auth_with_email,
    profile_image_url: u.profile_image_url,
    signed_up_at_millis: u.signed_up_at.getTime(),
    client_metadata: u.client_metadata,
    client_read_only_metadata: u.client_read_only_metadata,
    has_password: u.password_hash !== null,
    otp_auth_enabled: u.otp_auth_enabled,
    passkey_auth_enabled: u.passkey_auth_enabled,
    requires_totp_mfa: u.requires_totp_mfa,
    oauth_providers: [],
    selected_team_id: u.selected_team_id,
    is_anonymous: u.is_anonymous,
  };
}

async function me(req, res) {
  const token = req.headers['x-latch-access-token'];
  let claims;
  try {
    ({ payload: claims } = await jwtVerify(
      String(token),
      (header) => {
        const key = verifyKeys.get(header.kid);
        if (!key) throw new Error('unknown kid');
        return key;
      },
      { algorithms: ['ES256'] },
    ));
  } catch {
    return send(res, 401, { code: 'UNPARSABLE_ACCESS_TOKEN' });
  }
  const { rows } = await query('floor_me', 'SELECT * FROM users WHERE tenancy_id = $1 AND id = $2', [tenancyId, claims.sub]);
  if (!rows[0]) return send(res, 404, { code: 'USER_NOT_FOUND' });
  send(res, 200, userJson(rows[0]));
}

async function refresh(req, res) {
  req.resume(); // the body ({}) is not needed
  const token = req.headers['x-latch-refresh-token'];
  if (!token) return send(res, 401, { code: 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED' });
  const hash = createHash('sha256').update(String(token)).digest('hex');
  const { rows } = await query(
    'floor_refresh',
    `SELECT u.*, s.id AS session_id FROM sessions s JOIN users u ON u.tenancy_id = s.tenancy_id AND u.id = s.user_id
     WHERE s.refresh_token_hash = $1 AND (s.expires_at IS NULL OR s.expires_at > now())`,
    [hash],
  );
  const u = rows[0];
  if (!u) return send(res, 401, { code: 'REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED' });
  send(res, 200, { access_token: await accessTokenFor(u, u.session_id) });
}

function accessTokenFor(u, sessionId) {
  return new SignJWT({
    project_id: projectId,
    branch_id: 'main',
    refresh_token_id: sessionId,
    role: 'authenticated',
    name: u.display_name,
    email: u.primary_email,
    email_verified: u.primary_email_verified,
    selected_team_id: u.selected_team_id,
    is_anonymous: u.is_anonymous,
  })
    .setProtectedHeader({ alg: 'ES256', kid: signKid, typ: 'JWT' })
    .setSubject(u.id)
    .setIssuer(`http://127.0.0.1/api/v1/projects/${projectId}`)
    .setAudience(projectId)
    .setIssuedAt()
    .setExpirationTime('600s')
    .sign(privateKey);
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function signIn(req, res) {
  let body;
  try {
    body = JSON.parse(await readBody(req));
  } catch {
    return send(res, 400, { code: 'SCHEMA_ERROR' });
  }
  const { rows } = await query(
    'floor_sign_in_user',
    `SELECT u.id, u.password_hash, u.display_name, u.primary_email, u.primary_email_verified, u.selected_team_id, u.is_anonymous
     FROM contact_channels c JOIN users u ON u.tenancy_id = c.tenancy_id AND u.id = c.user_id
     WHERE c.tenancy_id = $1 AND c.type = 'email' AND lower(c.value) = $2 AND c.used_for_auth = true
     ORDER BY c.is_verified DESC, c.created_at DESC, c.id DESC LIMIT 1`,
    [tenancyId, String(body.email).toLowerCase()],
  );
  const u = rows[0];
  if (!u?.password_hash || !(await verify(u.password_hash, String(body.password)))) return send(res, 400, { code: 'EMAIL_PASSWORD_MISMATCH' });
  const refreshToken = randomBytes(32).toString('base64url');
  const sessionId = randomUUID();
  await query(
    'floor_session_insert',
    `INSERT INTO sessions (tenancy_id, id, user_id, refresh_token_hash, expires_at) VALUES ($1, $2, $3, $4, now() + interval '365 days')`,
    [tenancyId, sessionId, u.id, createHash('sha256').update(refreshToken).digest('hex')],
  );
  send(res, 200, { access_token: await accessTokenFor(u, sessionId), refresh_token: refreshToken, user_id: u.id });
}

const server = http.createServer((req, res) => {
  const path = req.url?.split('?')[0];
  const handler =
    req.method === 'GET' && path === '/users/me'
      ? me
      : req.method === 'POST' && path === '/auth/sessions/current/refresh'
        ? refresh
        : req.method === 'POST' && path === '/auth/password/sign-in'
          ? signIn
          : req.method === 'GET' && path === '/health'
            ? (_q, r) => send(r, 200, { status: 'ok' })
            : null;
  if (!handler) return send(res, 404, { code: 'ROUTE_NOT_FOUND' });
  Promise.resolve(handler(req, res)).catch((error) => {
    console.error(error);
    if (!res.headersSent) send(res, 500, { code: 'INTERNAL' });
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => console.log(`floor listening on ${server.address().port}`));
const stop = () => {
  server.close(() => pool.end().then(() => process.exit(0)));
  server.closeIdleConnections();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
