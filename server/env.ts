import { availableParallelism } from 'node:os';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import path from 'node:path';

/**
 * Every environment variable Latch reads, parsed and documented once. The README's table is
 * generated from the same names; keep the two in step.
 */
export interface LatchEnv {
  /** PORT — HTTP port (default 8400; 0 picks a free port). */
  port: number;
  /** HOST — interface to bind (default 0.0.0.0 when started by npm start). */
  host: string;
  /** DATABASE_URL — postgres://… runs on PostgreSQL; unset runs embedded PGlite. */
  databaseUrl: string | null;
  /**
   * DATABASE_DIRECT_URL — postgres://… straight to PostgreSQL, bypassing a transaction-mode pooler:
   * one connection per instance LISTENs there for cache invalidations from the other instances
   * (server/access/cache-signals.ts). Unset: DATABASE_URL is used for it, unless
   * DATABASE_PREPARED_STATEMENTS=false says a transaction-mode pooler is in the way (which cannot
   * LISTEN); then the caches only expire (5 s).
   */
  databaseDirectUrl?: string | null;
  /**
   * DATABASE_READ_URL — postgres://… of a streaming replica (hot standby) of DATABASE_URL's database:
   * lag-tolerant heavy reads (lists, search, metrics) go there, everything else to DATABASE_URL;
   * while the replica cannot be reached they go to DATABASE_URL too (server/db/read-replica.ts).
   * Needs DATABASE_URL. Its pool has DATABASE_POOL_SIZE connections.
   */
  databaseReadUrl?: string | null;
  /** DATABASE_POOL_SIZE — pg pool size (default 20). */
  databasePoolSize: number;
  /** DATABASE_PREPARED_STATEMENTS — hot queries as named prepared statements (default true; false behind a transaction-mode pooler). */
  databasePreparedStatements: boolean;
  /** LATCH_PASSWORD_HASH_CONCURRENCY — argon2id hashes run at once, the rest queue (default: cores − 1, at least 2). */
  passwordHashConcurrency: number;
  /**
   * LATCH_PASSWORD_HASH_QUEUE_PER_PROJECT — calls that hash or verify a password one project may
   * have under way at once, hashing or waiting to (default 64); past it the call is RATE_LIMITED at
   * once, before any other work, so a flood on one project cannot delay the others
   * (crypto/fair-limiter.ts).
   */
  passwordHashQueuePerProject: number;
  /** LATCH_DATA_DIR — embedded data folder (default ./.latch-data). */
  dataDir: string;
  /** LATCH_SECRET — root key (32+ bytes). When unset, generated once into the data folder (mode 0600). */
  secret: string;
  /** LATCH_BASE_URL — public URL used as the JWT issuer prefix (default http://localhost:PORT). */
  baseUrl: string | null;
  /**
   * LATCH_STRIPE_API_BASE — http(s)://host:port of a Stripe fake the stripe SDK talks to instead of
   * api.stripe.com. Accepted only with NODE_ENV=test (a real deployment refuses to start with it).
   */
  stripeApiBase?: string | null;
  /** LATCH_INTERNAL_SIGN_UP — false closes owner sign-up on the internal project. */
  internalSignUp: boolean;
  /** LATCH_CORS_ORIGINS — comma-separated allowed browser origins (default: any origin). */
  corsOrigins: string[] | null;
  /** LATCH_ACCESS_TOKEN_TTL_SECONDS — access-token lifetime (default 600). */
  accessTokenTtlSeconds: number;
  /**
   * LATCH_TRUST_PROXY — which peers may set the client IP with X-Forwarded-For (express's
   * 'trust proxy'): a number of proxy hops, a comma-separated list of addresses, CIDR ranges and
   * loopback / linklocal / uniquelocal, or false (the socket address only). Default: false. The
   * client IP keys the per-IP limits, so a proxy that is trusted by mistake lets anyone pick their
   * own IP: trust exactly your load balancers. X-Forwarded-For entries that are not IP addresses
   * are ignored (trpc/client-ip.ts).
   */
  trustProxy: number | string | false;
  /** LATCH_LOG_LEVEL — error | warn | info (default info). */
  logLevel: 'error' | 'warn' | 'info';
  /**
   * LATCH_METRICS_TOKEN — when set, GET /metrics needs `Authorization: Bearer <token>` (from any
   * address); unset, /metrics answers only loopback peers that did not come through a proxy.
   */
  metricsToken: string | null;
  /** LATCH_WEBHOOKS_ALLOW_PRIVATE: webhook endpoints may be private, loopback or link-local addresses (development, tests). */
  webhooksAllowPrivate?: boolean;
  /** Brute-force limits, counted in the database (server/domains/rate-limits). */
  rateLimits: RateLimitSettings;
  /** Email delivery (server/domains/emails). */
  email: EmailSettings;
  /** What one user or team may store (issue 13, item 10). */
  quotas: QuotaSettings;
  /** OAuth sign-in (server/domains/oauth): the operator's shared credentials and test endpoint overrides. */
  oauth?: OAuthSettings;
  /** The console's AI drafting assistant (server/domains/ai-chat); absent or baseUrl null: off. */
  ai?: AiSettings;
}

