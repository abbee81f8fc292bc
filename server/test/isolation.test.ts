import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knownErrorsByCode } from '../../contract/errors/known-errors.js';
import { type ApiResponse, type CallOptions, type Harness, type Headers_, type ProjectFixture, type UserSession, startHarness } from './harness.js';
import { ok, openApiOperations, pool } from './sweep.js';

/**
 * Tenant isolation, for every operation of the committed openapi.json (so a new endpoint is covered
 * the day it is added). Project A holds the data under attack: users U1 and U2, a key set, a
 * config. Project B is the attacker's, with its own keys, owner and user. Every operation is aimed
 * at A's data and sent with every credential that is not entitled to it; afterwards A must be
 * exactly as it was.
 *
 * A request "aimed at A" fills path parameters with A's ids (pathParams), query parameters with
 * A's (queryParams) and the body from BODIES (else {}). A new endpoint needs nothing to be
 * covered; mapping its parameters and body here aims it at real data of A. One whose body {} does
 * not fit fails the matrix (SCHEMA_ERROR: refused by validation, so the callers who may pass
 * authorization never reached it) until BODIES maps it.
 */

const OPENAPI = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; requestBody?: unknown }>>;
};

/** Operations anyone may call (no credential at all): a 2xx is fine if it carries no secret of A. */
const PUBLIC_OPERATIONS = new Set(['GET /projects/{project_id}/.well-known/jwks.json']);

/** Requests in flight at once: PGlite has one connection, so more only queues. */
const CONCURRENCY = 8;

interface Operation {
  key: string;
  method: string;
  path: string;
  queryParams: string[];
  hasBody: boolean;
}

/**
 * Who is calling. `foreign`: a credential presented to project A that is not A's (must always be
 * refused, except on public operations). `own`: a valid credential acting in its own scope (B's
 * project, the internal project, or U2 inside A) with A's ids in the request: it may succeed on
 * its own data, but never reveal or touch A's.
 */
interface Caller {
  name: string;
  scope: 'foreign' | 'own';
  headers: Headers_;
  /** Strings that must never appear in a successful response to this caller. */
  secrets: string[];
  projectId?: string;
  publishableKey?: string;
  refreshToken?: string;
  /** The password this caller tries for U1 on sign-in (U2 is in A, so it must not know U1's). */
  u1Password: string;
}

interface Sent {
  op: Operation;
  caller: Caller;
  url: string;
  options: CallOptions;
  res: ApiResponse;
}

let h: Harness;
let A: ProjectFixture;
let B: ProjectFixture;
let U1: UserSession;
let U2: UserSession;
let BU: UserSession;
let u1SessionId: string;
let aKeySetId: string;
let bOwnerTeamId: string;
/** A's team of U1 alone (U2 is not a member), its API key, an invitation, U1's API key, and custom permissions. */
let t1: string;
let t1ApiKey: { id: string; value: string };
let u1ApiKey: { id: string; value: string };
let invitationId: string;
/** U1's primary email channel, and the invitation email A queued. */
let u1ChannelId: string;
let aEmailId: string;
/** An owner-defined notification category of A (a built-in one cannot be deleted by anyone). */
let aCategoryId: string;
let aWorkflowTokenId: string;
const RANDOM = Math.random().toString(36).slice(2);
/** An AI chat thread id of A's (the chat is off in this server, so nothing is ever stored under it). */
const A_THREAD = randomUUID();
const U1_MARKER = `u1-server-secret-${RANDOM}`;
const A_NAME = `Project A ${RANDOM}`;
const T1_NAME = `Team A1 ${RANDOM}`;
const PROJECT_PERMISSION = `a_project_perm_${RANDOM}`;
const TEAM_PERMISSION = `a_team_perm_${RANDOM}`;
const INVITEE = `invitee-${RANDOM}@example.com`;

