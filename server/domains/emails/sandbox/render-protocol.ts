/** The messages between the render pool (engine.ts) and its worker threads (render-worker.ts). */

export interface RenderLimits {
  memoryBytes: number;
  stackBytes: number;
  timeMs: number;
  outputChars: number;
}

/** One batch: one compiled script, one JSON input per recipient, from `start` on (a restarted batch skips what was done). */
export interface RenderRequest {
  id: number;
  script: string;
  inputs: string[];
  start: number;
  limits: RenderLimits;
  /** Also render the returned tree to HTML and text (false: return QuickJS's JSON string as is). */
  host: boolean;
}

export interface RenderItemError {
  message: string;
  /** Line and column in the compiled bundle (compile.ts maps them back to the owner's source). */
  line: number | null;
  column: number | null;
  stage: 'run' | 'validate';
}

/** One recipient's outcome, posted as soon as it is known. */
export interface RenderItemReply {
  id: number;
  index: number;
  output?: string;
  result?: { html: string; text: string; subject: string | null; notificationCategory: string | null };
  error?: RenderItemError;
}

export type RenderReply = RenderItemReply | { id: number; done: true } | { ready: true };