/**
 * The AI drafting assistant talks to any OpenAI-compatible chat-completions endpoint (OpenAI,
 * OpenRouter, a local Ollama, vLLM or LM Studio).
 * - LATCH_AI_BASE_URL: the API root that has /chat/completions under it, e.g.
 *   https://api.openai.com/v1 or http://127.0.0.1:11434/v1; unset, the assistant is off.
 * - LATCH_AI_API_KEY: sent as `Authorization: Bearer …` (optional: local servers need none).
 * - LATCH_AI_MODEL: the model name, required with LATCH_AI_BASE_URL.
 */
export interface AiSettings {
  baseUrl: string | null;
  apiKey: string | null;
  model: string;
}

function aiSettingsFrom(source: NodeJS.ProcessEnv): AiSettings {
  const baseUrl = source.LATCH_AI_BASE_URL?.trim().replace(/\/+$/, '') || null;
  const model = source.LATCH_AI_MODEL?.trim() ?? '';
  if (baseUrl !== null) {
    if (!/^https?:\/\/[^\s/?#]+/i.test(baseUrl)) throw new Error('LATCH_AI_BASE_URL must look like https://api.openai.com/v1 or http://127.0.0.1:11434/v1');
    if (!model) throw new Error('LATCH_AI_MODEL must be set with LATCH_AI_BASE_URL (the model name the endpoint knows, e.g. gpt-4o-mini or llama3.1)');
  }
  return { baseUrl, apiKey: source.LATCH_AI_API_KEY?.trim() || null, model };
}

/**
 * The deployment's OAuth settings.
 * - LATCH_OAUTH_<PROVIDER>_CLIENT_ID / LATCH_OAUTH_<PROVIDER>_CLIENT_SECRET (PROVIDER upper case:
 *   GOOGLE, GITHUB, …, X, TWITCH): the operator's credentials used by providers of `type: shared`.
 * - LATCH_OAUTH_ENDPOINT_OVERRIDES: JSON `{ "<provider>": { "authorizationEndpoint": …,
 *   "tokenEndpoint": …, "userinfoEndpoint": …, "jwksUri": …, "apiBase": … } }` pointing providers at
 *   local fakes. Accepted only with NODE_ENV=test or LATCH_ALLOW_OAUTH_ENDPOINT_OVERRIDES=true (start-up
 *   fails otherwise): an override sends users' provider codes and tokens to another host.
 */
export interface OAuthSettings {
  shared: Partial<Record<string, { clientId: string; clientSecret: string }>>;
  endpointOverrides: Record<string, Record<string, string>> | null;
}

/** Reads OAuthSettings from the environment (see OAuthSettings). */
export function oauthSettingsFrom(source: NodeJS.ProcessEnv): OAuthSettings {
  const shared: OAuthSettings['shared'] = {};
  for (const [name, value] of Object.entries(source)) {
    const match = /^LATCH_OAUTH_([A-Z0-9]+)_CLIENT_ID$/.exec(name);
    if (!match || !value?.trim()) continue;
    const secret = source[`LATCH_OAUTH_${match[1]}_CLIENT_SECRET`]?.trim();
    if (!secret) throw new Error(`${name} is set but LATCH_OAUTH_${match[1]}_CLIENT_SECRET is not`);
    shared[match[1]!.toLowerCase()] = { clientId: value.trim(), clientSecret: secret };
  }
  const raw = source.LATCH_OAUTH_ENDPOINT_OVERRIDES?.trim();
  let endpointOverrides: OAuthSettings['endpointOverrides'] = null;
  if (raw) {
    if (source.NODE_ENV !== 'test' && source.LATCH_ALLOW_OAUTH_ENDPOINT_OVERRIDES !== 'true')
      throw new Error('LATCH_OAUTH_ENDPOINT_OVERRIDES is accepted only with NODE_ENV=test or LATCH_ALLOW_OAUTH_ENDPOINT_OVERRIDES=true');
    try {
      endpointOverrides = JSON.parse(raw) as Record<string, Record<string, string>>;
    } catch {
      throw new Error('LATCH_OAUTH_ENDPOINT_OVERRIDES must be a JSON object');
    }
  }
  return { shared, endpointOverrides };
}

/** Storage caps per user and team; past one, the write is refused with QUOTA_EXCEEDED (or, for sessions, the oldest goes). */
export interface QuotaSettings {
  /**
   * LATCH_METADATA_MAX_BYTES — client_metadata + client_read_only_metadata + server_metadata of one
   * user or team together, as stored JSON (UTF-8 bytes; default 102400 = 100 KB).
   */
  metadataMaxBytes: number;
  /** LATCH_MAX_SESSIONS_PER_USER — sessions one user may hold; a new one signs the oldest out (default 100). */
  sessionsPerUser: number;
  /** LATCH_MAX_API_KEYS_PER_OWNER — active (not revoked, not expired) API keys per user and per team (default 100). */
  apiKeysPerOwner: number;
}

/** Password jobs one project may have waiting (LATCH_PASSWORD_HASH_QUEUE_PER_PROJECT). */
export const DEFAULT_HASH_QUEUE_PER_PROJECT = 64;

export const DEFAULT_QUOTAS: QuotaSettings = { metadataMaxBytes: 102_400, sessionsPerUser: 100, apiKeysPerOwner: 100 };

/** How emails leave the outbox (server/domains/emails/delivery.ts, a job kind of server/jobs/). */
export interface EmailSettings {
  /**
   * LATCH_SMTP_URL — the deployment's default SMTP server, used by projects whose email config is
   * `shared`: `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…:465` (TLS).
   * Unset: shared-config emails stay in the outbox as not-delivered, visible in the console.
   */
  smtpUrl: string | null;
  /**
   * LATCH_EMAIL_FROM — sender of shared-server emails: an address, or a name and an address
   * (`"Latch" <noreply@auth.example.com>`). Default: noreply@ the base URL's host, with no name.
   * The name is the operator's: projects on the shared server never choose it (their name is in the body).
   */
  from: string | null;
  /** The display name part of LATCH_EMAIL_FROM, if it had one. */
  fromName: string | null;
  /** LATCH_EMAIL_RATE_LIMIT_PER_HOUR — emails one project may queue per hour (default 1000; 0 = no limit). */
  perProjectPerHour: number;
  /**
   * LATCH_EMAIL_CLIENT_SHARE_PERCENT — the part of that hourly budget that mail triggered by client
   * requests (magic links, password resets, sign-up verification, client invitations: addresses any
   * visitor can name) may use (default 50). The rest is kept for mail the project's backend or owner
   * sends (server and admin access), so a flood of client requests cannot stop it.
   */
  clientSharePercent: number;
  /** LATCH_EMAIL_RATE_LIMIT_PER_IP — client requests that email an address they name, per client IP, project and hour (default 30; 0 = no limit). */
  perIpPerHour: number;
  /** LATCH_EMAIL_RATE_LIMIT_PER_RECIPIENT — requests that email one address, per project and hour, any access type (default 10; 0 = no limit). */
  perRecipientPerHour: number;
  /** LATCH_EMAIL_TEST_SENDS_PER_HOUR — test emails (POST /internal/send-test-email) per project, and per owner or IP, per hour (default 20; 0 = no limit). */
  testSendsPerHour: number;
  /**
   * LATCH_SMTP_ALLOW_PRIVATE — true lets projects' own SMTP servers (and test emails) connect to
   * loopback, private, link-local, CGNAT and metadata addresses, on any port. Default false: only
   * public addresses on ports 25, 465, 587 and 2525. For local development and tests only.
   */
  allowPrivate: boolean;
  /**
   * LATCH_SHARED_EMAIL — which projects may send through LATCH_SMTP_URL: `internal` (default: only
   * the console's own mail), `all`, or a comma-separated list of project ids the operator opted in.
   * Other projects' shared-config emails stay in the outbox as not-delivered until the project sets
   * its own SMTP server, so nobody can relay mail through the operator's domain by signing up.
   */
  sharedEmail: 'internal' | 'all' | string[];
  /** LATCH_SMTP_CA_FILE — PEM file of extra certificate authorities trusted for SMTP TLS (an internal relay's private CA); default none. */
  extraCa: string | null;
  /** LATCH_EMAIL_POLL_INTERVAL_MS — how often the outbox worker (server/jobs/) looks for due jobs, emails among them (default 1000). */
  pollIntervalMs: number;
  /**
   * LATCH_JOB_LEASE_MS — how long a claimed job stays reserved for the worker that claimed it
   * (default 300000). A worker killed mid-attempt leaves its jobs leased: they run again when the
   * lease runs out, so a shorter lease recovers sooner after a crash. It must outlast the longest
   * attempt (a webhook POST times out after 15 s), or a slow attempt is run twice.
   */
  jobLeaseMs: number;
  /**
   * LATCH_EMAIL_RENDER_THREADS — worker threads that render owner e-mail templates (QuickJS and the
   * React render); 0 (the default) means one per core but one, at least two.
   */
  renderThreads: number;
}

export const DEFAULT_EMAIL_SETTINGS: EmailSettings = {
  smtpUrl: null,
  from: null,
  fromName: null,
  perProjectPerHour: 1000,
  clientSharePercent: 50,
  perIpPerHour: 30,
  perRecipientPerHour: 10,
  testSendsPerHour: 20,
  allowPrivate: false,
  sharedEmail: 'internal',
  extraCa: null,
  pollIntervalMs: 1000,
  jobLeaseMs: 300_000,
  renderThreads: 0,
};

/**
 * Each maximum is per fixed window of `windowSeconds` and per project (tenancy); 0 switches that
 * limit off. Past a maximum the call is RATE_LIMITED (429, Retry-After) until the window ends.
 */
export interface RateLimitSettings {
  /** LATCH_RATE_LIMIT_WINDOW_SECONDS — the window every limit counts in (default 900 = 15 min). */
  windowSeconds: number;
  /**
   * LATCH_RATE_LIMIT_SIGN_IN_PER_EMAIL — failed password sign-ins per email from all IPs together
   * (default 100). Counted only for attempts the per-(email, IP) limit let through, so one source
   * adds at most signInPerEmailIp to it.
   */
  signInPerEmail: number;
  /** LATCH_RATE_LIMIT_SIGN_IN_PER_EMAIL_IP — failed password sign-ins per (email, client IP) (default 10). */
  signInPerEmailIp: number;
  /** LATCH_RATE_LIMIT_SIGN_IN_PER_IP — failed password sign-ins per client IP (default 100). */
  signInPerIp: number;
  /** LATCH_RATE_LIMIT_CODE_CHECKS_PER_IP — verification-code checks and uses per client IP (default 100). */
  codeChecksPerIp: number;
  /** LATCH_RATE_LIMIT_API_KEY_CHECKS_PER_IP — failed user/team API-key checks per calling IP (default 1000). */
  apiKeyChecksPerIp: number;
  /** LATCH_RATE_LIMIT_EMAIL_PROBES_PER_IP — answers that told a client IP an address has an account, or has none (default 100). */
  emailProbesPerIp: number;
  /** LATCH_RATE_LIMIT_SIGN_UPS_PER_IP — sign-ups (password and anonymous) per client IP, every attempt counted (default 100). */
  signUpsPerIp: number;
  /**
   * LATCH_RATE_LIMIT_PASSWORD_HASHES_PER_IP — calls that hash or verify a password (sign-in,
   * sign-up, set, update, reset, users created or updated with a password) per client IP, every
   * attempt counted (default 300).
   */
  passwordHashesPerIp: number;
}

export const DEFAULT_RATE_LIMITS: RateLimitSettings = {
  windowSeconds: 900,
  signInPerEmail: 100,
  signInPerEmailIp: 10,
  signInPerIp: 100,
  codeChecksPerIp: 100,
  apiKeyChecksPerIp: 1000,
  emailProbesPerIp: 100,
  signUpsPerIp: 100,
  passwordHashesPerIp: 300,
};

/**
 * argon2id is CPU-bound: one job per core but one, so the event loop and PostgreSQL keep a core;
 * but at least two, because on a 1-2 core machine one job at a time cuts sign-in capacity by a
 * third or more (bench/ab.ts on 2 cores: 47 vs 72 sign-ins/s) for a smaller gain in loop delay.
 */
export function defaultHashConcurrency(cores = availableParallelism()): number {
  return Math.max(2, cores - 1);
}

function intFrom(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
    throw new Error(`${name} must be an integer between ${min} and ${max}, got "${value}"`);
  }
  return parsed;
}

/**
 * Nothing: the client IP is the socket address until the operator names its proxies. Trusting
 * every private peer by default let anyone on a private network, or any proxy in front of Latch
 * that passes the header through, choose their IP and so a fresh budget for every per-IP limit.
 */
export const DEFAULT_TRUST_PROXY = false;

function trustProxyFrom(value: string | undefined): number | string | false {
  const given = value?.trim();
  if (!given) return DEFAULT_TRUST_PROXY;
  if (['false', 'none', 'no', '0'].includes(given.toLowerCase())) return false;
  if (/^\d+$/.test(given)) return intFrom('LATCH_TRUST_PROXY', given, 0, 1, 10);
  const entries = given
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const valid = (entry: string) => {
    if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) return true;
    const [address, bits, extra] = entry.split('/');
    const family = isIP(address ?? '');
    if (!family || extra !== undefined) return false;
    return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
  };
  const bad = entries.find((entry) => !valid(entry));
  // "true" (trust any peer) is refused on purpose: the client IP would be whatever the client says.
  if (bad !== undefined || entries.length === 0) {
    throw new Error(
      `LATCH_TRUST_PROXY must be false, a number of proxy hops (1-10), or a comma-separated list of addresses, CIDR ranges and loopback / linklocal / uniquelocal; "${bad ?? given}" is none of these`,
    );
  }
  return entries.join(', ');
}

