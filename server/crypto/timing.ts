/**
 * Answers that must not reveal, by how long they take, which path the server took (OWASP ASVS
 * 6.3.8: no account enumeration through response times).
 */

/**
 * Runs `work` and settles with its result or error no sooner than `millis` after the call. For a
 * request whose two paths differ by a few database writes (password reset: an unknown address
 * writes nothing, a known one a code and an email), padding both to one floor hides the
 * difference as long as the work fits under the floor; the writes themselves cannot be made
 * equal without writing for addresses that do not exist.
 *
 * @example
 * await withMinimumDuration(50, () => mailResetLinkIfTheAccountExists(email));
 */
export async function withMinimumDuration<T>(millis: number, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    const left = millis - (performance.now() - started);
    if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
  }
}