function operations(): Operation[] {
  return openApiOperations(OPENAPI.paths).map(({ spec, ...op }) => ({
    ...op,
    queryParams: (spec.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
    hasBody: spec.requestBody !== undefined,
  }));
}

/** The id of A's data a parameter names; some names mean different things under different paths. */
function valueOfA(path: string, name: string): string | undefined {
  switch (name) {
    case 'user_id':
      return U1.userId;
    case 'team_id':
      return t1;
    case 'project_id':
      return A.id;
    case 'id':
      return u1SessionId;
    case 'invitation_id':
      return invitationId;
    case 'contact_channel_id':
      return u1ChannelId;
    case 'email_id':
      return aEmailId;
    case 'notification_category_id':
      // A's own category (can be disabled and deleted): a stranger's write would land on A's data.
      return aCategoryId;
    case 'thread_id':
      return A_THREAD;
    // Built-in ids every project has: a stranger reaches its own copy, never A's edit.
    case 'theme_id':
      return '1a7c0000-0000-4000-8000-000000000001';
    case 'template_id':
      return '1a7c0001-0000-4000-8000-000000000001';
    case 'draft_id':
      return '00000000-0000-4000-8000-000000000000';
    case 'query':
      return U1.email;
    case 'customer_type':
      return 'user';
    case 'customer_id':
      return U1.userId;
    case 'item_id':
      return 'credits';
    case 'api_key_id':
      if (path.startsWith('/user-api-keys')) return u1ApiKey.id;
      if (path.startsWith('/team-api-keys')) return t1ApiKey.id;
      return aKeySetId;
    case 'permission_id':
      return path.startsWith('/team-') ? TEAM_PERMISSION : PROJECT_PERMISSION;
    case 'token_id':
      return aWorkflowTokenId;
    default:
      return undefined;
  }
}

const BODIES: Record<string, (caller: Caller) => Record<string, unknown>> = {
  'POST /auth/password/sign-up': () => ({ email: h.uniqueEmail('probe'), password: 'probe-password-1' }),
  'POST /auth/password/sign-in': (c) => ({ email: U1.email, password: c.u1Password }),
  'POST /auth/password/update': () => ({ old_password: U1.password, new_password: 'pwned-password-1' }),
  'POST /auth/password/set': () => ({ password: 'pwned-password-1' }),
  'POST /auth/sessions': () => ({ user_id: U1.userId, is_impersonation: true }),
  'POST /auth/impersonation/codes': () => ({ user_id: U1.userId }),
  // A refresh token (B's user's by default) presented for the caller's project; foreign callers
  // present it to A with A's publishable key (which is public by design).
  'POST /auth/oauth/token': (c) => {
    const secret = c.publishableKey ?? (c.scope === 'foreign' ? A.publishableClientKey : undefined);
    return {
      grant_type: 'refresh_token',
      refresh_token: c.refreshToken ?? BU.refreshToken,
      client_id: c.projectId ?? A.id,
      ...(secret ? { client_secret: secret } : {}),
    };
  },
  'POST /internal/api-keys': () => ({ description: 'probe', has_publishable_client_key: true, has_secret_server_key: true, has_super_secret_admin_key: true }),
  'PATCH /internal/api-keys/{api_key_id}': () => ({ description: 'pwned', revoked: true }),
  'PATCH /internal/config/override': () => ({ config_override_string: JSON.stringify({ client_team_creation_enabled: true, sign_up_enabled: false }) }),
  'POST /internal/projects': () => ({ display_name: 'Probe project' }),
  'POST /internal/projects/{project_id}/owners/invitations': () => ({ email: h.uniqueEmail('probe-owner') }),
  'PATCH /internal/projects/current': () => ({ display_name: 'Pwned project', description: 'pwned' }),
  'POST /internal/projects/transfer': () => ({ project_id: A.id, new_team_id: bOwnerTeamId }),
  'POST /users': () => ({ primary_email: h.uniqueEmail('probe'), display_name: 'Probe user' }),
  'PATCH /users/{user_id}': () => ({ display_name: 'Pwned', client_metadata: { pwned: true } }),
  'PATCH /users/me': () => ({ display_name: 'Pwned', client_metadata: { pwned: true } }),
  'POST /teams': () => ({ display_name: 'Probe team', creator_user_id: U1.userId }),
  'PATCH /teams/{team_id}': () => ({ display_name: 'Pwned team', client_metadata: { pwned: true } }),
  'PATCH /team-member-profiles/{team_id}/{user_id}': () => ({ display_name: 'Pwned member' }),
  'POST /user-api-keys': () => ({ user_id: U1.userId, description: 'probe' }),
  'POST /team-api-keys': () => ({ team_id: t1, description: 'probe' }),
  'PATCH /user-api-keys/{api_key_id}': () => ({ description: 'pwned', revoked: true }),
  'PATCH /team-api-keys/{api_key_id}': () => ({ description: 'pwned', revoked: true }),
  'POST /user-api-keys/check': () => ({ api_key: u1ApiKey.value }),
  'POST /team-api-keys/check': () => ({ api_key: t1ApiKey.value }),
  'POST /team-invitations/send-code': () => ({ email: h.uniqueEmail('probe'), team_id: t1, callback_url: 'http://localhost:3000/accept' }),
  'POST /team-invitations/accept': () => ({ code: 'not-a-code-of-anyone' }),
  'POST /team-invitations/accept/check-code': () => ({ code: 'not-a-code-of-anyone' }),
  'POST /team-invitations/accept/details': () => ({ code: 'not-a-code-of-anyone' }),
  'POST /project-permission-definitions': () => ({ id: `probe_${Math.random().toString(36).slice(2)}` }),
  'POST /team-permission-definitions': () => ({ id: `probe_${Math.random().toString(36).slice(2)}` }),
  'PATCH /project-permission-definitions/{permission_id}': () => ({ description: 'pwned' }),
  'PATCH /team-permission-definitions/{permission_id}': () => ({ description: 'pwned' }),
  'POST /contact-channels': () => ({ user_id: U1.userId, type: 'email', value: h.uniqueEmail('probe'), used_for_auth: false }),
  'PATCH /contact-channels/{user_id}/{contact_channel_id}': () => ({ used_for_auth: false, is_primary: false }),
  'PATCH /passkeys/{user_id}/{passkey_id}': () => ({ name: 'Renamed by a stranger' }),
  'POST /emails/render-email': () => ({ template_tsx_source: 'export default function Email() { return <p>probe</p>; }' }),
  'POST /emails/send-email': () => ({ user_ids: [U1.userId], html: '<p>probe</p>', subject: 'Probe' }),
  'POST /internal/email-themes': () => ({ display_name: 'Probe theme' }),
  'PATCH /internal/email-themes/{theme_id}': () => ({ display_name: 'Pwned theme' }),
  'POST /internal/email-templates': () => ({ display_name: 'Probe template' }),
  'PATCH /internal/email-templates/{template_id}': () => ({ display_name: 'Pwned template' }),
  'POST /internal/email-drafts': () => ({ display_name: 'Probe draft' }),
  'PATCH /internal/email-drafts/{draft_id}': () => ({ display_name: 'Pwned draft' }),
  'POST /internal/payments/setup': () => ({ stripe_secret_key: 'sk_test_probe', stripe_webhook_secret: 'whsec_probe' }),
  'POST /payments/items/{customer_type}/{customer_id}/{item_id}/update-quantity': () => ({ delta: 5 }),
  'POST /payments/products/{customer_type}/{customer_id}': () => ({ product_id: 'pro' }),
  'POST /payments/billing-portal/{customer_type}/{customer_id}': () => ({ return_url: 'http://localhost:3000/account' }),
  'POST /payments/purchases/create-purchase-url': () => ({
    customer_type: 'user',
    customer_id: U1.userId,
    product_id: 'pro',
    return_url: 'http://localhost:3000/after-checkout',
  }),
  'PATCH /emails/notification-preference/{user_id}/{notification_category_id}': () => ({ enabled: false }),
  'POST /internal/notification-categories': () => ({ name: `Probe ${RANDOM}` }),
  'POST /internal/ai-chat/{thread_id}': () => ({ context_type: 'email-template', messages: [{ role: 'user', content: 'probe' }] }),
  'PATCH /internal/ai-chat/{thread_id}': () => ({ message: 'written-by-a-stranger' }),
  'POST /oauth-providers': () => ({ user_id: U1.userId, provider_config_id: 'github', account_id: 'probe-account' }),
  'POST /data-vault/stores/{store}/get': () => ({ hashed_key: 'a-hashed-key' }),
  'POST /data-vault/stores/{store}/set': () => ({ hashed_key: 'a-hashed-key', encrypted_value: 'written-by-a-stranger' }),
  'POST /internal/webhooks/endpoints': () => ({ url: 'https://hooks.example.com/latch' }),
  'POST /internal/webhooks/endpoints/{endpoint_id}/replay': () => ({ since_millis: 0 }),
  'POST /internal/workflow-tokens': () => ({ description: 'probe', expires_in_seconds: 600 }),
  'POST /check-feature-support': () => ({ feature_name: 'payments', client_version: 'probe' }),
  'POST /auth/passkey/register': () => ({
    credential: { id: 'AAAA', rawId: 'AAAA', type: 'public-key', response: { clientDataJSON: 'AAAA', attestationObject: 'AAAA' }, clientExtensionResults: {} },
    code: 'not-a-code-of-anyone',
  }),
  'POST /auth/passkey/sign-in': () => ({
    authentication_response: {
      id: 'AAAA',
      rawId: 'AAAA',
      type: 'public-key',
      response: { clientDataJSON: 'AAAA', authenticatorData: 'AAAA', signature: 'AAAA' },
      clientExtensionResults: {},
    },
    code: 'not-a-code-of-anyone',
  }),
  'POST /contact-channels/{user_id}/{contact_channel_id}/send-verification-code': () => ({ callback_url: 'http://localhost:3000/verify' }),
  'POST /contact-channels/verify': () => ({ code: 'not-a-code-of-anyone' }),
  'POST /auth/password/reset/check-code': () => ({ code: 'not-a-code-of-anyone' }),
  'POST /auth/password/reset': () => ({ code: 'not-a-code-of-anyone', password: 'pwned-password-1' }),
  'POST /auth/otp/sign-in': () => ({ code: 'not-a-code-of-anyone' }),
  'POST /auth/cli/poll': () => ({ polling_code: 'not-a-code-of-anyone' }),
  'POST /auth/impersonation/sign-in': () => ({ code: 'not-a-code-of-anyone' }),
  'POST /auth/cli/complete': () => ({ login_code: 'not-a-code-of-anyone' }),
  'POST /auth/mfa/sign-in': () => ({ type: 'totp', totp: '123456', code: 'not-a-code-of-anyone' }),
  'POST /users/me/mfa/totp/confirm': () => ({ totp: '123456' }),
  // Mail to an address: anyone may ask for a reset or a sign-in link, so these go to a fresh
  // address (a 2xx is then about nobody's data); a verification link only for one's own primary
  // email, so that one names U1's.
  'POST /auth/password/send-reset-code': () => ({ email: h.uniqueEmail('probe'), callback_url: 'http://localhost:3000/handler/password-reset' }),
  'POST /auth/otp/send-sign-in-code': () => ({ email: h.uniqueEmail('probe'), callback_url: 'http://localhost:3000/handler/magic-link-callback' }),
  'POST /contact-channels/send-verification-code': () => ({ email: U1.email, callback_url: 'http://localhost:3000/handler/email-verification' }),
  'POST /internal/send-sign-in-invitation': () => ({ email: h.uniqueEmail('probe'), callback_url: 'http://localhost:3000/handler/sign-in' }),
  'POST /internal/send-test-email': () => ({
    recipient_email: h.uniqueEmail('probe'),
    email_config: {
      type: 'standard',
      host: '127.0.0.1',
      port: 1,
      username: 'probe',
      password: 'probe',
      sender_name: 'Probe',
      sender_email: 'probe@example.com',
    },
  }),
};

function buildRequest(op: Operation, caller: Caller): { url: string; options: CallOptions } {
  // A parameter with no mapping yet still gets the whole matrix (refusals, no 5xx, no leak of A),
  // aimed at a random id; map it in valueOfA() to aim it at real data of A.
  const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(valueOfA(op.path, name) ?? randomUUID()));
  const query = new URLSearchParams();
  for (const name of op.queryParams) {
    const value = valueOfA(op.path, name);
    if (value !== undefined) query.set(name, value);
  }
  const url = query.size ? `${path}?${query}` : path;
  const headers: Headers_ = { ...caller.headers, 'x-latch-refresh-token': caller.refreshToken };
  if (!op.hasBody) return { url, options: { method: op.method, headers } };
  const body = BODIES[op.key]?.(caller) ?? {};
  if (op.key === 'POST /auth/oauth/token') return { url, options: { method: op.method, headers, form: body as Record<string, string> } };
  return { url, options: { method: op.method, headers, body } };
}