function boolFrom(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  if (['true', '1', 'yes'].includes(value.toLowerCase())) return true;
  if (['false', '0', 'no'].includes(value.toLowerCase())) return false;
  throw new Error(`${name} must be true or false, got "${value}"`);
}

/**
 * The root secret. In embedded mode it is generated once into `<dataDir>/secret` (mode 0600) so
 * tokens and encrypted values survive restarts; on PostgreSQL it must be given, because several
 * instances must share it.
 */
function resolveSecret(given: string | undefined, databaseUrl: string | null, dataDir: string): string {
  if (given) {
    if (Buffer.byteLength(given) < 32) throw new Error('LATCH_SECRET must be at least 32 bytes long');
    return given;
  }
  const file = path.join(dataDir, 'secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  if (databaseUrl) {
    // One instance can keep its secret locally; several sharing a database must share LATCH_SECRET.
    console.warn(
      `[latch] LATCH_SECRET is not set: generating one into ${file}. Every instance on this database must use the same secret: set LATCH_SECRET for multi-instance deployments.`,
    );
  }
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return secret;
}

function smtpUrlFrom(value: string | undefined): string | null {
  const url = value?.trim();
  if (!url) return null;
  if (!/^smtps?:\/\/[^/?#]+/i.test(url)) throw new Error('LATCH_SMTP_URL must look like smtp://user:password@host:587 or smtps://user:password@host:465');
  return url;
}

function metricsTokenFrom(value: string | undefined): string | null {
  const token = value?.trim();
  if (!token) return null;
  // A bearer token a scraper sends on every request: long enough not to be guessed.
  if (token.length < 16 || /\s/.test(token)) throw new Error('LATCH_METRICS_TOKEN must be at least 16 characters, without spaces');
  return token;
}

/**
 * LATCH_EMAIL_FROM: `noreply@host`, `Name <noreply@host>` or `"Name" <noreply@host>`. The name may
 * not carry line breaks or angle brackets (it becomes a header).
 */
export function emailFromFrom(value: string | undefined): { from: string | null; fromName: string | null } {
  const given = value?.trim();
  if (!given) return { from: null, fromName: null };
  const named = /^(?:"([^"\r\n<>]*)"|([^"\r\n<>]*?))\s*<([^<>\s]+@[^<>\s]+)>$/.exec(given);
  if (named) return { from: named[3]!, fromName: (named[1] ?? named[2] ?? '').trim() || null };
  if (/^[^<>\s"]+@[^<>\s"]+$/.test(given)) return { from: given, fromName: null };
  throw new Error('LATCH_EMAIL_FROM must be an address (noreply@example.com) or a name and an address ("Latch" <noreply@example.com>)');
}

