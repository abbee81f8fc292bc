import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { RenderItemError, RenderItemReply, RenderLimits, RenderReply, RenderRequest } from './render-protocol.js';
import { SANDBOX_PRELUDE } from './runtime.js';

/**
 * Runs compiled owner scripts in QuickJS (WebAssembly) and renders what they return, in a small pool
 * of worker threads. Why QuickJS: `node:vm` is not a security boundary, and isolated-vm needs
 * Node ≥ 22 and a native build; quickjs-emscripten ships its WASM in the npm package. Each render
 * gets a fresh QuickJS context (a batch shares one runtime) with a memory limit, a stack limit and
 * a deadline, and no host function at all: the owner's code sees only the prelude's globals, and its
 * only output is the returned JSON string. The host half (validating that tree, React → HTML,
 * Tailwind, plain text) runs in the same thread, so neither half costs the server's event loop.
 * A worker is killed and replaced if a render outlives its deadline (QuickJS polls its interrupt
 * handler only now and then) or if the thread dies: only the render in progress fails, with the
 * catalogued rendering error, and the rest of its batch goes on in the new thread.
 */

export const SANDBOX_LIMITS: RenderLimits = {
  memoryBytes: 64 * 1024 * 1024,
  // 256 KB, not more: at 512 KB deep recursion overflows Node's own stack inside the WASM call
  // (quickjs-emscripten issue 257), which is uncatchable and corrupts the instance.
  stackBytes: 256 * 1024,
  timeMs: 1000,
  outputChars: 5_000_000,
};

export type SandboxLimits = RenderLimits;

/** Wall-clock time past a render's deadline (the host render included) before its thread is terminated. */
const KILL_GRACE_MS = 2000;

export class SandboxRuntimeError extends Error {
  constructor(
    message: string,
    /** Line and column in the compiled bundle (compile.ts maps them back to the owner's source). */
    readonly line: number | null,
    readonly column: number | null = null,
    readonly stage: RenderItemError['stage'] = 'run',
  ) {
    super(message);
  }
}

/** One recipient's outcome from the pool. */
export type BatchItem = { ok: true; value: RenderItemReply } | { ok: false; error: RenderItemError };

interface Task {
  request: RenderRequest;
  results: (BatchItem | undefined)[];
  /** The next index the worker will answer for. */
  next: number;
  resolve: (results: BatchItem[]) => void;
}

function crashError(message: string): RenderItemError {
  return { message, line: null, column: null, stage: 'run' };
}

class RenderWorker {
  private worker: Worker | null = null;
  private ready: Promise<void> | null = null;
  private queue: Task[] = [];
  private current: Task | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** How many threads were replaced (tests read it to see a kill happened). */
  restarts = 0;

  private start(): Promise<void> {
    const entry = new URL(import.meta.url.endsWith('.ts') ? './render-worker.ts' : './render-worker.mjs', import.meta.url).href;
    const worker = new Worker(new URL('./worker-boot.mjs', import.meta.url), {
      workerData: { prelude: SANDBOX_PRELUDE, entry },
      // The WASM heap lives outside these limits; they bound the thread's own JS (React's render among it).
      resourceLimits: { maxOldGenerationSizeMb: 256, stackSizeMb: 4 },
    });
    worker.unref();
    this.worker = worker;
    this.ready = new Promise((resolve, reject) => {
      const onMessage = (reply: RenderReply) => {
        if ('ready' in reply) {
          worker.off('message', onMessage);
          resolve();
        }
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
      worker.once('exit', () => reject(new Error('the thread stopped while starting')));
    });
    // A rejected start is handled by next(); this keeps it from being reported as unhandled meanwhile.
    this.ready.catch(() => undefined);
    worker.on('message', (reply: RenderReply) => {
      if (this.worker !== worker || 'ready' in reply) return;
      const task = this.current;
      if (!task || reply.id !== task.request.id) return;
      if ('done' in reply) return this.finish();
      task.results[reply.index] = reply.error ? { ok: false, error: reply.error } : { ok: true, value: reply };
      task.next = reply.index + 1;
      this.arm(task);
    });
    worker.on('error', (error) => {
      if (this.worker === worker) this.crash(`The rendering engine failed and was restarted: ${error.message}`);
    });
    worker.on('exit', () => {
      if (this.worker === worker) this.crash('The rendering engine stopped and was restarted');
    });
    return this.ready;
  }

  /** The deadline of the render in progress: its own time limit plus the grace, from its start. */
  private arm(task: Task): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (task.next >= task.request.inputs.length) return;
    const worker = this.worker;
    this.timer = setTimeout(() => {
      if (this.current !== task || this.worker !== worker) return;
      this.fail(`The e-mail took longer than ${task.request.limits.timeMs} ms to render`);
      void worker?.terminate();
    }, task.request.limits.timeMs + KILL_GRACE_MS);
  }

