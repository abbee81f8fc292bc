import pg from 'pg';

/**
 * What the A/B tools (ab.ts, instructions.ts) share: a statement on the admin database, and a
 * project with keys and signed-up users created over HTTP on a fresh Latch.
 */

export async function adminStatement(adminUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
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
  /** Client headers with the project's publishable key. */
  client: Record<string, string>;
  users: Array<{ email: string; access_token: string; refresh_token: string }>;
}

/** An owner, a project with a publishable key, and `userCount` users signed up with one password. */
export async function setUpProject(base: string, userCount: number, password: string): Promise<BenchProject> {
  const internal = { 'x-latch-project-id': 'internal', 'x-latch-access-type': 'client' };
  const stamp = Date.now();
  const owner = await post(base, '/auth/password/sign-up', { email: `owner-${stamp}@bench.example`, password }, internal);
  const project = await post(base, '/internal/projects', { display_name: 'Bench' }, { ...internal, 'x-latch-access-token': owner.access_token });
  const keys = await post(base, '/internal/api-keys', { description: 'bench', has_publishable_client_key: true, has_secret_server_key: false, has_super_secret_admin_key: false }, { 'x-latch-project-id': project.id, 'x-latch-access-type': 'admin', 'x-latch-admin-access-token': owner.access_token });
  const client = { 'x-latch-project-id': project.id, 'x-latch-access-type': 'client', 'x-latch-publishable-client-key': keys.publishable_client_key as string };
  const users: BenchProject['users'] = [];
  for (let i = 0; i < userCount; i++) {
    const email = `u${i}-${stamp}@bench.example`;
    users.push({ email, ...(await post(base, '/auth/password/sign-up', { email, password }, client)) });
  }
  return { client, users };
}
