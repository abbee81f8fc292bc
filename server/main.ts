import { startLatch } from './start.js';

/** `npm start`: the whole product in one process. Configuration: server/env.ts and the README. */
const latch = await startLatch().catch((error: unknown) => {
  // Configuration and start-up problems: one clear line, no stack trace.
  console.error(`[latch] could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
// The email render threads (QuickJS's WASM and React Email in each) start on the first owner
// template rendered, not here: ~30 MB and a second of CPU that an instance which never renders one
// (most of them: the built-in emails render on the main thread) should not pay (issue 23).
console.log(`Latch is running at ${latch.url}  (API: ${latch.url}/api/v1, docs: ${latch.url}/api/v1/docs)`);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`[latch] ${signal}: finishing in-flight requests and closing the database…`);
  const force = setTimeout(() => {
    console.error('[latch] shutdown took longer than 10 s; exiting');
    process.exit(1);
  }, 10_000);
  force.unref();
  await latch.close();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