/** The response as text, with the payload of every JWT in it decoded (tokens must not carry A's data either). */
function scanText(res: ApiResponse): string {
  const text = typeof res.body === 'string' ? res.body : JSON.stringify(res.body ?? null);
  const payloads = [...text.matchAll(/eyJ[A-Za-z0-9_-]+\.(eyJ[A-Za-z0-9_-]+)\.[A-Za-z0-9_-]*/g)].map((m) => Buffer.from(m[1]!, 'base64url').toString('utf8'));
  return [text, ...payloads].join('\n');
}

function requestText(sent: Pick<Sent, 'url' | 'options'>): string {
  return [
    sent.url,
    decodeURIComponent(sent.url),
    JSON.stringify(sent.options.body ?? null),
    JSON.stringify(sent.options.form ?? null),
    JSON.stringify(sent.options.headers ?? {}),
  ].join('\n');
}

/** Every problem with one response; an empty list when it is as it must be. */
function judge(sent: Sent): string[] {
  const { op, caller, res } = sent;
  const where = `[${caller.name}] ${op.key} → ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`;
  const problems: string[] = [];
  const scanned = scanText(res);
  const request = requestText(sent);
  // A 502 naming an unreachable upstream (the probes store made-up Stripe keys in B) is B's own
  // provider failing, catalogued; any other 5xx is a problem.
  const upstream = res.status === 502 && ['PAYMENT_PROVIDER_REQUEST_FAILED', 'OAUTH_PROVIDER_REQUEST_FAILED'].includes(res.body?.code);
  if (res.status >= 500 && !upstream) problems.push(`5xx: ${where}`);
  else if (res.status >= 400) {
    const body = res.body as { code?: string; error?: string } | undefined;
    const catalogued = body?.code ? knownErrorsByCode.get(body.code) : undefined;
    if (!catalogued) problems.push(`uncatalogued error: ${where}`);
    else if (catalogued.status !== res.status) problems.push(`status ${res.status} is not the catalogue's ${catalogued.status}: ${where}`);
    if (res.headers.get('x-latch-known-error') !== body?.code)
      problems.push(`x-latch-known-error ${res.headers.get('x-latch-known-error')} ≠ body code: ${where}`);
    if (body && Object.keys(body).some((k) => !['code', 'details', 'error'].includes(k))) problems.push(`error body has extra keys: ${where}`);
    // An error may echo what the caller sent, nothing more of A.
    for (const secret of caller.secrets) if (scanned.includes(secret) && !request.includes(secret)) problems.push(`error reveals ${secret}: ${where}`);
  } else if (res.status >= 200 && res.status < 300) {
    const referencesA = caller.secrets.some((secret) => request.includes(secret));
    if (caller.scope === 'foreign' && !PUBLIC_OPERATIONS.has(op.key)) problems.push(`foreign credential succeeded: ${where}`);
    if (caller.scope === 'own' && op.method !== 'GET' && referencesA) problems.push(`a change aimed at A's data succeeded: ${where}`);
    // A public operation may echo what the caller named (a project's JWKS names its project in each kid).
    for (const secret of caller.secrets)
      if (scanned.includes(secret) && !(PUBLIC_OPERATIONS.has(op.key) && request.includes(secret))) problems.push(`response contains ${secret}: ${where}`);
  } else problems.push(`unexpected status: ${where}`);
  return problems;
}

