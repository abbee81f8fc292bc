import { queryRows } from '../../server/test/query-rows.js';

/**
 * What the bench tools (run.ts, ab.ts, instructions.ts) share: a statement on a database, and a
 * project with keys and signed-up users created over HTTP on a fresh Latch.
 */

export { queryRows };

export async function adminStatement(adminUrl: string, text: string): Promise<void> {
  await queryRows(adminUrl, text);
}

/** The database URL of `database` on the server of `adminUrl`. */
export function databaseUrl(adminUrl: string, database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function post(base: string, p: string, body: unknown, headers: Record<string, string>): Promise<any> {
  const res = await fetch(`${base}/api/v1${p}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${p}: ${res.status} ${await res.text()}`);
  return res.json();
}

export interface BenchProject {
  projectId: string;
  /** Client headers with the project's publishable key. */
  client: Record<string, string>;
  /** Server headers with the project's secret key (only when asked for with `serverKey`). */
  server: Record<string, string> | null;
  /** The owner's admin access (their internal-project token) for this project. */
  admin: Record<string, string>;
  users: Array<{ email: string; user_id: string; access_token: string; refresh_token: string }>;
}

export interface SetUpOptions {
  /** Also mint a secret server key. */
  serverKey?: boolean;
  /** The address of user `i` (default: unique per run). */
  emailOf?: (i: number) => string;
  /** Sign-ups under way at once (default 1). */
  concurrency?: number;
}

/** An owner, a project with a publishable key, and `userCount` users signed up with one password. */
export async function setUpProject(base: string, userCount: number, password: string, options: SetUpOptions = {}): Promise<BenchProject> {
  const internal = { 'x-latch-project-id': 'internal', 'x-latch-access-type': 'client' };
  const stamp = Date.now();
  const emailOf = options.emailOf ?? ((i: number) => `u${i}-${stamp}@bench.example`);
  const owner = await post(base, '/auth/password/sign-up', { email: `owner-${stamp}@bench.example`, password }, internal);
  const project = await post(base, '/internal/projects', { display_name: 'Bench' }, { ...internal, 'x-latch-access-token': owner.access_token });
  const projectId = project.id as string;
  const admin = { 'x-latch-project-id': projectId, 'x-latch-access-type': 'admin', 'x-latch-admin-access-token': owner.access_token as string };
  const keys = await post(
    base,
    '/internal/api-keys',
    { description: 'bench', has_publishable_client_key: true, has_secret_server_key: options.serverKey ?? false, has_super_secret_admin_key: false },
    admin,
  );
  const client = { 'x-latch-project-id': projectId, 'x-latch-access-type': 'client', 'x-latch-publishable-client-key': keys.publishable_client_key as string };
  const server = options.serverKey
    ? { 'x-latch-project-id': projectId, 'x-latch-access-type': 'server', 'x-latch-secret-server-key': keys.secret_server_key as string }
    : null;
  const concurrency = options.concurrency ?? 1;
  const users: BenchProject['users'] = [];
  for (let batch = 0; batch < userCount; batch += concurrency) {
    const emails = Array.from({ length: Math.min(concurrency, userCount - batch) }, (_, k) => emailOf(batch + k));
    users.push(...(await Promise.all(emails.map(async (email) => ({ email, ...(await post(base, '/auth/password/sign-up', { email, password }, client)) })))));
  }
  return { projectId, client, server, admin, users };
}
