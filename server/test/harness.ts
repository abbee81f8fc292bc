import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import type { DatabaseTarget } from '../db/kysely.js';
import { DEFAULT_EMAIL_SETTINGS, DEFAULT_HASH_QUEUE_PER_PROJECT, DEFAULT_QUOTAS, DEFAULT_RATE_LIMITS, type EmailSettings, type LatchEnv } from '../env.js';
import { type RunningLatch, startLatch } from '../start.js';
import { POSTGRES_ADMIN_URL, databaseUrl } from './global-setup.js';
import { SINK_CERT } from './smtp-sink.js';

/**
 * The API test harness: a real Latch server on port 0 with a fresh database (in-memory PGlite from
 * a migrated template, or a fresh PostgreSQL database cloned from one when LATCH_TEST_DB=postgres),
 * and helpers that speak plain HTTP to it. Each test creates its own project.
 */
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export type Headers_ = Record<string, string | undefined>;

export interface CallOptions {
  method?: string;
  headers?: Headers_;
  body?: unknown;
  /** Sent as application/x-www-form-urlencoded. */
  form?: Record<string, string>;
  /** Sent verbatim (for malformed-body tests). */
  rawBody?: string;
  contentType?: string;
}

export interface OwnerSession {
  userId: string;
  email: string;
  accessToken: string;
  refreshToken: string;
}

export interface ProjectFixture {
  id: string;
  owner: OwnerSession;
  publishableClientKey: string;
  secretServerKey: string;
  superSecretAdminKey: string;
  /** Client headers (publishable key), with a user's access token when given. */
  client(accessToken?: string): Headers_;
  server(accessToken?: string): Headers_;
  admin(): Headers_;
  /** Admin headers using the owner's internal-project access token instead of the admin key. */
  ownerAdmin(): Headers_;
}

export interface UserSession {
  userId: string;
  email: string;
  password: string;
  accessToken: string;
  refreshToken: string;
}

export interface Harness {
  url: string;
  latch: RunningLatch;
  /** The database this server runs on: a second startLatch on the same target shares its data (PostgreSQL only). */
  database: DatabaseTarget;
  call<T = any>(path: string, options?: CallOptions): Promise<ApiResponse<T>>;
  /** POST /api/v1…; asserts nothing. */
  post<T = any>(path: string, body: unknown, headers?: Headers_): Promise<ApiResponse<T>>;
  get<T = any>(path: string, headers?: Headers_): Promise<ApiResponse<T>>;
  patch<T = any>(path: string, body: unknown, headers?: Headers_): Promise<ApiResponse<T>>;
  del<T = any>(path: string, headers?: Headers_): Promise<ApiResponse<T>>;
  internalClient(accessToken?: string): Headers_;
  signUpOwner(email?: string): Promise<OwnerSession>;
  createProject(options?: {
    config?: Record<string, unknown>;
    owner?: OwnerSession;
    displayName?: string;
    defaultTeamRoles?: boolean;
  }): Promise<ProjectFixture>;
  signUpUser(project: ProjectFixture, options?: { email?: string; password?: string }): Promise<UserSession>;
  uniqueEmail(prefix?: string): string;
  close(): Promise<void>;
}

/** Environment overrides for a test server; `email` is merged into the test defaults below. */
export type TestEnvOverrides = Omit<Partial<LatchEnv>, 'email'> & { email?: Partial<EmailSettings> };

/**
 * Test email defaults, like local development: SMTP sinks live on 127.0.0.1 on random ports
 * (LATCH_SMTP_ALLOW_PRIVATE=true), every project may use the shared server (LATCH_SHARED_EMAIL=all),
 * and the sinks' certificate is trusted (LATCH_SMTP_CA_FILE). Tests of the production rules
 * override these.
 */
export const TEST_EMAIL_SETTINGS: EmailSettings = { ...DEFAULT_EMAIL_SETTINGS, allowPrivate: true, sharedEmail: 'all', extraCa: SINK_CERT };

