// The worker-thread side of the e-mail renderer: QuickJS (the owner's code) and the host render
// (validating the returned tree, React → HTML, Tailwind, plain text) both run here, off the server's
// event loop, so a send to ten thousand users uses every render thread and /users/me stays fast.
// Loaded through worker-boot.mjs (which registers tsx when running from the sources); in the
// production build it is compiled to render-worker.mjs beside main.mjs.
//
// One request is a batch: one compiled script and N recipients' inputs. The batch shares one QuickJS
// runtime (creating a runtime is the expensive part); each recipient gets a fresh context, evaluated
// from the prelude up, so nothing one recipient's render leaves in its globals (or in the
// intrinsics it may have patched) is visible to the next. Each recipient has its own deadline,
// and its result is posted as soon as it is ready: the host's per-recipient wall-clock timer starts
// again on every reply, so a hostile recipient costs its own limits and the worker is killed only
// when QuickJS does not notice its interrupt in time.
import { parentPort, workerData } from 'node:worker_threads';
import { newQuickJSWASMModule, type QuickJSRuntime, type QuickJSWASMModule, shouldInterruptAfterDeadline } from 'quickjs-emscripten';
import { renderTree, TreeValidationError } from './host-render.js';
import type { RenderItemReply, RenderRequest } from './render-protocol.js';

const prelude = (workerData as { prelude: string }).prelude;
let quickjs: QuickJSWASMModule | null = await newQuickJSWASMModule();

interface Dumped {
  name?: unknown;
  message?: unknown;
  stack?: unknown;
}

function describe(dumped: unknown): { message: string; line: number | null; column: number | null } {
  if (dumped && typeof dumped === 'object') {
    const d = dumped as Dumped;
    const name = typeof d.name === 'string' ? d.name : 'Error';
    const message = typeof d.message === 'string' ? d.message : JSON.stringify(dumped);
    const match = typeof d.stack === 'string' ? /bundle\.js:(\d+)(?::(\d+))?/.exec(d.stack) : null;
    return { message: `${name}: ${message}`, line: match ? Number(match[1]) : null, column: match?.[2] ? Number(match[2]) : 1 };
  }
  return { message: `Thrown: ${String(dumped)}`, line: null, column: null };
}

type RunResult = { output: string } | { error: string; line: number | null; column?: number | null; broken?: boolean };

/** One recipient in a fresh context of the batch's runtime. */
function runOne(runtime: QuickJSRuntime, script: string, inputJson: string, limits: RenderRequest['limits']): RunResult {
  runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + limits.timeMs));
  const context = runtime.newContext();
  try {
    const steps: [string, string][] = [
      [prelude, 'prelude.js'],
      [script, 'bundle.js'],
      [`__latchRender(${JSON.stringify(inputJson)})`, 'render.js'],
    ];
    let output: unknown;
    for (const [code, filename] of steps) {
      const result = context.evalCode(code, filename);
      if (result.error) {
        const dumped = context.dump(result.error);
        result.error.dispose();
        const { message, line, column } = describe(dumped);
        if (/interrupted/i.test(message)) return { error: `The e-mail took longer than ${limits.timeMs} ms to render`, line: null, broken: true };
        if (/out of memory/i.test(message))
          return { error: `The e-mail used more than ${limits.memoryBytes / 1024 / 1024} MB while rendering`, line: null, broken: true };
        // Only the owner's bundle has lines worth mapping back to the source.
        const stack = dumped && typeof dumped === 'object' ? String((dumped as Dumped).stack) : '';
        return { error: message, line: filename === 'bundle.js' || /bundle\.js/.test(stack) ? line : null, column };
      }
      output = context.dump(result.value);
      result.value.dispose();
    }
    if (typeof output !== 'string') return { error: 'The render returned nothing', line: null };
    if (output.length > limits.outputChars) return { error: 'The rendered e-mail is too large', line: null };
    return { output };
  } finally {
    context.dispose();
  }
}

async function hostRender(output: string): Promise<RenderItemReply['result']> {
  const { tree, meta } = JSON.parse(output) as { tree: unknown; meta: { subject: string | null; notificationCategory: string | null } };
  const { html, text } = await renderTree(tree);
  return { html, text, subject: meta.subject, notificationCategory: meta.notificationCategory };
}

async function handle(request: RenderRequest): Promise<void> {
  quickjs ??= await newQuickJSWASMModule();
  let runtime: QuickJSRuntime | null = null;
  const freshRuntime = () => {
    const created = quickjs!.newRuntime();
    created.setMemoryLimit(request.limits.memoryBytes);
    created.setMaxStackSize(request.limits.stackBytes);
    return created;
  };
  const dropRuntime = () => {
    try {
      runtime?.dispose();
    } catch {
      // QuickJS 0.32 can abort freeing a runtime that was interrupted mid-allocation (its issue 257):
      // the module itself is then suspect and is recreated.
      quickjs = null;
    }
    runtime = null;
  };
  for (let index = request.start; index < request.inputs.length; index++) {
    let reply: RenderItemReply;
    try {
      quickjs ??= await newQuickJSWASMModule();
      runtime ??= freshRuntime();
      const ran = runOne(runtime, request.script, request.inputs[index]!, request.limits);
      if ('error' in ran) {
        reply = { id: request.id, index, error: { message: ran.error, line: ran.line, column: ran.column ?? null, stage: 'run' } };
        // A runtime that hit its memory or time limit is not reused for the next recipient.
        if (ran.broken) dropRuntime();
      } else if (!request.host) {
        reply = { id: request.id, index, output: ran.output };
      } else {
        try {
          reply = { id: request.id, index, result: await hostRender(ran.output) };
        } catch (error) {
          // Anything the tree makes React or the validator throw is the owner's tree's fault.
          const message = error instanceof TreeValidationError || error instanceof Error ? error.message : String(error);
          reply = { id: request.id, index, error: { message, line: null, column: null, stage: 'validate' } };
        }
      }
    } catch (error) {
      dropRuntime();
      quickjs = null;
      reply = {
        id: request.id,
        index,
        error: {
          message: `The rendering engine failed and was restarted: ${error instanceof Error ? error.message : String(error)}`,
          line: null,
          column: null,
          stage: 'run',
        },
      };
    }
    parentPort!.postMessage(reply);
  }
  dropRuntime();
  parentPort!.postMessage({ id: request.id, done: true });
}

parentPort!.on('message', (request: RenderRequest) => {
  void handle(request);
});
parentPort!.postMessage({ ready: true });
