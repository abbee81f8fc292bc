// The QuickJS side of the e-mail sandbox, in a worker thread (plain JavaScript so it loads the same
// under tsx, vitest and node). Why a worker: QuickJS runs synchronously, so a hostile template would
// otherwise block the server's event loop for its whole time limit, and QuickJS only polls its
// interrupt handler every few thousand operations (one slow built-in call can outlast the deadline):
// the host kills the worker on a wall-clock deadline instead. Nothing but JSON crosses either way.
import { parentPort, workerData } from 'node:worker_threads';
import { newQuickJSWASMModule, shouldInterruptAfterDeadline } from 'quickjs-emscripten';

const prelude = workerData.prelude;
let quickjs = await newQuickJSWASMModule();

function describe(dumped) {
  if (dumped && typeof dumped === 'object') {
    const name = typeof dumped.name === 'string' ? dumped.name : 'Error';
    const message = typeof dumped.message === 'string' ? dumped.message : JSON.stringify(dumped);
    const match = typeof dumped.stack === 'string' ? /bundle\.js:(\d+)(?::(\d+))?/.exec(dumped.stack) : null;
    return { message: `${name}: ${message}`, line: match ? Number(match[1]) : null, column: match?.[2] ? Number(match[2]) : 1 };
  }
  return { message: `Thrown: ${String(dumped)}`, line: null, column: null };
}

function run({ script, inputJson, limits }) {
  const runtime = quickjs.newRuntime();
  let engineBroken = false;
  try {
    runtime.setMemoryLimit(limits.memoryBytes);
    runtime.setMaxStackSize(limits.stackBytes);
    runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + limits.timeMs));
    const context = runtime.newContext();
    try {
      const steps = [
        [prelude, 'prelude.js'],
        [script, 'bundle.js'],
        [`__latchRender(${JSON.stringify(inputJson)})`, 'render.js'],
      ];
      let output;
      for (const [code, filename] of steps) {
        const result = context.evalCode(code, filename);
        if (result.error) {
          const dumped = context.dump(result.error);
          result.error.dispose();
          const { message, line, column } = describe(dumped);
          if (/interrupted/i.test(message)) return { error: `The e-mail took longer than ${limits.timeMs} ms to render`, line: null };
          if (/out of memory/i.test(message)) return { error: `The e-mail used more than ${limits.memoryBytes / 1024 / 1024} MB while rendering`, line: null };
          // Only the owner's bundle has lines worth mapping back to the source.
          return { error: message, line: filename === 'bundle.js' || /bundle\.js/.test(String(dumped?.stack)) ? line : null, column };
        }
        output = context.dump(result.value);
        result.value.dispose();
      }
      if (typeof output !== 'string') return { error: 'The render returned nothing', line: null };
      if (output.length > limits.outputChars) return { error: 'The rendered e-mail is too large', line: null };
      return { output };
    } finally {
      try {
        context.dispose();
      } catch {
        engineBroken = true;
      }
    }
  } catch (error) {
    engineBroken = true;
    return { error: `The rendering engine failed and was restarted: ${error instanceof Error ? error.message : String(error)}`, line: null };
  } finally {
    try {
      runtime.dispose();
    } catch {
      // QuickJS 0.32 can abort freeing a runtime that was interrupted mid-allocation (its issue 257).
      engineBroken = true;
    }
    if (engineBroken) quickjs = null;
  }
}

parentPort.on('message', async (request) => {
  quickjs ??= await newQuickJSWASMModule();
  let reply;
  try {
    reply = run(request);
  } catch (error) {
    quickjs = null;
    reply = { error: `The rendering engine failed and was restarted: ${String(error)}`, line: null };
  }
  parentPort.postMessage({ id: request.id, ...reply });
});
parentPort.postMessage({ ready: true });