function sharedEmailFrom(value: string | undefined): EmailSettings['sharedEmail'] {
  const given = value?.trim();
  if (!given || given.toLowerCase() === 'internal') return 'internal';
  if (given.toLowerCase() === 'all') return 'all';
  const ids = given
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  if (ids.length === 0 || ids.some((id) => !/^[A-Za-z0-9_-]{1,64}$/.test(id))) {
    throw new Error(`LATCH_SHARED_EMAIL must be internal, all, or a comma-separated list of project ids, got "${given}"`);
  }
  return ids;
}

function stripeApiBaseFrom(source: NodeJS.ProcessEnv): string | null {
  const given = source.LATCH_STRIPE_API_BASE?.trim();
  if (!given) return null;
  if (source.NODE_ENV !== 'test') throw new Error('LATCH_STRIPE_API_BASE is for tests only (NODE_ENV=test)');
  if (!/^https?:\/\/[^/]+$/.test(given)) throw new Error('LATCH_STRIPE_API_BASE must look like http://127.0.0.1:12111');
  return given;
}

export function loadEnv(source: NodeJS.ProcessEnv = process.env): LatchEnv {
  const databaseUrl = source.DATABASE_URL?.trim() || null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new Error('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const databaseDirectUrl = source.DATABASE_DIRECT_URL?.trim() || null;
  if (databaseDirectUrl && !/^postgres(ql)?:\/\//.test(databaseDirectUrl)) {
    throw new Error('DATABASE_DIRECT_URL must start with postgres:// or postgresql://');
  }
  const databaseReadUrl = source.DATABASE_READ_URL?.trim() || null;
  if (databaseReadUrl && !/^postgres(ql)?:\/\//.test(databaseReadUrl)) {
    throw new Error('DATABASE_READ_URL must start with postgres:// or postgresql://');
  }
  if (databaseReadUrl && !databaseUrl) throw new Error('DATABASE_READ_URL needs DATABASE_URL (a replica of embedded PGlite does not exist)');
  const dataDir = path.resolve(source.LATCH_DATA_DIR?.trim() || '.latch-data');
  const logLevel = (source.LATCH_LOG_LEVEL ?? 'info') as LatchEnv['logLevel'];
  if (!['error', 'warn', 'info'].includes(logLevel)) throw new Error('LATCH_LOG_LEVEL must be error, warn or info');
  return {
    port: intFrom('PORT', source.PORT, 8400, 0, 65535),
    host: source.HOST?.trim() || '0.0.0.0',
    databaseUrl,
    databaseDirectUrl,
    databaseReadUrl,
    databasePoolSize: intFrom('DATABASE_POOL_SIZE', source.DATABASE_POOL_SIZE, 20, 1, 1000),
    databasePreparedStatements: boolFrom('DATABASE_PREPARED_STATEMENTS', source.DATABASE_PREPARED_STATEMENTS, true),
    passwordHashConcurrency: intFrom('LATCH_PASSWORD_HASH_CONCURRENCY', source.LATCH_PASSWORD_HASH_CONCURRENCY, defaultHashConcurrency(), 1, 64),
    passwordHashQueuePerProject: intFrom(
      'LATCH_PASSWORD_HASH_QUEUE_PER_PROJECT',
      source.LATCH_PASSWORD_HASH_QUEUE_PER_PROJECT,
      DEFAULT_HASH_QUEUE_PER_PROJECT,
      0,
      100_000,
    ),
    dataDir,
    secret: resolveSecret(source.LATCH_SECRET, databaseUrl, dataDir),
    baseUrl: source.LATCH_BASE_URL?.trim().replace(/\/+$/, '') || null,
    stripeApiBase: stripeApiBaseFrom(source),
    internalSignUp: boolFrom('LATCH_INTERNAL_SIGN_UP', source.LATCH_INTERNAL_SIGN_UP, true),
    corsOrigins: source.LATCH_CORS_ORIGINS
      ? source.LATCH_CORS_ORIGINS.split(',')
          .map((o) => o.trim())
          .filter(Boolean)
      : null,
    accessTokenTtlSeconds: intFrom('LATCH_ACCESS_TOKEN_TTL_SECONDS', source.LATCH_ACCESS_TOKEN_TTL_SECONDS, 600, 5, 86400),
    logLevel,
    trustProxy: trustProxyFrom(source.LATCH_TRUST_PROXY),
    oauth: oauthSettingsFrom(source),
    ai: aiSettingsFrom(source),
    metricsToken: metricsTokenFrom(source.LATCH_METRICS_TOKEN),
    webhooksAllowPrivate: boolFrom('LATCH_WEBHOOKS_ALLOW_PRIVATE', source.LATCH_WEBHOOKS_ALLOW_PRIVATE, false),
    rateLimits: {
      windowSeconds: intFrom('LATCH_RATE_LIMIT_WINDOW_SECONDS', source.LATCH_RATE_LIMIT_WINDOW_SECONDS, DEFAULT_RATE_LIMITS.windowSeconds, 1, 86400),
      signInPerEmail: intFrom(
        'LATCH_RATE_LIMIT_SIGN_IN_PER_EMAIL',
        source.LATCH_RATE_LIMIT_SIGN_IN_PER_EMAIL,
        DEFAULT_RATE_LIMITS.signInPerEmail,
        0,
        1_000_000,
      ),
      signInPerEmailIp: intFrom(
        'LATCH_RATE_LIMIT_SIGN_IN_PER_EMAIL_IP',
        source.LATCH_RATE_LIMIT_SIGN_IN_PER_EMAIL_IP,
        DEFAULT_RATE_LIMITS.signInPerEmailIp,
        0,
        1_000_000,
      ),
      signInPerIp: intFrom('LATCH_RATE_LIMIT_SIGN_IN_PER_IP', source.LATCH_RATE_LIMIT_SIGN_IN_PER_IP, DEFAULT_RATE_LIMITS.signInPerIp, 0, 1_000_000),
      codeChecksPerIp: intFrom(
        'LATCH_RATE_LIMIT_CODE_CHECKS_PER_IP',
        source.LATCH_RATE_LIMIT_CODE_CHECKS_PER_IP,
        DEFAULT_RATE_LIMITS.codeChecksPerIp,
        0,
        1_000_000,
      ),
      apiKeyChecksPerIp: intFrom(
        'LATCH_RATE_LIMIT_API_KEY_CHECKS_PER_IP',
        source.LATCH_RATE_LIMIT_API_KEY_CHECKS_PER_IP,
        DEFAULT_RATE_LIMITS.apiKeyChecksPerIp,
        0,
        1_000_000,
      ),
      emailProbesPerIp: intFrom(
        'LATCH_RATE_LIMIT_EMAIL_PROBES_PER_IP',
        source.LATCH_RATE_LIMIT_EMAIL_PROBES_PER_IP,
        DEFAULT_RATE_LIMITS.emailProbesPerIp,
        0,
        1_000_000,
      ),
      signUpsPerIp: intFrom('LATCH_RATE_LIMIT_SIGN_UPS_PER_IP', source.LATCH_RATE_LIMIT_SIGN_UPS_PER_IP, DEFAULT_RATE_LIMITS.signUpsPerIp, 0, 1_000_000),
      passwordHashesPerIp: intFrom(
        'LATCH_RATE_LIMIT_PASSWORD_HASHES_PER_IP',
        source.LATCH_RATE_LIMIT_PASSWORD_HASHES_PER_IP,
        DEFAULT_RATE_LIMITS.passwordHashesPerIp,
        0,
        1_000_000,
      ),
    },
    email: {
      smtpUrl: smtpUrlFrom(source.LATCH_SMTP_URL),
      ...emailFromFrom(source.LATCH_EMAIL_FROM),
      perProjectPerHour: intFrom(
        'LATCH_EMAIL_RATE_LIMIT_PER_HOUR',
        source.LATCH_EMAIL_RATE_LIMIT_PER_HOUR,
        DEFAULT_EMAIL_SETTINGS.perProjectPerHour,
        0,
        100_000_000,
      ),
      clientSharePercent: intFrom(
        'LATCH_EMAIL_CLIENT_SHARE_PERCENT',
        source.LATCH_EMAIL_CLIENT_SHARE_PERCENT,
        DEFAULT_EMAIL_SETTINGS.clientSharePercent,
        0,
        100,
      ),
      perIpPerHour: intFrom('LATCH_EMAIL_RATE_LIMIT_PER_IP', source.LATCH_EMAIL_RATE_LIMIT_PER_IP, DEFAULT_EMAIL_SETTINGS.perIpPerHour, 0, 1_000_000),
      perRecipientPerHour: intFrom(
        'LATCH_EMAIL_RATE_LIMIT_PER_RECIPIENT',
        source.LATCH_EMAIL_RATE_LIMIT_PER_RECIPIENT,
        DEFAULT_EMAIL_SETTINGS.perRecipientPerHour,
        0,
        1_000_000,
      ),
      testSendsPerHour: intFrom(
        'LATCH_EMAIL_TEST_SENDS_PER_HOUR',
        source.LATCH_EMAIL_TEST_SENDS_PER_HOUR,
        DEFAULT_EMAIL_SETTINGS.testSendsPerHour,
        0,
        1_000_000,
      ),
      allowPrivate: boolFrom('LATCH_SMTP_ALLOW_PRIVATE', source.LATCH_SMTP_ALLOW_PRIVATE, DEFAULT_EMAIL_SETTINGS.allowPrivate),
      sharedEmail: sharedEmailFrom(source.LATCH_SHARED_EMAIL),
      extraCa: source.LATCH_SMTP_CA_FILE?.trim() ? readFileSync(source.LATCH_SMTP_CA_FILE.trim(), 'utf8') : null,
      pollIntervalMs: intFrom('LATCH_EMAIL_POLL_INTERVAL_MS', source.LATCH_EMAIL_POLL_INTERVAL_MS, DEFAULT_EMAIL_SETTINGS.pollIntervalMs, 10, 3_600_000),
      jobLeaseMs: intFrom('LATCH_JOB_LEASE_MS', source.LATCH_JOB_LEASE_MS, DEFAULT_EMAIL_SETTINGS.jobLeaseMs, 1000, 86_400_000),
      renderThreads: intFrom('LATCH_EMAIL_RENDER_THREADS', source.LATCH_EMAIL_RENDER_THREADS, DEFAULT_EMAIL_SETTINGS.renderThreads, 0, 64),
    },
    quotas: {
      metadataMaxBytes: intFrom('LATCH_METADATA_MAX_BYTES', source.LATCH_METADATA_MAX_BYTES, DEFAULT_QUOTAS.metadataMaxBytes, 1024, 100_000_000),
      sessionsPerUser: intFrom('LATCH_MAX_SESSIONS_PER_USER', source.LATCH_MAX_SESSIONS_PER_USER, DEFAULT_QUOTAS.sessionsPerUser, 1, 1_000_000),
      apiKeysPerOwner: intFrom('LATCH_MAX_API_KEYS_PER_OWNER', source.LATCH_MAX_API_KEYS_PER_OWNER, DEFAULT_QUOTAS.apiKeysPerOwner, 1, 1_000_000),
    },
  };
}
