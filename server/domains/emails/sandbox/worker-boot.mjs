// Starts a worker thread's module: under the TypeScript sources (tests, tsx) it registers tsx first,
// since a worker does not inherit the parent's loader; in the production build the entry is the
// compiled render-worker.mjs and nothing is registered.
import { workerData } from 'node:worker_threads';

if (workerData.entry.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(workerData.entry);
