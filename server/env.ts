import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
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
  /** DATABASE_POOL_SIZE — pg pool size (default 20). */
  databasePoolSize: number;
  /** LATCH_DATA_DIR — embedded data folder (default ./.latch-data). */
  dataDir: string;
  /** LATCH_SECRET — root key (32+ bytes). When unset, generated once into the data folder (mode 0600). */
  secret: string;
  /** LATCH_BASE_URL — public URL used as the JWT issuer prefix (default http://localhost:PORT). */
  baseUrl: string | null;
  /** LATCH_INTERNAL_SIGN_UP — false closes owner sign-up on the internal project. */
  internalSignUp: boolean;
  /** LATCH_CORS_ORIGINS — comma-separated allowed browser origins (default: any origin). */
  corsOrigins: string[] | null;
  /** LATCH_ACCESS_TOKEN_TTL_SECONDS — access-token lifetime (default 600). */
  accessTokenTtlSeconds: number;
  /** LATCH_LOG_LEVEL — error | warn | info (default info). */
  logLevel: 'error' | 'warn' | 'info';
}

function intFrom(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
    throw new Error(`${name} must be an integer between ${min} and ${max}, got "${value}"`);
  }
  return parsed;
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
    console.warn(`[latch] LATCH_SECRET is not set: generating one into ${file}. Every instance on this database must use the same secret: set LATCH_SECRET for multi-instance deployments.`);
  }
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return secret;
}

export function loadEnv(source: NodeJS.ProcessEnv = process.env): LatchEnv {
  const databaseUrl = source.DATABASE_URL?.trim() || null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new Error('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const dataDir = path.resolve(source.LATCH_DATA_DIR?.trim() || '.latch-data');
  const logLevel = (source.LATCH_LOG_LEVEL ?? 'info') as LatchEnv['logLevel'];
  if (!['error', 'warn', 'info'].includes(logLevel)) throw new Error('LATCH_LOG_LEVEL must be error, warn or info');
  return {
    port: intFrom('PORT', source.PORT, 8400, 0, 65535),
    host: source.HOST?.trim() || '0.0.0.0',
    databaseUrl,
    databasePoolSize: intFrom('DATABASE_POOL_SIZE', source.DATABASE_POOL_SIZE, 20, 1, 1000),
    dataDir,
    secret: resolveSecret(source.LATCH_SECRET, databaseUrl, dataDir),
    baseUrl: source.LATCH_BASE_URL?.trim().replace(/\/+$/, '') || null,
    internalSignUp: boolFrom('LATCH_INTERNAL_SIGN_UP', source.LATCH_INTERNAL_SIGN_UP, true),
    corsOrigins: source.LATCH_CORS_ORIGINS ? source.LATCH_CORS_ORIGINS.split(',').map((o) => o.trim()).filter(Boolean) : null,
    accessTokenTtlSeconds: intFrom('LATCH_ACCESS_TOKEN_TTL_SECONDS', source.LATCH_ACCESS_TOKEN_TTL_SECONDS, 600, 5, 86400),
    logLevel,
  };
}
