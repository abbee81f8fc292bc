/**
 * `npm run example`: a Latch server (embedded PGlite in .latch-data/example), a demo project made
 * once and reused, and the example app on a Vite dev server. No SMTP is needed: without one,
 * Latch keeps emails in its outbox, and this script prints every new email's link to the console
 * and lists them on a small local inbox page (/dev-inbox), so a newcomer can confirm an email.
 *
 * Environment: LATCH_EXAMPLE_PORT (app, default 5173), PORT (Latch, default 8400),
 * LATCH_DATA_DIR (default .latch-data/example).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { type Plugin, createServer } from 'vite';
import { loadEnv } from '../../server/env.js';
import { startLatch } from '../../server/start.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const dataDir = path.resolve(process.env.LATCH_DATA_DIR ?? '.latch-data/example');
const appPort = Number(process.env.LATCH_EXAMPLE_PORT ?? 5173);
const appOrigin = `http://localhost:${appPort}`;
const stateFile = path.join(dataDir, 'example-project.json');

// Local-only demo credentials: the owner of the demo project in this data folder.
const OWNER = { email: 'demo-owner@example.com', password: 'demo-owner-password' };

interface DemoProject {
  projectId: string;
  publishableClientKey: string;
  superSecretAdminKey: string;
}

async function api<T>(
  base: string,
  route: string,
  init: { method?: string; headers: Record<string, string>; body?: unknown },
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${base}/api/v1${route}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { ...init.headers, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: response.status, body: (await response.json()) as T };
}

const internal = (accessToken?: string) => ({
  'x-latch-project-id': 'internal',
  'x-latch-access-type': 'client',
  ...(accessToken ? { 'x-latch-access-token': accessToken } : {}),
});
const admin = (project: DemoProject) => ({
  'x-latch-project-id': project.projectId,
  'x-latch-access-type': 'admin',
  'x-latch-super-secret-admin-key': project.superSecretAdminKey,
});

/** The demo project of this data folder: read back when it still works, else made (idempotent). */
async function demoProject(base: string): Promise<DemoProject> {
  try {
    const saved = JSON.parse(readFileSync(stateFile, 'utf8')) as DemoProject;
    if ((await api(base, '/internal/projects/current', { headers: admin(saved) })).status === 200) return saved;
  } catch {
    // No state yet (first run) or a stale one: make the project below.
  }
  let session = await api<{ access_token: string }>(base, '/auth/password/sign-up', { headers: internal(), body: OWNER });
  if (session.status !== 200) session = await api(base, '/auth/password/sign-in', { headers: internal(), body: OWNER });
  if (session.status !== 200) throw new Error(`demo owner sign-in failed: ${JSON.stringify(session.body)}`);
  const token = session.body.access_token;
  const created = await api<{ id: string }>(base, '/internal/projects', {
    headers: internal(token),
    body: {
      display_name: 'Acme notes',
      config: {
        sign_up_enabled: true,
        credential_enabled: true,
        magic_link_enabled: true,
        allow_localhost: true,
        client_team_creation_enabled: true,
        client_user_deletion_enabled: true,
        allow_user_api_keys: true,
        create_team_on_sign_up: true,
        domains: [{ domain: appOrigin, handler_path: '/handler' }],
      },
    },
  });
  if (created.status !== 201) throw new Error(`demo project creation failed: ${JSON.stringify(created.body)}`);
  const ownerAdmin = { 'x-latch-project-id': created.body.id, 'x-latch-access-type': 'admin', 'x-latch-admin-access-token': token };
  const keys = await api<{ publishable_client_key: string; super_secret_admin_key: string }>(base, '/internal/api-keys', {
    headers: ownerAdmin,
    body: { description: 'example app', has_publishable_client_key: true, has_secret_server_key: false, has_super_secret_admin_key: true },
  });
  if (keys.status !== 201) throw new Error(`demo key creation failed: ${JSON.stringify(keys.body)}`);
  const project = { projectId: created.body.id, publishableClientKey: keys.body.publishable_client_key, superSecretAdminKey: keys.body.super_secret_admin_key };
  writeFileSync(stateFile, JSON.stringify(project, null, 2), { mode: 0o600 });
  return project;
}

interface OutboxEmail {
  id: string;
  to: string;
  subject: string;
  created_at_millis: number;
  text?: string;
}