  /** The thread died (or was killed): the render in progress fails, the rest of its batch goes on in a new one. */
  private crash(message: string): void {
    this.fail(message);
  }

  private fail(message: string): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.worker = null;
    this.ready = null;
    this.restarts++;
    const task = this.current;
    if (!task) return;
    if (task.next < task.request.inputs.length) task.results[task.next] = { ok: false, error: crashError(message) };
    task.next++;
    this.current = null;
    if (task.next < task.request.inputs.length) {
      // The rest of the batch, first in line, on a fresh thread.
      task.request = { ...task.request, start: task.next };
      this.queue.unshift(task);
    } else task.resolve(task.results as BatchItem[]);
    void this.next();
  }

  private finish(): void {
    const task = this.current;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.current = null;
    if (task) task.resolve(task.results as BatchItem[]);
    void this.next();
  }

  private async next(): Promise<void> {
    if (this.current || this.queue.length === 0) return;
    const task = this.queue.shift()!;
    this.current = task;
    try {
      if (!this.worker) await this.start();
      else await this.ready;
    } catch (error) {
      if (this.current === task) this.crash(`The rendering engine could not start: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    if (this.current !== task) return;
    // The deadline starts when the thread takes the batch, not while it waits in the queue.
    this.arm(task);
    this.worker!.postMessage(task.request);
  }

  /** Renders waiting or in progress on this thread. */
  get load(): number {
    let load = this.current ? this.current.request.inputs.length - this.current.next : 0;
    for (const task of this.queue) load += task.request.inputs.length - task.request.start;
    return load;
  }

  run(request: RenderRequest): Promise<BatchItem[]> {
    return new Promise((resolve) => {
      this.queue.push({ request, results: new Array(request.inputs.length), next: request.start, resolve });
      void this.next();
    });
  }

  /** Terminates the thread as if it had crashed (tests of crash isolation). */
  async crashForTesting(): Promise<void> {
    await this.worker?.terminate();
  }
}

/**
 * Threads: one per core but one (the event loop keeps a core), at least two, so one hostile render
 * waiting out its deadline never holds up every other tenant's preview.
 */
let pool: RenderWorker[] = [];
let poolSize = Math.max(2, availableParallelism() - 1);
let nextId = 1;

function workers(): RenderWorker[] {
  while (pool.length < poolSize) pool.push(new RenderWorker());
  return pool;
}

/** Sets the number of render threads (LATCH_EMAIL_RENDER_THREADS); only grows a running pool. */
export function setRenderThreads(count: number): void {
  poolSize = Math.max(1, Math.floor(count));
}

function leastLoaded(): RenderWorker {
  return workers().reduce((best, w) => (w.load < best.load ? w : best));
}

/** Starts the threads and loads the WASM and React ahead of the first render (about a second cold). */
export async function warmUpSandbox(): Promise<void> {
  await Promise.all(workers().map((w) => w.run({ id: nextId++, script: '', inputs: ['{}'], start: 0, limits: SANDBOX_LIMITS, host: false })));
}

/** Threads replaced so far (after a kill or a crash). */
export function sandboxRestarts(): number {
  return pool.reduce((sum, w) => sum + w.restarts, 0);
}

/** Terminates every render thread, as a crash would (tests only). */
export async function crashRenderThreadsForTesting(): Promise<void> {
  await Promise.all(pool.map((w) => w.crashForTesting()));
}

/**
 * Runs `script` for each input in one batch on the least loaded thread, and renders each returned
 * tree on that thread too. One entry per input, in order: a failure of one never fails the others.
 */
export function renderBatchInSandbox(script: string, inputJsons: string[], limits: SandboxLimits = SANDBOX_LIMITS): Promise<BatchItem[]> {
  if (inputJsons.length === 0) return Promise.resolve([]);
  return leastLoaded().run({ id: nextId++, script, inputs: inputJsons, start: 0, limits, host: true });
}

/**
 * Evaluates `script` after the prelude and returns what `__latchRender(input)` returned (QuickJS
 * only, no host render).
 * @throws SandboxRuntimeError for anything the owner's code did (throw, timeout, out of memory,
 * stack overflow, oversized output, a crashed engine).
 */
export async function runInSandbox(script: string, inputJson: string, limits: SandboxLimits = SANDBOX_LIMITS): Promise<string> {
  const [item] = await leastLoaded().run({ id: nextId++, script, inputs: [inputJson], start: 0, limits, host: false });
  if (!item!.ok) throw new SandboxRuntimeError(item!.error.message, item!.error.line, item!.error.column, item!.error.stage);
  return item!.value.output!;
}