/** Everything of A that no other caller may change, read with A's own credentials. */
async function snapshotA() {
  return {
    u1: await ok(h.get(`/users/${U1.userId}`, A.server()), 'read U1'),
    u1Sessions: await ok(h.get(`/auth/sessions?user_id=${U1.userId}`, A.server()), 'read U1 sessions'),
    keySets: await ok(h.get('/internal/api-keys', A.admin()), 'read key sets'),
    keySet: await ok(h.get(`/internal/api-keys/${aKeySetId}`, A.admin()), 'read key set'),
    project: await ok(h.get('/internal/projects/current', A.admin()), 'read project'),
    config: await ok(h.get('/internal/config', A.admin()), 'read config'),
    clientProject: await ok(h.get('/projects/current', A.client()), 'read client project'),
    ownerProjects: await ok(h.get('/internal/projects', h.internalClient(A.owner.accessToken)), "read the owner's projects"),
    t1: await ok(h.get(`/teams/${t1}`, A.server()), 'read T1'),
    u1Teams: await ok(h.get(`/teams?user_id=${U1.userId}`, A.server()), "read U1's teams"),
    t1Members: await ok(h.get(`/team-member-profiles?team_id=${t1}`, A.server()), "read T1's members"),
    t1Invitations: await ok(h.get(`/team-invitations?team_id=${t1}`, A.server()), "read T1's invitations"),
    t1ApiKeys: await ok(h.get(`/team-api-keys?team_id=${t1}`, A.server()), "read T1's API keys"),
    u1ApiKeys: await ok(h.get(`/user-api-keys?user_id=${U1.userId}`, A.server()), "read U1's API keys"),
    projectPermissionDefinitions: await ok(h.get('/project-permission-definitions', A.admin()), 'read project permission definitions'),
    teamPermissionDefinitions: await ok(h.get('/team-permission-definitions', A.admin()), 'read team permission definitions'),
    u1ProjectPermissions: await ok(h.get(`/project-permissions?user_id=${U1.userId}`, A.server()), "read U1's project permissions"),
    u1TeamPermissions: await ok(h.get(`/team-permissions?team_id=${t1}&user_id=${U1.userId}`, A.server()), "read U1's team permissions"),
    u1Channels: await ok(h.get(`/contact-channels?user_id=${U1.userId}`, A.server()), "read U1's contact channels"),
    emails: (await ok<{ items: { id: string; to: string; subject: string }[] }>(h.get('/internal/emails', A.admin()), "read A's emails")).items.map(
      ({ id, to, subject }) => ({ id, to, subject }),
    ),
  };
}

