import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import nodemailer, { type Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { Deps } from '../../deps.js';
import type { EmailSettings } from '../../env.js';
import type { EmailServerConfig } from '../../../contract/config/project-config.js';
import { revealSecret } from '../projects/service.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import { ALLOWED_SMTP_PORTS, type LookupAll, OutboundRefused, resolveOutboundAddress } from './public-address.js';

/**
 * Where an email goes: the project's own SMTP server (email_config `standard`) or the deployment's
 * default (`shared`, LATCH_SMTP_URL). nodemailer does the SMTP; this file only decides with what.
 */

export interface SmtpTarget {
  /** Identifies the server and credentials (never the password itself), to reuse a connection pool. */
  key: string;
  options: SMTPTransport.Options;
  from: { name: string; address: string };
  /**
   * Set for servers an owner chose (a project's `standard` config): the host must resolve to a
   * public address on an SMTP port unless `allowPrivate` (public-address.ts); pinTarget checks it
   * and connects to the checked address. Null for the operator's own LATCH_SMTP_URL.
   */
  ownerChosen: { allowPrivate: boolean } | null;
}

/** Generous enough for a slow server, short enough that a dead one does not hold a worker for minutes. */
const TIMEOUTS = { connectionTimeout: 15_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

function digest(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 16);
}

/**
 * TLS for every connection: certificates are always verified (nodemailer's default), against the
 * system's CAs plus LATCH_SMTP_CA_FILE when the operator gave one.
 */
function tlsOptions(settings: Pick<EmailSettings, 'extraCa'>): SMTPTransport.Options['tls'] {
  return settings.extraCa ? { ca: [...rootCertificates, settings.extraCa] } : undefined;
}

/**
 * Credentials never travel in cleartext: on any port but 465 (TLS from the first byte) a login
 * requires STARTTLS, so a server that does not offer it, or an attacker on the path who strips it
 * from the EHLO answer, gets no AUTH command: the send fails as a TLS failure instead.
 */
function requireTlsFor(hasCredentials: boolean, secure: boolean): { requireTLS?: true } {
  return hasCredentials && !secure ? { requireTLS: true } : {};
}

/** A project's own server, with its password in plaintext; null when the password cannot be decrypted. */
export function standardTarget(
  config: Extract<EmailServerConfig, { type: 'standard' }>,
  password: string | null,
  settings: Pick<EmailSettings, 'allowPrivate' | 'extraCa'> = { allowPrivate: false, extraCa: null },
): SmtpTarget | null {
  if (password === null) return null;
  // Port 465 speaks TLS from the first byte; any other port upgrades with STARTTLS when offered.
  const secure = config.port === 465;
  const tls = tlsOptions(settings);
  const options: SMTPTransport.Options = {
    host: config.host,
    port: config.port,
    secure,
    ...(config.username ? { auth: { user: config.username, pass: password } } : {}),
    ...requireTlsFor(Boolean(config.username), secure),
    ...(tls ? { tls } : {}),
    ...TIMEOUTS,
  };
  return {
    key: `standard:${config.host}:${config.port}:${config.username}:${digest(password)}`,
    options,
    from: { name: config.sender_name, address: config.sender_email },
    ownerChosen: { allowPrivate: settings.allowPrivate },
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

/**
 * LATCH_SMTP_URL, sending as the operator: the sender is LATCH_EMAIL_FROM, name included, whatever
 * the project is called (a project named "PayPal Security" does not get to be the From line of
 * the operator's domain; its name is in the body). Null when the deployment has no default server.
 */
export function sharedTarget(settings: EmailSettings, baseUrl: string): SmtpTarget | null {
  const url = settings.smtpUrl;
  if (!url) return null;
  const parsed = new URL(url);
  const secure = parsed.protocol === 'smtps:';
  const tls = tlsOptions(settings);
  const options: SMTPTransport.Options = {
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: parsed.port ? Number(parsed.port) : secure ? 465 : 587,
    secure,
    ...(parsed.username ? { auth: { user: decodeURIComponent(parsed.username), pass: decodeURIComponent(parsed.password) } } : {}),
    ...requireTlsFor(Boolean(parsed.username), secure),
    ...(tls ? { tls } : {}),
    ...TIMEOUTS,
  };
  return { key: `shared:${digest(url)}`, options, from: { name: settings.fromName ?? '', address: sharedFromAddress(settings, baseUrl) }, ownerChosen: null };
}

/** Whether LATCH_SHARED_EMAIL lets this project send through the operator's server. */
export function mayUseSharedServer(settings: Pick<EmailSettings, 'sharedEmail'>, projectId: string): boolean {
  if (projectId === 'internal' || settings.sharedEmail === 'all') return true;
  return Array.isArray(settings.sharedEmail) && settings.sharedEmail.includes(projectId);
}

/** Where a project's emails go, or null when nowhere (they stay in the outbox as not-delivered). */
export function targetForProject(deps: Deps, project: { id: string; displayName: string; emailConfig: EmailServerConfig } | null): SmtpTarget | null {
  if (!project) return sharedTarget(deps.env.email, deps.baseUrl());
  const config = project.emailConfig;
  if (config.type === 'standard') return standardTarget(config, revealSecret(deps, project.id, config.password), deps.env.email);
  if (!mayUseSharedServer(deps.env.email, project.id)) return null;
  return sharedTarget(deps.env.email, deps.baseUrl());
}

/**
 * The target to connect to: for an owner-chosen server, its host resolved and checked
 * (resolveOutboundAddress: OutboundRefused for a private address or a non-SMTP port) and pinned:
 * nodemailer connects to that address, and presents and verifies the host name for TLS
 * (`servername`), so certificates still verify. The operator's server is used as configured.
 */
export async function pinTarget(target: SmtpTarget, lookup?: LookupAll): Promise<SmtpTarget> {
  if (!target.ownerChosen) return target;
  const host = String(target.options.host ?? '');
  const port = Number(target.options.port);
  const address = await resolveOutboundAddress(host, port, { allowPrivate: target.ownerChosen.allowPrivate, ...(lookup ? { lookup } : {}) });
  const bare = host.replace(/^\[|\]$/g, '');
  const servername = isIP(bare) ? undefined : bare;
  const tls = { ...(target.options.tls ?? {}), ...(servername ? { servername } : {}) };
  return {
    ...target,
    key: `${target.key}@${address}`,
    options: { ...target.options, host: address, ...(servername ? { servername } : {}), tls },
  };
}

export interface OutgoingEmail {
  to: string;
  subject: string;
  html: string;
  text: string;
  /** The outbox id, sent as a header so a delivered message can be traced back to its row. */
  id?: string;
  /** Extra headers (send-email's one-click unsubscribe: List-Unsubscribe, List-Unsubscribe-Post). */
  headers?: Record<string, string>;
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
    // No display name at all rather than an empty one: `noreply@host`, not `"" <noreply@host>`.
    from: target.from.name ? target.from : target.from.address,
    to: email.to,
    subject: email.subject,
    html: email.html,
    text: email.text,
    headers: { ...email.headers, ...(email.id ? { 'X-Latch-Email-Id': email.id } : {}) },
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
 * Sends one message now to a project's own server (`config`), over a fresh connection checked and
 * pinned by pinTarget (the test email, the editor's preview): null when it went. A port or address
 * the check refuses throws its known error (EMAIL_SERVER_PORT_NOT_ALLOWED, EMAIL_SERVER_HOST_NOT_ALLOWED);
 * any other failure is logged for the operator (`failureLog`) and answered in Latch's words (smtpFailure).
 */
export async function sendRightAway(
  log: Deps['log'],
  failureLog: string,
  projectId: string,
  config: { host: string; port: number },
  target: SmtpTarget,
  email: OutgoingEmail,
): Promise<{ reason: SmtpFailureReason; message: string } | null> {
  try {
    await sendOnce(await pinTarget(target), email);
    return null;
  } catch (error) {
    if (error instanceof OutboundRefused && error.reason === 'port-not-allowed')
      throw new KnownErrors.EmailServerPortNotAllowed(config.port, ALLOWED_SMTP_PORTS);
    if (error instanceof OutboundRefused && error.reason === 'address-not-allowed') throw new KnownErrors.EmailServerHostNotAllowed(config.host);
    log.info(failureLog, { project_id: projectId, error: smtpErrorText(error) });
    return smtpFailure(error);
  }
}

/** The reasons a send can fail, as told to project admins: generic on purpose (see smtpFailure). */
export type SmtpFailureReason =
  | 'host_not_allowed'
  | 'port_not_allowed'
  | 'host_not_found'
  | 'connection_refused'
  | 'timed_out'
  | 'tls_failed'
  | 'auth_failed'
  | 'rejected'
  | 'connection_failed';

const FAILURE_TEXT: Record<SmtpFailureReason, string> = {
  host_not_allowed:
    'The SMTP host resolves to a private, loopback, link-local or otherwise non-public address, which this deployment does not connect to (LATCH_SMTP_ALLOW_PRIVATE).',
  port_not_allowed: 'The SMTP port is not one of 25, 465, 587 or 2525.',
  host_not_found: 'The SMTP host name could not be resolved.',
  connection_refused: 'The SMTP server refused the connection.',
  timed_out: 'The SMTP server did not answer in time.',
  tls_failed: 'The TLS connection to the SMTP server failed (no STARTTLS offered while a login is configured, or a certificate that does not verify).',
  auth_failed: 'The SMTP server refused the username or password.',
  rejected: 'The SMTP server refused the message.',
  connection_failed: 'The connection to the SMTP server failed.',
};

/**
 * What went wrong, in Latch's words only: a reason from a fixed list, and for a refusal the SMTP
 * reply code (three digits). Never the peer's own text: an owner can point a project's server at
 * any host, and echoing what it said would make Latch a banner grabber (an SSH, Redis or HTTP
 * service answering on that port would show its version to whoever asked). The full error goes to
 * the operator's log instead.
 */
export function smtpFailure(error: unknown): { reason: SmtpFailureReason; message: string } {
  const reason = failureReason(error);
  const code = (error as { responseCode?: unknown } | null)?.responseCode;
  const withCode = typeof code === 'number' && Number.isInteger(code) && code >= 400 && code < 600 && (reason === 'rejected' || reason === 'auth_failed');
  return { reason, message: withCode ? `${FAILURE_TEXT[reason].replace(/\.$/, '')} (SMTP ${code}).` : FAILURE_TEXT[reason] };
}

function failureReason(error: unknown): SmtpFailureReason {
  if (error instanceof OutboundRefused) {
    return error.reason === 'port-not-allowed' ? 'port_not_allowed' : error.reason === 'not-resolved' ? 'host_not_found' : 'host_not_allowed';
  }
  const { code, responseCode, message } = (error ?? {}) as { code?: unknown; responseCode?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : '';
  if (code === 'EAUTH' || code === 'ENOAUTH') return 'auth_failed';
  if (code === 'ETLS' || /certificate|self[- ]signed|tls|ssl/i.test(text)) return 'tls_failed';
  if (code === 'ETIMEDOUT' || /timed? ?out/i.test(text)) return 'timed_out';
  if (code === 'EDNS' || /ENOTFOUND|EAI_AGAIN/.test(text)) return 'host_not_found';
  if (/ECONNREFUSED/.test(text)) return 'connection_refused';
  if ((code === 'EENVELOPE' || code === 'EMESSAGE') && typeof responseCode === 'number') return 'rejected';
  return 'connection_failed';
}

/** One line of the error for the operator's log (not shown to project admins). */
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
