import type { EmailSettings } from '../env.js';
import { type Harness, startHarness, useFixture } from './harness.js';
import { SMTP_PASSWORD, SMTP_USER, type SmtpSink, type SmtpSinkOptions, startSmtpSink } from './smtp-sink.js';

/** One SMTP sink for the whole test file (see useFixture): `const flaky = useSmtpSink();`. */
export function useSmtpSink(options: SmtpSinkOptions = {}): SmtpSink {
  return useFixture(
    () => startSmtpSink(options),
    (sink) => sink.close(),
  );
}

/**
 * The mail tests' setting, for the whole test file: `shared`, a sink standing for the deployment's
 * default server (LATCH_SMTP_URL, sender noreply@latch.test); `own`, a sink with a login standing for
 * a project's own server (SMTP_USER / SMTP_PASSWORD); and a harness whose worker delivers to
 * `shared`, polling every 25 ms, with `email` merged over that. The harness stops before the sinks.
 */
export function useMailHarness(email: Partial<EmailSettings> = {}): { h: Harness; shared: SmtpSink; own: SmtpSink } {
  const shared = useSmtpSink();
  const own = useSmtpSink({ username: SMTP_USER, password: SMTP_PASSWORD });
  const h = useFixture(
    () => startHarness({ email: { smtpUrl: shared.url, from: 'noreply@latch.test', pollIntervalMs: 25, ...email } }),
    (harness) => harness.close(),
  );
  return { h, shared, own };
}