async function userIdsOfA(): Promise<Set<string>> {
  const list = await ok<{ items: { id: string }[] }>(h.get('/users?include_anonymous=true&limit=1000', A.server()), 'list users of A');
  return new Set(list.items.map((u) => u.id));
}

function callers(): Caller[] {
  const lastFours = [A.publishableClientKey, A.secretServerKey, A.superSecretAdminKey].map((key) => `"last_four":"${key.slice(-4)}"`);
  const aKeys = [A.publishableClientKey, A.secretServerKey, A.superSecretAdminKey];
  // What B-side callers must never see of A.
  // U1's team, its key, its invitation, U1's key: ids, names, values and last fours.
  const ofU1AndT1 = [
    t1,
    T1_NAME,
    t1ApiKey.id,
    t1ApiKey.value,
    `"last_four":"${t1ApiKey.value.slice(-4)}"`,
    u1ApiKey.id,
    u1ApiKey.value,
    `"last_four":"${u1ApiKey.value.slice(-4)}"`,
    invitationId,
    INVITEE,
  ];
  const ofA = [
    U1.userId,
    U1.email,
    U2.userId,
    U2.email,
    u1SessionId,
    u1ChannelId,
    aEmailId,
    A.id,
    aKeySetId,
    A.owner.userId,
    A.owner.email,
    A_NAME,
    U1_MARKER,
    PROJECT_PERMISSION,
    TEAM_PERMISSION,
    ...ofU1AndT1,
    ...lastFours,
    ...aKeys,
  ];
  // What U2, a user of A but not of T1, must never see of U1, T1 or A's administration.
  const ofU1 = [
    U1.userId,
    U1.email,
    u1SessionId,
    u1ChannelId,
    aEmailId,
    U1_MARKER,
    aKeySetId,
    A.owner.userId,
    A.owner.email,
    ...ofU1AndT1,
    ...lastFours,
    A.secretServerKey,
    A.superSecretAdminKey,
  ];
  const onA = { 'x-latch-project-id': A.id };
  return [
    { name: 'no credentials', scope: 'foreign', headers: {}, secrets: ofA, u1Password: U1.password },
    {
      name: "B's publishable key on A",
      scope: 'foreign',
      headers: { ...onA, 'x-latch-access-type': 'client', 'x-latch-publishable-client-key': B.publishableClientKey },
      secrets: ofA,
      projectId: A.id,
      publishableKey: B.publishableClientKey,
      refreshToken: BU.refreshToken,
      u1Password: U1.password,
    },
    {
      name: "B's secret key on A",
      scope: 'foreign',
      headers: { ...onA, 'x-latch-access-type': 'server', 'x-latch-secret-server-key': B.secretServerKey },
      secrets: ofA,
      projectId: A.id,
      u1Password: U1.password,
    },
    {
      name: "B's admin key on A",
      scope: 'foreign',
      headers: { ...onA, 'x-latch-access-type': 'admin', 'x-latch-super-secret-admin-key': B.superSecretAdminKey },
      secrets: ofA,
      projectId: A.id,
      u1Password: U1.password,
    },
    {
      name: "B's user token on A",
      scope: 'foreign',
      headers: A.client(BU.accessToken),
      secrets: ofA,
      projectId: A.id,
      publishableKey: A.publishableClientKey,
      refreshToken: BU.refreshToken,
      u1Password: U1.password,
    },
    {
      name: "B's owner as admin of A",
      scope: 'foreign',
      headers: { ...onA, 'x-latch-access-type': 'admin', 'x-latch-admin-access-token': B.owner.accessToken },
      secrets: ofA,
      projectId: A.id,
      refreshToken: B.owner.refreshToken,
      u1Password: U1.password,
    },
    {
      name: "B's client (B's user) on B",
      scope: 'own',
      headers: B.client(BU.accessToken),
      secrets: ofA,
      projectId: B.id,
      publishableKey: B.publishableClientKey,
      refreshToken: BU.refreshToken,
      u1Password: U1.password,
    },
    { name: "B's secret key on B", scope: 'own', headers: B.server(), secrets: ofA, projectId: B.id, u1Password: U1.password },
    { name: "B's admin key on B", scope: 'own', headers: B.admin(), secrets: ofA, projectId: B.id, u1Password: U1.password },
    {
      name: "B's owner on the internal project",
      scope: 'own',
      headers: h.internalClient(B.owner.accessToken),
      secrets: ofA,
      projectId: 'internal',
      refreshToken: B.owner.refreshToken,
      u1Password: U1.password,
    },
    {
      name: 'U2 (client of A) against U1',
      scope: 'own',
      headers: A.client(U2.accessToken),
      secrets: ofU1,
      projectId: A.id,
      publishableKey: A.publishableClientKey,
      refreshToken: U2.refreshToken,
      u1Password: 'not-u1s-password-1',
    },
  ];
}