export function testEnv(overrides: TestEnvOverrides = {}): LatchEnv {
  const { email, ...rest } = overrides;
  return {
    port: 0,
    host: '127.0.0.1',
    databaseUrl: null,
    databasePoolSize: 10,
    databasePreparedStatements: true,
    passwordHashConcurrency: 2,
    passwordHashQueuePerProject: DEFAULT_HASH_QUEUE_PER_PROJECT,
    dataDir: '/nonexistent',
    secret: randomBytes(48).toString('base64url'),
    baseUrl: null,
    internalSignUp: true,
    corsOrigins: null,
    accessTokenTtlSeconds: 600,
    logLevel: 'error',
    // Not the default (false): tests stand for many clients by sending X-Forwarded-For over loopback.
    trustProxy: 'loopback',
    metricsToken: null,
    // Suites sign up hundreds of users and owners from 127.0.0.1: these two limits are counted but
    // set out of reach here; their own tests set them low.
    rateLimits: { ...DEFAULT_RATE_LIMITS, signUpsPerIp: 100_000, passwordHashesPerIp: 100_000 },
    quotas: DEFAULT_QUOTAS,
    ...rest,
    email: { ...TEST_EMAIL_SETTINGS, ...email },
  };
}

async function testDatabase(): Promise<{ target: DatabaseTarget; drop: () => Promise<void> }> {
  const postgresTemplate = inject('postgresTemplate');
  if (postgresTemplate) {
    const name = `${postgresTemplate}_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${postgresTemplate}`);
    await admin.end();
    return {
      target: { kind: 'postgres', url: databaseUrl(name), poolSize: 10 },
      drop: async () => {
        const again = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
        await again.connect();
        await again.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await again.end();
      },
    };
  }
  const template = readFileSync(inject('pgliteTemplate'));
  return { target: { kind: 'pglite', dataDir: null, loadDataDir: new Blob([template]) }, drop: async () => {} };
}