const linkOf = (text: string) => /https?:\/\/\S+/.exec(text)?.[0] ?? null;
const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

async function recentEmails(base: string, project: DemoProject): Promise<OutboxEmail[]> {
  const list = await api<{ items: OutboxEmail[] }>(base, '/internal/emails?limit=20', { headers: admin(project) });
  return Promise.all(list.body.items.map(async (email) => (await api<OutboxEmail>(base, `/internal/emails/${email.id}`, { headers: admin(project) })).body));
}

/** /latch-config.json for the app, /dev-inbox for the emails. */
function examplePlugin(base: string, project: DemoProject): Plugin {
  return {
    name: 'latch-example',
    configureServer(server) {
      server.middlewares.use('/latch-config.json', (_req, res) => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ projectId: project.projectId, publishableClientKey: project.publishableClientKey, baseUrl: base, inboxUrl: '/dev-inbox' }));
      });
      server.middlewares.use('/dev-inbox', (_req, res) => {
        void recentEmails(base, project).then(
          (emails) => {
            const rows = emails
              .map((email) => {
                const link = linkOf(email.text ?? '');
                return `<li><strong>${escape(email.subject)}</strong> to ${escape(email.to)} <small>${new Date(email.created_at_millis).toLocaleString()}</small><br>${
                  link ? `<a href="${escape(link)}">${escape(link)}</a>` : ''
                }<pre>${escape(email.text ?? '')}</pre></li>`;
              })
              .join('');
            res.setHeader('content-type', 'text/html; charset=utf-8');
            res.end(
              `<!doctype html><meta charset="utf-8"><title>Dev inbox</title><style>body{font-family:system-ui;max-width:760px;margin:32px auto;padding:0 16px}li{margin:0 0 20px}pre{white-space:pre-wrap;background:#f4f4f5;padding:8px;border-radius:6px}</style><h1>Dev inbox</h1><p>Emails the demo project sent (newest first). Reload to see new ones.</p><ul>${rows || '<li>No emails yet.</li>'}</ul>`,
            );
          },
          (error: unknown) => {
            res.statusCode = 500;
            res.end(String(error));
          },
        );
      });
    },
  };
}

/** Prints each new email's link, so the flow works from the terminal alone. */
function watchOutbox(base: string, project: DemoProject): void {
  const seen = new Set<string>();
  let first = true;
  const poll = async () => {
    try {
      for (const email of (await recentEmails(base, project)).reverse()) {
        if (seen.has(email.id)) continue;
        seen.add(email.id);
        if (!first) console.log(`\n  ✉  "${email.subject}" to ${email.to}\n     ${linkOf(email.text ?? '') ?? '(no link)'}\n`);
      }
      first = false;
    } catch {
      // The server is stopping; the next poll (if any) tries again.
    }
  };
  void poll();
  setInterval(() => void poll(), 1000).unref();
}

async function main() {
  mkdirSync(dataDir, { recursive: true });
  // Local development: a mail server on this machine may be the demo project's own, and the demo
  // project may use LATCH_SMTP_URL when one is given.
  const env = loadEnv({
    ...process.env,
    LATCH_DATA_DIR: dataDir,
    LATCH_LOG_LEVEL: process.env.LATCH_LOG_LEVEL ?? 'warn',
    LATCH_SMTP_ALLOW_PRIVATE: process.env.LATCH_SMTP_ALLOW_PRIVATE ?? 'true',
    LATCH_SHARED_EMAIL: process.env.LATCH_SHARED_EMAIL ?? 'all',
  });
  const latch = await startLatch({ env });
  const project = await demoProject(latch.url);
  const vite = await createServer({
    root: here,
    configFile: false,
    plugins: [react(), examplePlugin(latch.url, project)],
    server: { port: appPort, strictPort: true, host: 'localhost' },
    logLevel: 'warn',
  });
  await vite.listen();
  watchOutbox(latch.url, project);
  console.log(`
  Latch example app:  ${appOrigin}
  Dev inbox:          ${appOrigin}/dev-inbox   (verification and sign-in links also print here)
  Latch server:       ${latch.url}   (data in ${path.relative(process.cwd(), dataDir)})
`);
  const stop = async () => {
    await vite.close();
    await latch.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