/**
 * Deletes run last and one at a time, ordered so that each caller is still signed in when it tries
 * the next: deletes aimed at A's ids, then the caller's own memberships, its user, its session, and
 * the project deletion very last (B's admin key may delete B itself).
 */
function deleteOrder(op: Operation): number {
  if (op.path === '/internal/projects/current') return 5;
  if (op.path === '/auth/sessions/current') return 4;
  if (op.path === '/users/me') return 3;
  if (op.path.endsWith('/me')) return 2;
  return 1;
}

beforeAll(async () => {
  h = await startHarness();
  // Everything a client may do switched on, so refusals come from ownership, not from a disabled feature.
  const config = {
    client_user_deletion_enabled: true,
    anonymous_enabled: true,
    magic_link_enabled: true,
    client_team_creation_enabled: true,
    allow_user_api_keys: true,
    allow_team_api_keys: true,
  };
  A = await h.createProject({ config, displayName: A_NAME });
  B = await h.createProject({ config, displayName: 'Project B' });
  [U1, U2, BU] = await Promise.all([
    h.signUpUser(A, { password: 'u1-password-secret' }),
    h.signUpUser(A, { password: 'u2-password-other' }),
    h.signUpUser(B, { password: 'b-user-password' }),
  ]);
  await ok(
    h.patch(`/users/${U1.userId}`, { display_name: 'U1 original', server_metadata: { marker: U1_MARKER }, client_metadata: { theme: 'dark' } }, A.server()),
    'set up U1',
  );
  const sessions = await ok<{ items: { id: string; is_current_session: boolean }[] }>(
    h.get('/auth/sessions?user_id=me', A.client(U1.accessToken)),
    'U1 sessions',
  );
  u1SessionId = sessions.items.find((s) => s.is_current_session)!.id;
  const keySets = await ok<{ items: { id: string }[] }>(h.get('/internal/api-keys', A.admin()), 'A key sets');
  expect(keySets.items).toHaveLength(1);
  aKeySetId = keySets.items[0]!.id;
  const owned = await ok<{ items: { id: string; owner_team_id: string }[] }>(
    h.get('/internal/projects', h.internalClient(B.owner.accessToken)),
    "B owner's projects",
  );
  bOwnerTeamId = owned.items.find((p) => p.id === B.id)!.owner_team_id;

  t1 = (await ok<{ id: string }>(h.post('/teams', { display_name: T1_NAME, creator_user_id: U1.userId }, A.server()), 'create T1')).id;
  await ok(h.post('/project-permission-definitions', { id: PROJECT_PERMISSION }, A.admin()), 'define a project permission');
  await ok(h.post('/team-permission-definitions', { id: TEAM_PERMISSION }, A.admin()), 'define a team permission');
  await ok(h.post(`/project-permissions/${U1.userId}/${PROJECT_PERMISSION}`, {}, A.server()), 'grant U1 the project permission');
  await ok(h.post(`/team-permissions/${t1}/${U1.userId}/${TEAM_PERMISSION}`, {}, A.server()), 'grant U1 the team permission');
  u1ApiKey = await ok<{ id: string; value: string }>(
    h.post('/user-api-keys', { user_id: U1.userId, description: 'U1 key' }, A.server()),
    "create U1's API key",
  );
  t1ApiKey = await ok<{ id: string; value: string }>(h.post('/team-api-keys', { team_id: t1, description: 'T1 key' }, A.server()), "create T1's API key");
  invitationId = (
    await ok<{ id: string }>(
      h.post('/team-invitations/send-code', { email: INVITEE, team_id: t1, callback_url: 'http://localhost:3000/accept' }, A.server()),
      'invite to T1',
    )
  ).id;
  u1ChannelId = (await ok<{ items: { id: string }[] }>(h.get(`/contact-channels?user_id=${U1.userId}`, A.server()), "U1's contact channels")).items[0]!.id;
  aEmailId = (await ok<{ items: { id: string }[] }>(h.get('/internal/emails', A.admin()), "A's emails")).items[0]!.id;
  aWorkflowTokenId = (await ok<{ id: string }>(h.post('/internal/workflow-tokens', { description: "A's automation" }, A.admin()), "A's workflow token")).id;
  const category = await ok<{ id?: string; notification_category_id?: string }>(
    h.post('/internal/notification-categories', { name: "A's newsletter" }, A.admin()),
    "A's notification category",
  );
  aCategoryId = (category.notification_category_id ?? category.id)!;
}, 60_000);
afterAll(async () => h?.close());