export async function startHarness(envOverrides: TestEnvOverrides = {}): Promise<Harness> {
  const { target, drop } = await testDatabase();
  const latch = await startLatch({ env: testEnv(envOverrides), database: target, quiet: true });
  const base = `${latch.url}/api/v1`;

  async function call<T>(path: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(options.headers ?? {})) if (value !== undefined) headers[key] = value;
    let body: string | undefined;
    if (options.form) {
      body = new URLSearchParams(options.form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    } else if (options.rawBody !== undefined) {
      body = options.rawBody;
      headers['content-type'] = options.contentType ?? 'application/json';
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const url = path.startsWith('http')
      ? path
      : path.startsWith('/api') || path.startsWith('/health') || path.startsWith('/metrics')
        ? `${latch.url}${path}`
        : `${base}${path}`;
    const response = await fetch(url, { method: options.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    return { status: response.status, headers: response.headers, body: parsed as T };
  }

  let counter = 0;
  const uniqueEmail = (prefix = 'user') => `${prefix}-${Date.now().toString(36)}-${++counter}-${randomUUID().slice(0, 6)}@example.com`;
  const internalClient = (accessToken?: string): Headers_ => ({
    'x-latch-project-id': 'internal',
    'x-latch-access-type': 'client',
    'x-latch-access-token': accessToken,
  });

  const harness: Harness = {
    url: latch.url,
    latch,
    database: target,
    call,
    post: (path, body, headers) => call(path, { method: 'POST', body, headers }),
    get: (path, headers) => call(path, { method: 'GET', headers }),
    patch: (path, body, headers) => call(path, { method: 'PATCH', body, headers }),
    del: (path, headers) => call(path, { method: 'DELETE', headers }),
    internalClient,
    uniqueEmail,
    async signUpOwner(email = uniqueEmail('owner')) {
      const res = await call<{ user_id: string; access_token: string; refresh_token: string }>('/auth/password/sign-up', {
        body: { email, password: 'owner-password-1' },
        headers: internalClient(),
      });
      if (res.status !== 200) throw new Error(`owner sign-up failed: ${res.status} ${JSON.stringify(res.body)}`);
      return { userId: res.body.user_id, email, accessToken: res.body.access_token, refreshToken: res.body.refresh_token };
    },
    async createProject(options = {}) {
      const owner = options.owner ?? (await harness.signUpOwner());
      const created = await call<{ id: string }>('/internal/projects', {
        body: {
          display_name: options.displayName ?? 'Test project',
          ...(options.config ? { config: options.config } : {}),
          ...(options.defaultTeamRoles ? { default_team_roles: true } : {}),
        },
        headers: internalClient(owner.accessToken),
      });
      if (created.status !== 201) throw new Error(`project creation failed: ${created.status} ${JSON.stringify(created.body)}`);
      const id = created.body.id;
      const ownerAdmin = (): Headers_ => ({ 'x-latch-project-id': id, 'x-latch-access-type': 'admin', 'x-latch-admin-access-token': owner.accessToken });
      const keys = await call<{ publishable_client_key: string; secret_server_key: string; super_secret_admin_key: string }>('/internal/api-keys', {
        body: { description: 'test keys', has_publishable_client_key: true, has_secret_server_key: true, has_super_secret_admin_key: true },
        headers: ownerAdmin(),
      });
      if (keys.status !== 201) throw new Error(`key creation failed: ${keys.status} ${JSON.stringify(keys.body)}`);
      const { publishable_client_key: pck, secret_server_key: ssk, super_secret_admin_key: sak } = keys.body;
      return {
        id,
        owner,
        publishableClientKey: pck,
        secretServerKey: ssk,
        superSecretAdminKey: sak,
        client: (accessToken) => ({
          'x-latch-project-id': id,
          'x-latch-access-type': 'client',
          'x-latch-publishable-client-key': pck,
          'x-latch-access-token': accessToken,
        }),
        server: (accessToken) => ({
          'x-latch-project-id': id,
          'x-latch-access-type': 'server',
          'x-latch-secret-server-key': ssk,
          'x-latch-access-token': accessToken,
        }),
        admin: () => ({ 'x-latch-project-id': id, 'x-latch-access-type': 'admin', 'x-latch-super-secret-admin-key': sak }),
        ownerAdmin,
      };
    },
    async signUpUser(project, options = {}) {
      const email = options.email ?? uniqueEmail();
      const password = options.password ?? 'correct-horse-battery';
      const res = await call<{ user_id: string; access_token: string; refresh_token: string }>('/auth/password/sign-up', {
        body: { email, password },
        headers: project.client(),
      });
      if (res.status !== 200) throw new Error(`sign-up failed: ${res.status} ${JSON.stringify(res.body)}`);
      return { userId: res.body.user_id, email, password, accessToken: res.body.access_token, refreshToken: res.body.refresh_token };
    },
    async close() {
      await latch.close();
      await drop();
    },
  };
  return harness;
}

/**
 * A fixture for the whole test file: started in beforeAll, stopped in afterAll. The returned object
 * forwards reads and writes to the running fixture, so a test uses it as it would the fixture
 * itself once the file's hooks have run; touching it before beforeAll throws.
 */
export function useFixture<T extends object>(start: () => Promise<T>, stop: (fixture: T) => Promise<unknown>): T {
  let current: T | undefined;
  beforeAll(async () => {
    current = await start();
  });
  afterAll(async () => {
    if (current) await stop(current);
  });
  const running = (prop: PropertyKey): T => {
    if (!current) throw new Error(`fixture not started yet (${String(prop)} used before beforeAll)`);
    return current;
  };
  return new Proxy({} as T, {
    get(_target, prop) {
      const fixture = running(prop);
      const value = Reflect.get(fixture, prop);
      return typeof value === 'function' ? value.bind(fixture) : value;
    },
    set(_target, prop, value) {
      return Reflect.set(running(prop), prop, value);
    },
  });
}

/** One harness for the whole test file (see useFixture): `const h = useHarness();`. */
export function useHarness(envOverrides: TestEnvOverrides = {}): Harness {
  return useFixture(
    () => startHarness(envOverrides),
    (harness) => harness.close(),
  );
}
