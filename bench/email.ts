/**
 * `BENCH_ONLY=email npm run bench` (or `npx tsx bench/email.ts`): send-email at scale, issue 17's
 * targets. Latch (the production build) on PostgreSQL with 10,000 users seeded straight into the
 * database, a project whose own SMTP server is a counting sink in this process (loopback only).
 * Reports: the API's answer time for a send to all 10,000 (a template + per-user data), the time
 * until the sink has every message (and msgs/s), the warm preview (POST /emails/render-email)
 * p50/p99, /users/me p99 idle vs during the send, and /users/me p99 while another project's owner
 * previews hostile templates (infinite loop, memory bomb, deep recursion, huge output).
 *
 * Environment: EMAIL_BENCH_USERS=10000, BENCH_POSTGRES_URL (admin URL), BENCH_VERBOSE=1.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { availableParallelism as availableCores, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SMTPServer } from 'smtp-server';
import { runLoad } from './lib/load.js';
import { startServer } from './lib/proc.js';
import { seedUsers } from './lib/seed.js';
import { databaseUrl, queryRows, setUpProject } from './lib/setup.js';
import { buildServerIfStale } from '../scripts/server-build.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = 'latch_bench_email';
const USERS = Number(process.env.EMAIL_BENCH_USERS ?? 10_000);
const PASSWORD = 'correct-horse-battery-staple';
const log = (line: string) => console.log(line);

const NEWSLETTER = `import { Heading, Text, Button, Section } from '@react-email/components';
import { Subject, NotificationCategory } from '@latch/emails';
export const variablesSchema = { edition: 'number', headline: 'string' };
export function EmailTemplate({ user, variables }) {
  return <>
    <Subject value={'Edition ' + variables.edition + ' for ' + (user.displayName ?? 'you')} />
    <NotificationCategory value="Marketing" />
    <Heading as="h1">Hello {user.displayName}</Heading>
    <Text>{variables.headline}</Text>
    <Text>This edition was put together for {user.primaryEmail}.</Text>
    <Section><Button href="https://news.example/read">Read it online</Button></Section>
  </>;
}`;

const HOSTILE: Record<string, string> = {
  'infinite loop': `export function EmailTemplate() { while (true) {} }`,
  'memory bomb': `export function EmailTemplate() { const a = []; while (true) a.push('x'.repeat(1e5) + a.length); }`,
  'deep recursion': `function f(n) { return f(n + 1) + 1; }\nexport function EmailTemplate() { return f(0); }`,
  'huge output': `import { Text } from '@react-email/components';\nexport function EmailTemplate() { return <Text>{'x'.repeat(4_000_000)}</Text>; }`,
};

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** CPU time (user + system, ms) of a local process so far, from /proc (Linux); 0 when it is gone. */
function cpuMsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

