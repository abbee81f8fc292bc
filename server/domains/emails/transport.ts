import { createHash } from 'node:crypto';
import nodemailer, { type Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { Deps } from '../../deps.js';
import type { EmailSettings } from '../../env.js';
import type { EmailServerConfig } from '../projects/config.js';
import { revealSecret } from '../projects/service.js';

/**
 * Where an email goes: the project's own SMTP server (email_config `standard`) or the deployment's
 * default (`shared`, LATCH_SMTP_URL). nodemailer does the SMTP; this file only decides with what.
 */

export interface SmtpTarget {
  /** Identifies the server and credentials (never the password itself), to reuse a connection pool. */
  key: string;
  options: SMTPTransport.Options;
  from: { name: string; address: string };
}

/** Generous enough for a slow server, short enough that a dead one does not hold a worker for minutes. */
const TIMEOUTS = { connectionTimeout: 15_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

function digest(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 16);
}

/** A project's own server, with its password in plaintext; null when the password cannot be decrypted. */
export function standardTarget(config: Extract<EmailServerConfig, { type: 'standard' }>, password: string | null): SmtpTarget | null {
  if (password === null) return null;
  const options: SMTPTransport.Options = {
    host: config.host,
    port: config.port,
    // Port 465 speaks TLS from the first byte; any other port upgrades with STARTTLS when offered.
    secure: config.port === 465,
    ...(config.username ? { auth: { user: config.username, pass: password } } : {}),
    ...TIMEOUTS,
  };
  return {
    key: `standard:${config.host}:${config.port}:${config.username}:${digest(password)}`,
    options,
    from: { name: config.sender_name, address: config.sender_email },
  };
}

/** The deployment's default sender address: LATCH_EMAIL_FROM, else noreply@ the public host. */
function sharedFromAddress(settings: EmailSettings, baseUrl: string): string {
  if (settings.from) return settings.from;
  let host = 'localhost';
  try {
    host = new URL(baseUrl).hostname || host;
  } catch {
    // keep localhost
  }
  return `noreply@${host}`;
}

/** LATCH_SMTP_URL, sending as the project; null when the deployment has no default server. */
export function sharedTarget(settings: EmailSettings, baseUrl: string, senderName: string): SmtpTarget | null {
  const url = settings.smtpUrl;
  if (!url) return null;
  const parsed = new URL(url);
  const secure = parsed.protocol === 'smtps:';
  const options: SMTPTransport.Options = {
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: parsed.port ? Number(parsed.port) : secure ? 465 : 587,
    secure,
    ...(parsed.username ? { auth: { user: decodeURIComponent(parsed.username), pass: decodeURIComponent(parsed.password) } } : {}),
    ...TIMEOUTS,
  };
  return { key: `shared:${digest(url)}`, options, from: { name: senderName, address: sharedFromAddress(settings, baseUrl) } };
}

/** Where a project's emails go, or null when nowhere (they stay in the outbox as not-delivered). */
export function targetForProject(deps: Deps, project: { id: string; displayName: string; emailConfig: EmailServerConfig } | null): SmtpTarget | null {
  if (!project) return sharedTarget(deps.env.email, deps.baseUrl(), 'Latch');
  const config = project.emailConfig;
  if (config.type === 'standard') return standardTarget(config, revealSecret(deps, project.id, config.password));
  return sharedTarget(deps.env.email, deps.baseUrl(), project.displayName);
}

export interface OutgoingEmail {
  to: string;
  subject: string;
  html: string;
  text: string;
  /** The outbox id, sent as a header so a delivered message can be traced back to its row. */
  id?: string;
}

/**
 * Pooled SMTP connections, one pool per server and credentials. Bounded: the least recently used
 * pool is closed when a new server would exceed the cap (projects change their settings).
 */
export class SmtpPools {
  private readonly pools = new Map<string, Transporter<SMTPTransport.SentMessageInfo>>();
  constructor(private readonly maxPools = 20) {}

  private transporterFor(target: SmtpTarget): Transporter<SMTPTransport.SentMessageInfo> {
    const existing = this.pools.get(target.key);
    if (existing) {
      this.pools.delete(target.key);
      this.pools.set(target.key, existing);
      return existing;
    }
    const created = nodemailer.createTransport({ ...target.options, pool: true, maxConnections: 2 } as SMTPTransport.Options);
    this.pools.set(target.key, created);
    if (this.pools.size > this.maxPools) {
      const [oldestKey, oldest] = this.pools.entries().next().value!;
      this.pools.delete(oldestKey);
      oldest.close();
    }
    return created;
  }

  async send(target: SmtpTarget, email: OutgoingEmail): Promise<void> {
    await this.transporterFor(target).sendMail(toMail(target, email));
  }

  close(): void {
    for (const transporter of this.pools.values()) transporter.close();
    this.pools.clear();
  }
}

function toMail(target: SmtpTarget, email: OutgoingEmail) {
  return {
    from: target.from,
    to: email.to,
    subject: email.subject,
    html: email.html,
    text: email.text,
    ...(email.id ? { headers: { 'X-Latch-Email-Id': email.id } } : {}),
  };
}

/** One message over a fresh connection (the test email: nothing pooled outlives the request). */
export async function sendOnce(target: SmtpTarget, email: OutgoingEmail): Promise<void> {
  const transporter = nodemailer.createTransport(target.options);
  try {
    await transporter.sendMail(toMail(target, email));
  } finally {
    transporter.close();
  }
}

/**
 * The SMTP server's own words for a failure (`Invalid login: 535 5.7.8 …`, `connect ECONNREFUSED
 * 127.0.0.1:2525`), on one line and bounded: this text is shown to project admins.
 */
export function smtpErrorText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s+/g, ' ').trim().slice(0, 1000) || 'Unknown SMTP error';
}

/**
 * Whether retrying cannot help: the server answered with a permanent (5xx) reply to the message
 * itself, e.g. 550 no such mailbox. Connection problems and 4xx replies are worth retrying.
 */
export function isPermanentSmtpFailure(error: unknown): boolean {
  const code = (error as { responseCode?: unknown }).responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}
