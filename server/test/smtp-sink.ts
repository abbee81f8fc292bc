import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import PostalMime from 'postal-mime';
import { SMTPServer } from 'smtp-server';

/**
 * A real SMTP server for tests (smtp-server on 127.0.0.1, port 0): Latch delivers to it with
 * nodemailer exactly as to a production server, and each message is parsed with postal-mime, so a
 * test reads the email a person would get and follows its link or types its code.
 */

export interface ReceivedEmail {
  /** SMTP envelope recipients. */
  to: string[];
  from: { name: string; address: string } | null;
  subject: string;
  html: string;
  text: string;
  headers: Record<string, string>;
  /** The first http(s) link of the text part (the action link of every built-in email). */
  link: string | null;
  /** The `code` query parameter of that link. */
  code: string | null;
}

/** accept: 250; temporary: 451 on DATA (worth retrying); permanent: 550 on DATA (not). */
export type SinkMode = 'accept' | 'temporary-failure' | 'permanent-failure';

export interface SmtpSink {
  port: number;
  /** For LATCH_SMTP_URL. */
  url: string;
  received: ReceivedEmail[];
  mode: SinkMode;
  /** Resolves with the first message (already received or yet to come) that matches. */
  waitFor(match: (email: ReceivedEmail) => boolean, timeoutMs?: number): Promise<ReceivedEmail>;
  /** The next message to this address. */
  waitForTo(address: string, timeoutMs?: number): Promise<ReceivedEmail>;
  close(): Promise<void>;
}

/**
 * The sink's TLS certificate (self-signed, for localhost / 127.0.0.1 / ::1, valid until 2126): the
 * harness trusts it as LATCH_SMTP_CA_FILE would, so STARTTLS to a sink verifies like a real server.
 */
export const SINK_CERT = readFileSync(new URL('./fixtures/smtp-sink.crt', import.meta.url), 'utf8');
const SINK_KEY = readFileSync(new URL('./fixtures/smtp-sink.key', import.meta.url), 'utf8');

/** The login the tests give a sink that stands for a project's own SMTP server (startSmtpSink({ username, password })). */
export const SMTP_USER = 'smtp-user';
export const SMTP_PASSWORD = 'smtp-password-1';

export interface SmtpSinkOptions {
  username?: string;
  password?: string;
  /**
   * Offer STARTTLS (with SINK_CERT). Default: when a login is required, since Latch sends
   * credentials only over TLS. `false` with a login is a server that would take AUTH in cleartext.
   */
  starttls?: boolean;
}

export async function startSmtpSink(options: SmtpSinkOptions = {}): Promise<SmtpSink & { authAttempts: number }> {
  const received: ReceivedEmail[] = [];
  const waiters: { match: (email: ReceivedEmail) => boolean; resolve: (email: ReceivedEmail) => void }[] = [];
  const sink = { mode: 'accept' as SinkMode };
  const requireAuth = options.username !== undefined;
  const starttls = options.starttls ?? requireAuth;
  const counters = { authAttempts: 0 };

  const server = new SMTPServer({
    // Without a login, plain SMTP on loopback; with one, STARTTLS with the sink's certificate.
    disabledCommands: [...(starttls ? [] : ['STARTTLS']), ...(requireAuth ? [] : ['AUTH'])],
    ...(starttls ? { key: SINK_KEY, cert: SINK_CERT } : {}),
    authOptional: !requireAuth,
    // The sink would take a login in cleartext: it is Latch that must refuse to send one.
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      counters.authAttempts++;
      if (auth.username === options.username && auth.password === options.password) return callback(null, { user: auth.username });
      const error = Object.assign(new Error('Authentication credentials invalid'), { responseCode: 535 });
      return callback(error);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (sink.mode !== 'accept') {
          const temporary = sink.mode === 'temporary-failure';
          callback(Object.assign(new Error(temporary ? 'Mailbox busy, try again later' : 'Mailbox unavailable'), { responseCode: temporary ? 451 : 550 }));
          return;
        }
        void PostalMime.parse(Buffer.concat(chunks)).then((parsed) => {
          const text = parsed.text ?? '';
          const link = /https?:\/\/\S+/.exec(text)?.[0] ?? null;
          const email: ReceivedEmail = {
            to: session.envelope.rcptTo.map((r) => r.address),
            from: parsed.from && 'address' in parsed.from ? { name: parsed.from.name, address: parsed.from.address ?? '' } : null,
            subject: parsed.subject ?? '',
            html: parsed.html ?? '',
            text,
            headers: Object.fromEntries(parsed.headers.map((h) => [h.key.toLowerCase(), h.value])),
            link,
            code: link ? new URL(link).searchParams.get('code') : null,
          };
          received.push(email);
          for (const waiter of [...waiters]) {
            if (waiter.match(email)) {
              waiters.splice(waiters.indexOf(waiter), 1);
              waiter.resolve(email);
            }
          }
          callback();
        }, callback);
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;

  const waitFor = (match: (email: ReceivedEmail) => boolean, timeoutMs = 10_000) => {
    const already = received.find(match);
    if (already) return Promise.resolve(already);
    return new Promise<ReceivedEmail>((resolve, reject) => {
      const waiter = {
        match,
        resolve: (email: ReceivedEmail) => {
          clearTimeout(timer);
          resolve(email);
        },
      };
      const timer = setTimeout(() => {
        waiters.splice(waiters.indexOf(waiter), 1);
        reject(new Error(`no matching email arrived within ${timeoutMs} ms (${received.length} received)`));
      }, timeoutMs);
      waiters.push(waiter);
    });
  };

  return {
    port,
    get authAttempts() {
      return counters.authAttempts;
    },
    url: `smtp://127.0.0.1:${port}`,
    received,
    get mode() {
      return sink.mode;
    },
    set mode(mode: SinkMode) {
      sink.mode = mode;
    },
    waitFor,
    waitForTo: (address, timeoutMs) => waitFor((email) => email.to.some((to) => to.toLowerCase() === address.toLowerCase()), timeoutMs),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