/** CPU ms of the PostgreSQL backends serving the bench database (the server is local). */
async function backendCpuMs(dbUrl: string): Promise<Map<number, number>> {
  const rows = await queryRows<{ pid: number }>(dbUrl, 'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
  return new Map(rows.map((r) => [r.pid, cpuMsOf(r.pid)]));
}

async function post(base: string, p: string, body: unknown, headers: Record<string, string>) {
  const res = await fetch(`${base}/api/v1${p}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
}

export interface EmailBenchResult {
  users: number;
  answerMs: number;
  deliveredMs: number;
  msgsPerSec: number;
  previewP50: number;
  previewP99: number;
  meIdleP99: number;
  meDuringSendP99: number;
  meHostileP99: number;
  hostileAnswers: Record<string, string>;
  /** One-minute load average of the machine while the send ran: min, mean, max (other work included). */
  load: { min: number; mean: number; max: number };
  /** CPU ms per recipient: the Latch process (all its threads) and the database's backends for it. */
  latchCpuMsPerRecipient: number;
  postgresCpuMsPerRecipient: number;
  /** From the rows: the last batch rendered and written, and how long an email waited in the outbox. */
  lastWrittenMs: number;
  outboxWaitMsAvg: number;
}

export async function runEmailBench(): Promise<EmailBenchResult> {
  if (await buildServerIfStale()) log('built the server into dist/server');
  await queryRows(ADMIN_URL, `DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
  await queryRows(ADMIN_URL, `CREATE DATABASE ${DB_NAME}`);
  const dbUrl = databaseUrl(ADMIN_URL, DB_NAME);

  // The project's own SMTP server: counts what arrives, keeps nothing.
  let received = 0;
  const sink = new SMTPServer({
    authOptional: true,
    // STARTTLS with the test sink's certificate (Latch sends no login over cleartext); Latch trusts it through LATCH_SMTP_CA_FILE.
    key: readFileSync(path.join(ROOT, 'server/test/fixtures/smtp-sink.key')),
    cert: readFileSync(path.join(ROOT, 'server/test/fixtures/smtp-sink.crt')),
    logger: false,
    onAuth: (_auth, _session, callback) => callback(null, { user: 'bench' }),
    onData(stream, _session, callback) {
      stream.on('data', () => undefined);
      stream.on('end', () => {
        received++;
        callback();
      });
    },
  });
  const smtpPort = await new Promise<number>((resolve) => sink.listen(0, '127.0.0.1', () => resolve((sink.server.address() as { port: number }).port)));

  const latch = await startServer({
    name: 'latch:email',
    args: ['--enable-source-maps', 'dist/server/main.mjs'],
    cwd: ROOT,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: '0',
      DATABASE_URL: dbUrl,
      LATCH_SECRET: randomBytes(48).toString('base64url'),
      LATCH_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'latch-bench-email-')),
      LATCH_LOG_LEVEL: 'error',
      // The owner's admin token must outlive a slow send (the previews and hostile phase come after it).
      LATCH_ACCESS_TOKEN_TTL_SECONDS: '3600',
      LATCH_SMTP_ALLOW_PRIVATE: 'true',
      LATCH_SMTP_CA_FILE: path.join(ROOT, 'server/test/fixtures/smtp-sink.crt'),
      LATCH_EMAIL_POLL_INTERVAL_MS: '200',
      LATCH_RATE_LIMIT_SIGN_UPS_PER_IP: '1000000',
      LATCH_RATE_LIMIT_PASSWORD_HASHES_PER_IP: '1000000',
    },
    ready: /Latch is running at http:\/\/[^\s:]+:(\d+)/,
  });
  try {
    const base = latch.url;
    const project = await setUpProject(base, 1, PASSWORD, { serverKey: true });
    const other = await setUpProject(base, 0, PASSWORD);
    const [tenancy] = await queryRows<{ id: string }>(dbUrl, `SELECT id FROM tenancies WHERE project_id = $1 AND branch_id = 'main'`, [project.projectId]);
    const [hash] = await queryRows<{ password_hash: string }>(
      dbUrl,
      'SELECT password_hash FROM users WHERE tenancy_id = $1 AND password_hash IS NOT NULL LIMIT 1',
      [tenancy!.id],
    );
    const seeded = await seedUsers(dbUrl, tenancy!.id, USERS, hash!.password_hash, () => undefined);
    log(`seeded ${seeded.users.toLocaleString('en')} users in ${seeded.seconds.toFixed(1)} s`);
    const ids = (
      await queryRows<{ id: string }>(dbUrl, `SELECT id FROM users WHERE tenancy_id = $1 AND password_hash = $2 ORDER BY id LIMIT $3`, [
        tenancy!.id,
        hash!.password_hash,
        USERS,
      ])
    )
      .map((r) => r.id)
      .filter((id) => id !== project.users[0]!.user_id)
      .slice(0, USERS);

    const config = {
      type: 'standard',
      host: '127.0.0.1',
      port: smtpPort,
      username: 'bench',
      password: 'bench',
      sender_name: 'News',
      sender_email: 'news@bench.example',
    };
    const patched = await fetch(`${base}/api/v1/internal/projects/current`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', ...project.admin },
      body: JSON.stringify({ config: { email_config: config } }),
    });
    if (!patched.ok) throw new Error(`email config: ${patched.status} ${await patched.text()}`);
    const template = await post(base, '/internal/email-templates', { display_name: 'News', tsx_source: NEWSLETTER }, project.admin);
    if (template.status !== 201) throw new Error(`template: ${template.status} ${JSON.stringify(template.body)}`);
    const variables = { edition: 42, headline: 'Everything that happened this week' };

    // Warm: the render threads, the compile cache, the preview route.
    for (let i = 0; i < 20; i++) await post(base, '/emails/render-email', { template_id: template.body.id, variables }, project.admin);

    const me = { ...project.client, 'x-latch-access-token': project.users[0]!.access_token };
    const meUrl = `${base}/api/v1/users/me`;
    const idle = await runLoad({ url: meUrl, connections: 8, durationSec: 8, headers: me });
    log(`/users/me idle: p50 ${idle.p50} ms, p99 ${idle.p99} ms, ${idle.rps.toFixed(0)} req/s`);

    const loads: number[] = [];
    const loadTimer = setInterval(() => loads.push(loadavg()[0]!), 2000);
    const latchCpuBefore = cpuMsOf(latch.pid);
    const backendsBefore = await backendCpuMs(dbUrl);
    const startedAt = Date.now();
    const started = performance.now();
    const sent = await post(base, '/emails/send-email', { user_ids: ids, template_id: template.body.id, variables }, project.server!);
    const answerMs = performance.now() - started;
    if (sent.status !== 200) throw new Error(`send-email: ${sent.status} ${JSON.stringify(sent.body).slice(0, 400)}`);
    log(`POST /emails/send-email to ${ids.length.toLocaleString('en')} users answered in ${answerMs.toFixed(0)} ms`);
    const during = runLoad({ url: meUrl, connections: 8, durationSec: 15, headers: me });
    const expected = ids.length;
    let lastLog = performance.now();
    const deadline = started + 15 * 60_000;
    while (received < expected && performance.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      if (performance.now() - lastLog > 10_000) {
        lastLog = performance.now();
        log(`  ${received.toLocaleString('en')} delivered after ${((lastLog - started) / 1000).toFixed(0)} s`);
      }
    }
    const deliveredMs = performance.now() - started;
    clearInterval(loadTimer);
    loads.push(loadavg()[0]!);
    const latchCpuMs = cpuMsOf(latch.pid) - latchCpuBefore;
    const backendsAfter = await backendCpuMs(dbUrl);
    // Backends that were already there count from their earlier reading; new ones from zero.
    let postgresCpuMs = 0;
    for (const [pid, ms] of backendsAfter) postgresCpuMs += ms - (backendsBefore.get(pid) ?? 0);
    const [phases] = await queryRows<{ last_written: Date; wait_ms: number }>(
      dbUrl,
      `SELECT max(created_at) AS last_written, avg(extract(epoch FROM sent_at - created_at) * 1000)::float8 AS wait_ms
         FROM email_outbox WHERE tenancy_id = $1 AND sent_at IS NOT NULL`,
      [tenancy!.id],
    );
    const lastWrittenMs = new Date(phases!.last_written).getTime() - startedAt;
    const load = { min: Math.min(...loads), mean: loads.reduce((a, b) => a + b, 0) / loads.length, max: Math.max(...loads) };
    const duringSend = await during;
    log(`all ${received.toLocaleString('en')} delivered after ${(deliveredMs / 1000).toFixed(1)} s (${(received / (deliveredMs / 1000)).toFixed(0)} msgs/s)`);
    log(
      `per recipient: ${(deliveredMs / received).toFixed(1)} ms wall, Latch CPU ${(latchCpuMs / received).toFixed(1)} ms (all threads), PostgreSQL CPU ${(postgresCpuMs / received).toFixed(1)} ms`,
    );
    log(
      `last batch rendered and written after ${(lastWrittenMs / 1000).toFixed(1)} s; an email waited ${(phases!.wait_ms / 1000).toFixed(2)} s on average in the outbox before the sink had it`,
    );
    log(
      `machine load average (1 min) during the send: min ${load.min.toFixed(1)}, mean ${load.mean.toFixed(1)}, max ${load.max.toFixed(1)} on ${availableCores()} cores`,
    );
    log(`/users/me during the send: p50 ${duringSend.p50} ms, p99 ${duringSend.p99} ms`);

    const previews: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t = performance.now();
      const res = await post(base, '/emails/render-email', { template_id: template.body.id, variables }, project.admin);
      previews.push(performance.now() - t);
      if (res.status !== 200) throw new Error(`render-email: ${res.status}`);
    }
    previews.sort((a, b) => a - b);
    log(`warm preview: p50 ${percentile(previews, 50).toFixed(1)} ms, p99 ${percentile(previews, 99).toFixed(1)} ms`);

    // Another tenant's owner previews hostile templates, four at a time, for the whole window.
    const hostileAnswers: Record<string, string> = {};
    let stop = false;
    const hostile = Array.from({ length: 4 }, async (_, k) => {
      const names = Object.keys(HOSTILE);
      for (let i = k; !stop; i++) {
        const name = names[i % names.length]!;
        const res = await post(base, '/emails/render-email', { template_tsx_source: HOSTILE[name] }, other.admin);
        hostileAnswers[name] = `${res.status} ${res.body.code ?? ''}: ${String(res.body.error ?? '').slice(0, 80)}`;
      }
    });
    const underAttack = await runLoad({ url: meUrl, connections: 8, durationSec: 10, headers: me });
    stop = true;
    await Promise.all(hostile);
    log(`/users/me while hostile templates render: p50 ${underAttack.p50} ms, p99 ${underAttack.p99} ms (${(underAttack.p99 / idle.p99).toFixed(2)}x idle)`);
    for (const [name, answer] of Object.entries(hostileAnswers)) log(`  ${name}: ${answer}`);

    return {
      users: expected,
      answerMs,
      deliveredMs,
      msgsPerSec: received / (deliveredMs / 1000),
      previewP50: percentile(previews, 50),
      previewP99: percentile(previews, 99),
      meIdleP99: idle.p99,
      meDuringSendP99: duringSend.p99,
      meHostileP99: underAttack.p99,
      hostileAnswers,
      load,
      latchCpuMsPerRecipient: latchCpuMs / received,
      postgresCpuMsPerRecipient: postgresCpuMs / received,
      lastWrittenMs,
      outboxWaitMsAvg: phases!.wait_ms,
    };
  } finally {
    await latch.stop();
    await new Promise<void>((resolve) => sink.close(() => resolve()));
    await queryRows(ADMIN_URL, `DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`).catch(() => undefined);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  runEmailBench().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
