/**
 * Polls `probe` every 50 ms until it answers something other than `undefined` or `false`, and
 * returns that; throws naming `what` once `timeoutMs` has passed (for what a worker does in the
 * background: a delivery, an outbox row settling).
 */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