describe('tenant isolation', () => {
  it('every attacking credential is itself valid in its own scope (so refusals below mean something)', async () => {
    expect((await h.get('/users/me', B.client(BU.accessToken))).body.id).toBe(BU.userId);
    expect((await h.get('/users', B.server())).status).toBe(200);
    expect((await h.get('/internal/api-keys', B.admin())).status).toBe(200);
    expect((await h.get('/internal/projects/current', B.ownerAdmin())).body.id).toBe(B.id);
    expect((await h.get('/users/me', h.internalClient(B.owner.accessToken))).body.id).toBe(B.owner.userId);
    expect((await h.get('/users/me', A.client(U2.accessToken))).body.id).toBe(U2.userId);
    expect((await h.post('/auth/sessions/current/refresh', {}, { ...B.client(), 'x-latch-refresh-token': BU.refreshToken })).status).toBe(200);
    // And A's own credentials see what the attackers are after.
    expect((await h.get(`/users/${U1.userId}`, A.server())).body.server_metadata).toEqual({ marker: U1_MARKER });
    expect(u1SessionId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a client user (U2) can never read or change another user (U1) of the same project', async () => {
    const before = await snapshotA();
    const u2 = A.client(U2.accessToken);
    const expectRefused = (res: ApiResponse, code: string, status: number) => {
      const where = JSON.stringify(res.body);
      expect(res.status, where).toBe(status);
      expect(res.body.code, where).toBe(code);
      expect(res.headers.get('x-latch-known-error')).toBe(code);
      expect(where).not.toContain(U1.email);
      expect(where).not.toContain(U1_MARKER);
    };
    expectRefused(await h.get(`/users/${U1.userId}`, u2), 'USER_NOT_FOUND', 404);
    expectRefused(await h.patch(`/users/${U1.userId}`, { display_name: 'Pwned' }, u2), 'USER_NOT_FOUND', 404);
    expectRefused(await h.del(`/users/${U1.userId}`, u2), 'USER_NOT_FOUND', 404);
    expectRefused(await h.get(`/auth/sessions?user_id=${U1.userId}`, u2), 'USER_NOT_FOUND', 404);
    expectRefused(await h.del(`/auth/sessions/${u1SessionId}?user_id=${U1.userId}`, u2), 'USER_NOT_FOUND', 404);
    // Without user_id the session is looked up among U2's own: U1's is not found, and survives.
    expectRefused(await h.del(`/auth/sessions/${u1SessionId}`, u2), 'SESSION_NOT_FOUND', 404);
    expectRefused(await h.del(`/auth/sessions/${u1SessionId}?user_id=me`, u2), 'SESSION_NOT_FOUND', 404);
    // Server-only operations stay closed to a client.
    expectRefused(await h.post('/auth/sessions', { user_id: U1.userId }, u2), 'INSUFFICIENT_ACCESS_TYPE', 401);
    expectRefused(await h.get(`/users?query=${encodeURIComponent(U1.email)}`, u2), 'INSUFFICIENT_ACCESS_TYPE', 401);
    // The same over tRPC.
    const trpc = await h.call(`/api/trpc/users.get?input=${encodeURIComponent(JSON.stringify({ user_id: U1.userId }))}`, { method: 'GET', headers: u2 });
    expect(trpc.status).toBe(404);
    expect(trpc.headers.get('x-latch-known-error')).toBe('USER_NOT_FOUND');
    expect(JSON.stringify(trpc.body)).not.toContain(U1.email);
    // U1 is untouched and still signed in.
    expect(await snapshotA()).toEqual(before);
    expect((await h.get('/users/me', A.client(U1.accessToken))).body.display_name).toBe('U1 original');
  });

  it(
    'every operation, aimed at project A with every foreign credential: refused (or harmless), catalogued, and A unchanged',
    { timeout: 180_000 },
    async () => {
      const before = await snapshotA();
      const usersBefore = await userIdsOfA();
      const ops = operations();
      expect(ops.length).toBeGreaterThan(20);
      const all = callers();

      const send = async (op: Operation, caller: Caller): Promise<Sent> => {
        const { url, options } = buildRequest(op, caller);
        return { op, caller, url, options, res: await h.call(url, options) };
      };
      const started = Date.now();
      // Phase 1: everything but deletes, concurrently.
      const first = await pool(
        ops.filter((op) => op.method !== 'DELETE').flatMap((op) => all.map((caller) => () => send(op, caller))),
        CONCURRENCY,
      );
      // Phase 2: deletes, one at a time, those that could end B's own session, user or project last.
      const deletes = ops.filter((op) => op.method === 'DELETE').sort((a, b) => deleteOrder(a) - deleteOrder(b));
      const second: Sent[] = [];
      for (const op of deletes) for (const caller of all) second.push(await send(op, caller));
      const results = [...first, ...second];
      const elapsed = Date.now() - started;

      expect(results).toHaveLength(ops.length * all.length);
      // LATCH_ISOLATION_REPORT=/tmp/matrix.txt writes the whole matrix (operation | caller | status code) for review.
      if (process.env.LATCH_ISOLATION_REPORT) {
        writeFileSync(
          process.env.LATCH_ISOLATION_REPORT,
          results
            .map((r) => `${r.op.key.padEnd(48)} | ${r.caller.name.padEnd(36)} | ${r.res.status} ${(r.res.body as { code?: string } | undefined)?.code ?? ''}`)
            .sort()
            .join('\n'),
        );
      }
      const problems = results.flatMap(judge);
      expect(problems, `${problems.length} isolation problems:\n${problems.join('\n')}`).toEqual([]);
      // Every request fitted its operation: a SCHEMA_ERROR is a refusal by validation, which says
      // nothing about who may call it (map the operation's body in BODIES).
      const unaimed = results
        .filter((s) => (s.res.body as { code?: string } | undefined)?.code === 'SCHEMA_ERROR')
        .map((s) => `[${s.caller.name}] ${s.op.key}: ${JSON.stringify(s.res.body).slice(0, 200)}`);
      expect(unaimed, `requests refused by validation, not aimed at anything:\n${unaimed.join('\n')}`).toEqual([]);

      // Foreign callers were refused on every non-public operation (not just "not leaked").
      for (const sent of results) {
        if (sent.caller.scope === 'foreign' && !PUBLIC_OPERATIONS.has(sent.op.key))
          expect(sent.res.status, `[${sent.caller.name}] ${sent.op.key}`).toBeGreaterThanOrEqual(400);
      }
      // The matrix is not vacuous: callers acting in their own scope did succeed on their own data.
      for (const caller of all.filter((c) => c.scope === 'own')) {
        expect(
          results.some((s) => s.caller === caller && s.res.status < 300),
          `${caller.name} never succeeded`,
        ).toBe(true);
      }

      // A is exactly as it was, but for mail U2's client (A's own public key) legitimately asked A
      // to send to a fresh address of its choosing (a sign-in link).
      const mailedForU2 = new Set(
        results
          .filter((s) => s.caller.name.startsWith('U2') && s.res.status < 300)
          .map((s) => (s.options.body as { email?: unknown } | undefined)?.email)
          .filter((email): email is string => typeof email === 'string'),
      );
      const after = await snapshotA();
      expect({ ...after, emails: after.emails.filter((email) => !mailedForU2.has(email.to)) }).toEqual(before);
      // No user appeared in A except those U2's client (A's own public key) legitimately signed up.
      const createdByU2 = new Set(
        results
          .filter((s) => s.caller.name.startsWith('U2') && s.res.status < 300)
          .map((s) => (s.res.body as { user_id?: string })?.user_id)
          .filter((id): id is string => typeof id === 'string'),
      );
      const usersAfter = await userIdsOfA();
      for (const id of usersAfter) if (!usersBefore.has(id)) expect(createdByU2.has(id), `unexpected new user ${id} in A`).toBe(true);
      for (const id of usersBefore) if (id !== U2.userId) expect(usersAfter.has(id), `user ${id} of A disappeared`).toBe(true);
      // U1 still works: the token, the session and the password.
      expect((await h.get('/users/me', A.client(U1.accessToken))).body.id).toBe(U1.userId);
      expect((await h.post('/auth/sessions/current/refresh', {}, { ...A.client(), 'x-latch-refresh-token': U1.refreshToken })).status).toBe(200);
      expect((await h.post('/auth/password/sign-in', { email: U1.email, password: U1.password }, A.client())).status).toBe(200);
      // A's keys all still work.
      expect((await h.get('/users', A.server())).status).toBe(200);
      expect((await h.get('/internal/api-keys', A.admin())).status).toBe(200);
      expect((await h.get('/internal/projects/current', A.ownerAdmin())).status).toBe(200);

      expect(elapsed, `the matrix took ${elapsed} ms`).toBeLessThan(120_000);
    },
  );
});

describe('cross-tenant email independence', () => {
  it("signing up in another project with U1's email succeeds there and changes nothing in A (no cross-tenant existence oracle)", async () => {
    const C = await h.createProject({ displayName: 'Project C' });
    const before = await snapshotA();
    // Before: U1's credentials mean nothing in C.
    const early = await h.post('/auth/password/sign-in', { email: U1.email, password: U1.password }, C.client());
    expect(early.status).toBe(400);
    expect(early.body.code).toBe('EMAIL_PASSWORD_MISMATCH');
    const signUp = await h.post('/auth/password/sign-up', { email: U1.email, password: 'a-different-password' }, C.client());
    expect(signUp.status, JSON.stringify(signUp.body)).toBe(200);
    expect(signUp.body.user_id).not.toBe(U1.userId);
    // The C user's token is refused by A, and its credentials do not sign in to A.
    expect((await h.get('/users/me', A.client(signUp.body.access_token))).body.code).toBe('INVALID_PROJECT_FOR_ACCESS_TOKEN');
    expect((await h.post('/auth/password/sign-in', { email: U1.email, password: 'a-different-password' }, A.client())).body.code).toBe(
      'EMAIL_PASSWORD_MISMATCH',
    );
    // U1 is unaffected.
    expect((await h.post('/auth/password/sign-in', { email: U1.email, password: U1.password }, A.client())).status).toBe(200);
    const after = await snapshotA();
    // Signing in above added a session to U1; everything else is identical.
    expect({ ...after, u1Sessions: null }).toEqual({ ...before, u1Sessions: null });
  });
});
