import { Worker } from 'node:worker_threads';
import { SANDBOX_PRELUDE } from './runtime.js';

/**
 * Runs a compiled owner script in QuickJS (WebAssembly) in a worker thread. Why QuickJS: `node:vm`
 * is not a security boundary, and isolated-vm needs Node ≥ 22 and a native build; quickjs-emscripten
 * ships its WASM in the npm package. Each render gets its own QuickJS runtime and context with a
 * memory limit, a stack limit and a deadline, and no host function at all: the owner's code sees only
 * the prelude's globals, and its only output is the returned JSON string. A fresh context per render
 * means one recipient's variables can never be read by another's render. The worker is killed and
 * replaced if it outlives the deadline (QuickJS polls its interrupt handler only now and then), so a
 * hostile template costs at most its limits and never blocks the server's event loop.
 */

export const SANDBOX_LIMITS = {
  memoryBytes: 64 * 1024 * 1024,
  // 256 KB, not more: at 512 KB deep recursion overflows Node's own stack inside the WASM call
  // (quickjs-emscripten issue 257), which is uncatchable and corrupts the instance.
  stackBytes: 256 * 1024,
  timeMs: 1000,
  outputChars: 5_000_000,
};

export type SandboxLimits = typeof SANDBOX_LIMITS;

/** Extra wall-clock time past the deadline before the worker is terminated. */
const KILL_GRACE_MS = 1000;

export class SandboxRuntimeError extends Error {
  constructor(
    message: string,
    /** Line and column in the compiled bundle (compile.ts maps them back to the owner's source). */
    readonly line: number | null,
    readonly column: number | null = null,
  ) {
    super(message);
  }
}

interface Reply {
  id: number;
  output?: string;
  error?: string;
  line?: number | null;
  column?: number | null;
}

interface Pending {
  resolve: (reply: Reply) => void;
  timer: NodeJS.Timeout | null;
  request: { id: number; script: string; inputJson: string; limits: SandboxLimits };
}

class SandboxWorker {
  private worker: Worker | null = null;
  private ready: Promise<void> | null = null;
  private queue: Pending[] = [];
  private current: Pending | null = null;
  /** How many workers were replaced (tests read it to see a kill happened). */
  restarts = 0;

  private start(): Promise<void> {
    const worker = new Worker(new URL('./sandbox-worker.mjs', import.meta.url), {
      workerData: { prelude: SANDBOX_PRELUDE },
      // The WASM heap lives outside these limits; they bound the worker's own JS.
      resourceLimits: { maxOldGenerationSizeMb: 256, stackSizeMb: 4 },
    });
    worker.unref();
    this.worker = worker;
    this.ready = new Promise((resolve, reject) => {
      worker.once('message', () => resolve());
      worker.once('error', reject);
    });
    worker.on('message', (reply: Reply & { ready?: boolean }) => {
      if (reply.ready || !this.current || reply.id !== this.current.request.id) return;
      this.finish(reply);
    });
    worker.on('error', (error) => this.crash(`The rendering engine failed and was restarted: ${error.message}`));
    worker.on('exit', () => {
      if (this.worker === worker) this.crash('The rendering engine stopped and was restarted');
    });
    return this.ready;
  }

  private crash(message: string): void {
    const current = this.current;
    this.worker = null;
    this.ready = null;
    this.restarts++;
    if (current) this.finish({ id: current.request.id, error: message, line: null });
  }

  private finish(reply: Reply): void {
    const current = this.current;
    if (!current) return;
    if (current.timer) clearTimeout(current.timer);
    this.current = null;
    current.resolve(reply);
    void this.next();
  }

  private async next(): Promise<void> {
    if (this.current || this.queue.length === 0) return;
    const pending = this.queue.shift()!;
    this.current = pending;
    try {
      if (!this.worker) await this.start();
      else await this.ready;
    } catch (error) {
      this.crash(`The rendering engine could not start: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    const worker = this.worker!;
    // The deadline starts when the worker takes the job, not while it waits in the queue.
    pending.timer = setTimeout(() => {
      if (this.current !== pending) return;
      this.worker = null;
      this.ready = null;
      this.restarts++;
      void worker.terminate();
      this.finish({ id: pending.request.id, error: `The e-mail took longer than ${pending.request.limits.timeMs} ms to render`, line: null });
    }, pending.request.limits.timeMs + KILL_GRACE_MS);
    worker.postMessage(pending.request);
  }

  get load(): number {
    return this.queue.length + (this.current ? 1 : 0);
  }

  run(request: Pending['request']): Promise<Reply> {
    return new Promise((resolve) => {
      this.queue.push({ resolve, timer: null, request });
      void this.next();
    });
  }
}

const pool = [new SandboxWorker(), new SandboxWorker()];
let nextId = 1;

/** Starts the workers and loads the WASM ahead of the first render (about a second cold). */
export async function warmUpSandbox(): Promise<void> {
  await Promise.all(pool.map((w) => w.run({ id: nextId++, script: '', inputJson: '{}', limits: SANDBOX_LIMITS })));
}

/** Workers replaced so far (after a kill or a crash). */
export function sandboxRestarts(): number {
  return pool.reduce((sum, w) => sum + w.restarts, 0);
}

/**
 * Evaluates `script` after the prelude and returns what `__latchRender(input)` returned.
 * @throws SandboxRuntimeError for anything the owner's code did (throw, timeout, out of memory,
 * stack overflow, oversized output, a crashed engine).
 */
export async function runInSandbox(script: string, inputJson: string, limits: SandboxLimits = SANDBOX_LIMITS): Promise<string> {
  const id = nextId++;
  // Two workers: pick the one with the shorter queue, so one slow render does not hold up the rest.
  const worker = pool[0]!.load <= pool[1]!.load ? pool[0]! : pool[1]!;
  const reply = await worker.run({ id, script, inputJson, limits });
  if (reply.error !== undefined) throw new SandboxRuntimeError(reply.error, reply.line ?? null, reply.column ?? null);
  return reply.output!;
}
